"""tests/docscan.py: read the course's Markdown (docs/*.md, README.md) and list the code references in it, for
tests/unit/test_doc_refs.py; and what the tree defines, to check them against.

What counts as a reference (docs/README.md, "Conventions", says the same for writers):

    a path       a repository path in backquotes, a link target, or bare text, whose first part is one of our
                 top-level folders or files (`kernel/trace/ftrace.c`, `tools/bench.py`, [05](05-live-patching.md),
                 `Makefile`). Globs (`kernel/cmd_*.c`) must match something; `<name>` counts as a glob.
                 Build outputs (`build/...`, `build-static/...`), absolute paths (`/proc/...`, tracefs, devices)
                 and URLs are not repository paths.
    a function   `name()` in backquotes, or name() anywhere in a code block (diagrams name functions too): a C function or macro, a NASM label, a Python function. `a/b()`
                 shorthand (`static_key_slow_inc/dec()`) names `..._inc()` and `..._dec()`. A name after `->` or
                 `.` is a member (`ops->func()`), not checked. `docs/05` is chapter 05.

A reference is Linux's, and is not looked up in our tree, when
    1. it sits under a heading "How Linux does it" (any level, up to the next heading of that level or higher),
       or in a paragraph that opens with "How Linux does it", or
    2. the word "Linux" comes before it in the same sentence and clause ("Linux's `ftrace_process_locs()`",
       "as Linux's `read()` returns"; a `;` ends a clause, a parenthesis closed before the reference does not
       count), or
    3. it is a path whose first part our tree does not have (`include/linux/ftrace.h`, `mm/failslab.c`): that is
       simply not one of our paths.
Names of the C library and compiler the fuzzers compare against (C_LIBRARY below) are not ours either.
"""

import fnmatch
import os
import re
import subprocess
from typing import List, NamedTuple, Set

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The C library's and the compiler's names the docs mention as oracles or contrasts: never ours.
C_LIBRARY = {"fnmatch", "strtoull", "strtoll", "strtoul", "strtol", "snprintf", "printf", "memcmp", "malloc",
             "free", "abort"}

# Placeholders that stand for "some function" in an output format, not a name.
PLACEHOLDERS = {"func", "name", "function"}


class Ref(NamedTuple):
    doc: str        # path relative to ROOT
    line: int       # 1-based
    kind: str       # "path" or "function"
    name: str       # the path (as written) or the function name
    linux: bool     # True: Linux's, exempt
    text: str       # the source line, for messages


def tracked_files(root=ROOT) -> List[str]:
    """The tree's files as git sees them (tracked, or new and not ignored: never build outputs). When root is
    not the top of a git checkout, every file except build folders and dot-folders: a copy of the tree inside
    another checkout's ignored build/ (tools/test-flake's build/flake-twin/) would otherwise list nothing."""
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=root, capture_output=True, text=True,
                             check=True).stdout.strip()
        if os.path.realpath(top) != os.path.realpath(root):
            raise OSError("not the top of a checkout")
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=root,
                             capture_output=True, text=True, check=True).stdout
        return [f for f in out.split("\n") if f and os.path.exists(os.path.join(root, f))]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for top, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
            files += [os.path.relpath(os.path.join(top, n), root) for n in names]
        return sorted(files)


def doc_files(root=ROOT) -> List[str]:
    """The course's Markdown: docs/*.md (not docs/solutions/ or other sub-folders) and README.md."""
    docs = sorted(f for f in tracked_files(root) if re.fullmatch(r"docs/[^/]+\.md", f))
    return docs + ["README.md"]


def top_level(files) -> Set[str]:
    """First path components of the tree: `kernel`, `arch`, ..., `Makefile`, `linker.ld`."""
    return {f.split("/")[0] for f in files}


# ---- what the tree defines -------------------------------------------------------------------------------

_C_CHUNK = re.compile(r"^(?=[A-Za-z_])[^;{}#]*?[;{]", re.M)    # a top-level declaration, up to ; or {
_C_CALLEE = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_C_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)
_TRACE_EVENT = re.compile(r"^\s*(?:TRACE_EVENT|DECLARE_TRACE|DECLARE_EVENT_CLASS)\(\s*(\w+)"
                          r"|^\s*DEFINE_EVENT\(\s*\w+\s*,\s*(\w+)", re.M)
_ASM_LABEL = re.compile(r"^[ \t]*([.\w]+):", re.M)
_ASM_DIRECTIVE = re.compile(r"^[ \t]*(?:global|%macro|%define|%xdefine|%assign)[ \t]+(\w+)", re.M)
_PY_DEF = re.compile(r"^[ \t]*(?:def|class)[ \t]+(\w+)", re.M)


def c_definitions(text: str) -> Set[str]:
    """Functions defined at the top level of a C file (a declarator followed by `{`), macros, and the
    `trace_<event>()` / `trace_<event>_enabled()` functions TRACE_EVENT() makes."""
    names = set()
    for m in _C_CHUNK.finditer(text):
        chunk = m.group(0)
        if chunk.endswith("{") and "=" not in chunk.split("(")[0]:
            names.update(n for n in _C_CALLEE.findall(chunk) if n != "__attribute__")
    names.update(_C_DEFINE.findall(text))
    for a, b in _TRACE_EVENT.findall(text):
        event = a or b
        names.update({"trace_" + event, "trace_%s_enabled" % event})
        if a:       # a class of its own (kernel/trace/define_trace.h): its output and record functions
            names.update({"trace_raw_output_" + event, "trace_event_raw_event_" + event})
    return names


def definitions(root=ROOT, files=None) -> Set[str]:
    """Every name the tree's sources define: C, NASM, Python (tools/ and tests/)."""
    names = set()
    for f in files if files is not None else tracked_files(root):
        path = os.path.join(root, f)
        if f.endswith((".c", ".h")):
            names |= c_definitions(open(path, errors="replace").read())
        elif f.endswith((".asm", ".inc", ".S")):
            text = open(path, errors="replace").read()
            names |= set(_ASM_LABEL.findall(text)) | set(_ASM_DIRECTIVE.findall(text))
        elif f.endswith(".py") or (f.startswith("tools/") and "." not in os.path.basename(f)):
            text = open(path, errors="replace").read()
            if f.endswith(".py") or text.startswith("#!/usr/bin/python") or text.startswith("#!/usr/bin/env python"):
                names |= set(_PY_DEF.findall(text))
    return names


# ---- what the docs name ----------------------------------------------------------------------------------

_SPAN = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_FUNC = re.compile(r"(->|\.)?(?<![\w<>])([A-Za-z_]\w*(?:/[A-Za-z_]\w*)*)\(\)")
_PATH_CHARS = r"[\w.*<>+-]"
_BARE_PATH = re.compile(r"(?<![\w/.~<>-])((?:[\w.-]+/)+" + _PATH_CHARS + r"*)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)")
# Where a sentence may start: after . ? ! followed by a space, at a list item, in a new table cell.
_SENTENCE_END = re.compile(r"[.?!](?:\)|\*\*)?\s+(?=[A-Z`(\[*\"])|\|")


def expand_slashes(name: str) -> List[str]:
    """`static_key_slow_inc/dec` -> static_key_slow_inc, static_key_slow_dec: each alternative replaces the
    first name's last `_` part."""
    parts = name.split("/")
    first = parts[0]
    stem = first.rsplit("_", 1)[0] + "_" if "_" in first else ""
    return [first] + [stem + p for p in parts[1:]]


def _paragraphs(lines):
    """(start line, [lines]) of each block: fenced code blocks line by line, prose by blank-line paragraph,
    each list item and each table row on its own."""
    block, start, fence = [], 0, False
    for i, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            if block:
                yield start, block
            block = []
            fence = not fence
            yield i, [line]
            continue
        if fence:
            yield i, [line]
            continue
        new_item = (not stripped or _HEADING.match(line) or stripped.startswith("|")
                    or re.match(r"\s*(?:[-*]|\d+\.)\s", line))
        if new_item and block:
            yield start, block
            block = []
        if stripped:
            if not block:
                start = i
            block.append(line)
            if _HEADING.match(line) or stripped.startswith("|"):
                yield start, block
                block = []
    if block:
        yield start, block


def linux_before(before: str) -> bool:
    """Does the text before a reference make it Linux's? "Linux" must come earlier in the same sentence and
    the same clause (a `;` ends one), and not inside a parenthesis that closed before the reference:
    in "a ring (Linux's tty keeps as much) by `serial_rx()`" the function is ours."""
    ends = [m.end() for m in _SENTENCE_END.finditer(before)]
    clause = (before[ends[-1]:] if ends else before).split(";")[-1]
    while True:
        shorter = re.sub(r"\([^()]*\)", " ", clause)
        if shorter == clause:
            break
        clause = shorter
    return re.search(r"\bLinux\b", clause) is not None


def _is_repo_path(path: str, tops: Set[str]) -> bool:
    first = path.split("/")[0]
    return first in tops and first not in ("build", "build-static") and not first.startswith("build-")


def scan(doc: str, text: str, tops: Set[str]) -> List[Ref]:
    """Every path and function reference in one Markdown file (doc is its path relative to ROOT)."""
    refs: List[Ref] = []
    lines = text.split("\n")
    linux_level = 0          # >0: inside a "How Linux does it" section of this heading level
    fence = False
    for start, block in _paragraphs(lines):
        first = block[0]
        if first.strip().startswith("```"):
            fence = not fence
            continue
        if fence:
            # A code block (a diagram, a listing): `name()` is checked as in prose; "Linux" earlier on the
            # line, or a How Linux does it section, makes it Linux's. Paths are found below.
            for fm in _FUNC.finditer(first):
                if fm.group(1):
                    continue
                for name in expand_slashes(fm.group(2)):
                    if name not in PLACEHOLDERS and name not in C_LIBRARY:
                        linux = bool(linux_level) or re.search(r"\bLinux\b", first[:fm.start()]) is not None
                        refs.append(Ref(doc, start, "function", name, linux, first.strip()))
        h = _HEADING.match(first) if not fence else None
        if h:
            level = len(h.group(1))
            if linux_level and level <= linux_level:
                linux_level = 0
            if "How Linux does it" in h.group(2):
                linux_level = level
        para = " ".join(block)
        # line number of each character offset in `para`
        offsets, pos = [], 0
        for k, line in enumerate(block):
            offsets.append(pos)
            pos += len(line) + 1

        def line_of(off):
            k = 0
            while k + 1 < len(offsets) and offsets[k + 1] <= off:
                k += 1
            return start + k, block[k]

        linux_para = re.match(r"\W*How Linux does it\b", para) is not None

        def is_linux(off):
            if linux_level or linux_para:
                return True
            return linux_before(para[:off])

        def add(kind, name, off):
            ln, src = line_of(off)
            refs.append(Ref(doc, ln, kind, name, is_linux(off), src.strip()))

        seen_paths = set()
        # links
        if not fence:
            for m in _LINK.finditer(para):
                target = m.group(1).split("#")[0]
                if not target or re.match(r"[a-z]+:", target):
                    continue
                resolved = os.path.normpath(os.path.join(os.path.dirname(doc), target))
                add("path", resolved, m.start(1))
                seen_paths.add(m.start(1))
        # code spans: functions and paths
        spans = [] if fence else list(_SPAN.finditer(para))
        for m in spans:
            body = m.group(1)
            for fm in _FUNC.finditer(body):
                if fm.group(1):
                    continue
                for name in expand_slashes(fm.group(2)):
                    if name not in PLACEHOLDERS and name not in C_LIBRARY:
                        add("function", name, m.start(1) + fm.start(2))
            for pm in _BARE_PATH.finditer(body):
                path = pm.group(1).rstrip(".")
                if _is_repo_path(path, tops):
                    add("path", path, m.start(1) + pm.start(1))
        # bare text (and code blocks): paths only
        masked = para
        for m in spans:
            masked = masked[:m.start()] + " " * (m.end() - m.start()) + masked[m.end():]
        masked = _LINK.sub(lambda m: " " * len(m.group(0)), masked)
        for pm in _BARE_PATH.finditer(masked):
            path = pm.group(1).rstrip(".")
            if _is_repo_path(path, tops) and "/" in path.rstrip("/"):
                add("path", path, pm.start(1))
    return refs


def scan_tree(root=ROOT) -> List[Ref]:
    files = tracked_files(root)
    tops = top_level(files)
    refs = []
    for doc in doc_files(root):
        refs += scan(doc, open(os.path.join(root, doc)).read(), tops)
    return refs


def path_exists(path: str, files: List[str], root=ROOT) -> bool:
    """A file or folder of the tree; globs (`*`, `<name>`) must match at least one tracked file."""
    path = re.sub(r"<[^>]*>", "*", path).rstrip("/")
    if re.fullmatch(r"docs/\d\d", path):          # a chapter by number: docs/05
        path += "-*.md"
    if "*" in path:
        return any(fnmatch.fnmatch(f, path) or fnmatch.fnmatch(f, path + "/*") for f in files)
    return path in files or any(f.startswith(path + "/") for f in files)


# ---- names in the Code sections --------------------------------------------------------------------------

_WORD = re.compile(r"(?<![\w/.<>-])([A-Za-z_]\w*)(\*?)(?![\w/.(<>-])")


def code_section_names(doc: str, text: str) -> List[Ref]:
    """Every identifier in backquotes in a "Code" section (variables, macros, structs, fields, test names: the
    section is where a student looks things up). `FTRACE_FL_*` is a prefix."""
    refs, in_code, fence = [], False, False
    for i, line in enumerate(text.split("\n"), 1):
        if line.strip().startswith("```"):
            fence = not fence
        h = None if fence else _HEADING.match(line)
        if h:
            in_code = h.group(2).strip() == "Code"
            continue
        if in_code:
            for m in _SPAN.finditer(line):
                for w in _WORD.finditer(m.group(1)):
                    refs.append(Ref(doc, i, "name", w.group(1) + w.group(2), False, line.strip()))
    return refs


def source_words(files) -> Set[str]:
    """Every word of the tree's sources (not its Markdown, not fuzz corpora)."""
    words = set()
    for f in files:
        if f.endswith(".md") or "/corpus/" in f or f.endswith((".png", ".bin", ".dat")):
            continue
        path = os.path.join(ROOT, f)
        if os.path.isfile(path):
            words.update(re.findall(r"\w+", open(path, errors="replace").read()))
    return words


# ---- "chapter 05, section 3" -----------------------------------------------------------------------------

_CHAPTER_SECTION = re.compile(r"(?:chapter|docs/)\s?(\d\d)\)?(?:\]\([^)]*\))?,?\s+sections?\s(\d+)", re.I)
_OWN_SECTION = re.compile(r"(?<![\w/§])[Ss]ections? (\d+)")


def section_refs(doc: str, text: str) -> List[Ref]:
    """Every "chapter NN, section M" (also "[chapter NN](...) section M", "docs/NN section M") and, in a
    chapter, every bare "section M" of its own: Ref.name is "NN/M"."""
    refs = []
    own = os.path.basename(doc)[:2] if re.fullmatch(r"docs/\d\d-.*", doc) else None
    flat = text.replace("\n", " ")
    line_at = lambda off: text.count("\n", 0, off) + 1
    qualified = set()
    for m in _CHAPTER_SECTION.finditer(flat):
        refs.append(Ref(doc, line_at(m.start()), "section", "%s/%s" % (m.group(1), m.group(2)), False, m.group(0)))
        qualified.add(m.start(2))
    if own:
        for m in _OWN_SECTION.finditer(flat):
            if m.start(1) in qualified:
                continue
            before = flat[max(0, m.start() - 60):m.start()]
            if re.search(r"(chapter \d\d|\d\d-[a-z-]+\.md\)?|docs/\d\d)[^.;]*$", before, re.I):
                continue            # "chapter 03 (ops), section 5" and the like: another chapter's
            refs.append(Ref(doc, line_at(m.start()), "section", "%s/%s" % (own, m.group(1)), False, m.group(0)))
    return refs


def chapter_sections(root=ROOT):
    """{"05": {"1", ..., "9"}}: the numbered sections of each chapter."""
    out = {}
    for doc in doc_files(root):
        if re.fullmatch(r"docs/\d\d-.*\.md", doc):
            out[os.path.basename(doc)[:2]] = set(re.findall(r"^## (\d+)\. ", open(os.path.join(root, doc)).read(), re.M))
    return out
