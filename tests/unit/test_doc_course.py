"""tests/unit/test_doc_course.py: the course's frame holds together. Every numbered section of a chapter ends
with a **Checkpoint:** question, every question has its answer in docs/CHECKPOINTS.md (and every answer there
still has its question), and the course map (docs/README.md) and the glossary lead to every chapter. Host only."""

import os
import re

import pytest

from tests import docscan
from tests.docscan import ROOT

CHAPTERS = sorted(f for f in docscan.doc_files() if re.fullmatch(r"docs/\d\d-[^/]+\.md", f))


def _read(path):
    return open(os.path.join(ROOT, path)).read()


def _sections(text):
    """(title, body) of each `## N. ...` section, outside code blocks."""
    out, title, body, fence = [], None, [], False
    for line in text.split("\n"):
        if line.strip().startswith("```"):
            fence = not fence
        if not fence and re.match(r"#{1,2} ", line):
            if title:
                out.append((title, "\n".join(body)))
            title = line[3:] if re.match(r"## \d+\. ", line) else None
            body = []
        elif title:
            body.append(line)
    if title:
        out.append((title, "\n".join(body)))
    return out


def test_chapters_are_numbered_once_from_01():
    """The sixteen of the course's first edition, and the chapters added since, each number once."""
    numbers = [os.path.basename(c)[:2] for c in CHAPTERS]
    assert {"%02d" % n for n in range(1, 21)} <= set(numbers), CHAPTERS
    assert len(numbers) == len(set(numbers)), CHAPTERS


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_numbered_section_ends_with_a_checkpoint(chapter):
    missing = []
    for title, body in _sections(_read(chapter)):
        last = [line for line in body.split("\n") if line.strip()][-1]
        if not last.startswith("**Checkpoint:** "):
            missing.append(title)
    assert not missing, "%s: sections without a closing **Checkpoint:** line: %s" % (chapter, missing)


def test_every_checkpoint_has_its_answer():
    answers = _read("docs/CHECKPOINTS.md")
    asked = []
    for chapter in CHAPTERS:
        for line in _read(chapter).split("\n"):
            if line.startswith("**Checkpoint:** "):
                asked.append((chapter, line[len("**Checkpoint:** "):].strip()))
    assert len(asked) >= 100
    unanswered = ["%s: %s" % (c, q) for c, q in asked if q not in answers]
    assert not unanswered, "checkpoints with no answer in docs/CHECKPOINTS.md:\n" + "\n".join(unanswered)
    questions = {q for _, q in asked}
    answered = re.findall(r"^\*\*[^*]+\*\* (.+)$", answers, re.M)
    stale = [q for q in answered if q not in questions]
    assert not stale, "docs/CHECKPOINTS.md answers questions no chapter asks any more:\n" + "\n".join(stale)


@pytest.mark.parametrize("doc", ["docs/README.md", "docs/GLOSSARY.md"])
def test_map_and_glossary_lead_to_every_chapter(doc):
    text = _read(doc)
    linked = {os.path.normpath(os.path.join("docs", t.split("#")[0])) for t in re.findall(r"\]\(([^)\s]+)\)", text)}
    missing = [c for c in CHAPTERS if c not in linked]
    assert not missing, "%s does not link to %s" % (doc, missing)


def test_glossary_anchors_resolve():
    """[term](GLOSSARY.md#anchor) links from anywhere in docs/ land on a term of the glossary."""
    glossary = _read("docs/GLOSSARY.md")
    anchors = {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
               for h in re.findall(r"^#+ (.+)$", glossary, re.M)}
    bad = []
    for doc in docscan.doc_files():
        for m in re.finditer(r"GLOSSARY\.md#([\w-]+)", _read(doc)):
            if m.group(1) not in anchors:
                bad.append("%s: #%s" % (doc, m.group(1)))
    assert not bad, "glossary links to terms it does not have: %s" % bad
