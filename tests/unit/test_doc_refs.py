"""tests/unit/test_doc_refs.py: every code reference in the course (docs/*.md, README.md) names something the
tree has: each path of ours exists, each `function()` of ours is defined in the sources. References that are
Linux's are exempt by the rule in tests/docscan.py (a "How Linux does it" section or paragraph, or a sentence
that names Linux before the reference); docs/README.md states the same rule for writers. Host only."""

import os
import shutil
import subprocess

import pytest

from tests import docscan
from tests.docscan import ROOT

# Named in the docs but rightly not in the tree. Each entry says why; keep it short.
NOT_IN_TREE = {
    # An exercise asks the student to write these two.
    ("docs/11-livepatch.md", "demo_count"): "an exercise's function, to be written",
    ("docs/11-livepatch.md", "demo_format"): "an exercise's function, to be written",
    # Exercises that name Linux after the reference ("... in old Linux"); the rule reads only what comes before.
    ("docs/05-live-patching.md", "arch_ftrace_nmi_enter"): "old Linux's, named after it",
    # Shorthand in a boxed diagram, where the full name does not fit.
    ("docs/06-ring-buffer.md", "record_off"): "ring_buffer_record_off(), abbreviated in a diagram",
    # An illustration of what a compiler makes of `if (unlikely(x)) rare();`.
    ("docs/12-jump-labels.md", "rare"): "a made-up function in an illustration",
    # Linux's might_sleep report, which __might_sleep() prints word for word in a transcript.
    ("docs/04-smp.md", "in_atomic"): "a field of Linux's report format, printed by __might_sleep()",
}


@pytest.fixture(scope="module")
def tree():
    files = docscan.tracked_files()
    return files, docscan.definitions(files=files), docscan.scan_tree()


def _where(r):
    return "%s:%d: %s\n      %s" % (r.doc, r.line, r.name, r.text)


def test_docs_are_found(tree):
    files, defs, refs = tree
    docs = docscan.doc_files()
    assert "README.md" in docs and "docs/02-mcount-loc.md" in docs and len(docs) >= 20
    # The scan must see a good share of the references a reader follows, or it checks nothing.
    assert sum(r.kind == "function" and not r.linux for r in refs) > 1000
    assert sum(r.kind == "path" and not r.linux for r in refs) > 500
    assert {"ftrace_init", "ftrace_caller", "return_to_handler", "row_ticks"} <= defs   # C, NASM, NASM, Python


def test_docs_are_found_in_a_copy_inside_build():
    """tools/test-flake's twin is a copy of the tree under build/, which git ignores: its files are still found."""
    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
    where = os.path.join(ROOT, "build", "doc-refs-copy")
    shutil.rmtree(where, ignore_errors=True)
    os.makedirs(os.path.join(where, "docs"))
    for name in ("README.md", "docs/02-mcount-loc.md"):
        with open(os.path.join(ROOT, name)) as src, open(os.path.join(where, name), "w") as dst:
            dst.write(src.read())
    try:
        assert docscan.doc_files(where) == ["docs/02-mcount-loc.md", "README.md"]
    finally:
        shutil.rmtree(where)


def test_every_path_of_ours_exists(tree):
    files, defs, refs = tree
    bad = [r for r in refs if r.kind == "path" and not r.linux and not docscan.path_exists(r.name, files)]
    if bad:
        pytest.fail("%d path(s) the tree does not have (name Linux in the sentence if they are Linux's):\n%s" % (
        len(bad), "\n".join(_where(r) for r in bad)), pytrace=False)


def test_every_function_of_ours_is_defined(tree):
    files, defs, refs = tree
    bad = [r for r in refs if r.kind == "function" and not r.linux and r.name not in defs
           and (r.doc, r.name) not in NOT_IN_TREE]
    if bad:
        pytest.fail("%d function(s) no C file, NASM file or Python tool defines (renamed? name Linux in the "
                    "sentence if they are Linux's):\n%s" % (len(bad), "\n".join(_where(r) for r in bad)),
                    pytrace=False)


def test_code_sections_name_what_exists(tree):
    """In a chapter's Code section every name in backquotes (a variable, macro, struct, field, test) is a
    word of the sources; `PREFIX_*` must start some word."""
    files, defs, refs = tree
    words = docscan.source_words(files)
    bad = []
    names = 0
    for doc in docscan.doc_files():
        for r in docscan.code_section_names(doc, open(os.path.join(ROOT, doc)).read()):
            names += 1
            ok = (any(w.startswith(r.name[:-1]) for w in words) if r.name.endswith("*") else r.name in words)
            if not ok:
                bad.append(r)
    assert names > 300
    if bad:
        pytest.fail("%d name(s) in Code sections that no source file has:\n%s" % (
            len(bad), "\n".join(_where(r) for r in bad)), pytrace=False)


def test_section_references_resolve():
    """"chapter 05, section 3" and a chapter's own "section 3" name a numbered section that exists."""
    sections = docscan.chapter_sections()
    refs = []
    for doc in docscan.doc_files():
        refs += docscan.section_refs(doc, open(os.path.join(ROOT, doc)).read())
    assert len(refs) > 100
    bad = [r for r in refs if r.name.split("/")[1] not in sections.get(r.name.split("/")[0], ())]
    if bad:
        pytest.fail("%d reference(s) to a section that does not exist:\n%s" % (
            len(bad), "\n".join("%s:%d: %s (%s)" % (r.doc, r.line, r.text, r.name) for r in bad)), pytrace=False)
    fake = docscan.section_refs("docs/05-live-patching.md", "See chapter 03, section 42. Then section 77.")
    assert [r.name for r in fake] == ["03/42", "05/77"]


def test_exceptions_are_still_needed(tree):
    """An entry of NOT_IN_TREE whose reference is gone, or now defined, must be dropped."""
    files, defs, refs = tree
    named = {(r.doc, r.name) for r in refs if r.kind == "function" and not r.linux and r.name not in defs}
    stale = sorted(set(NOT_IN_TREE) - named)
    assert not stale, "NOT_IN_TREE entries no longer needed: %s" % stale


INVENTED = "ftrace_" + "frob" + "_count"       # never written whole, so no source file holds it


def test_checker_catches_invented_names(tree):
    """The scan is the test: an invented function and path must be reported, Linux's must not."""
    files, defs, _ = tree
    text = "\n".join([
        "# 99 · A chapter",
        "",
        "Our `ftrace_init()` calls `ftrace_frobnicate_sites()` from `kernel/trace/ftrace_frob.c`, see",
        "[chapter 42](42-nothing.md) and `static_key_slow_inc/bogus()`.",
        "",
        "Linux's `ftrace_process_locs()` lives in `kernel/trace/ftrace_linux_only.c`. `include/linux/ftrace.h`",
        "is not a path of ours. A ring (Linux's is larger) filled by `serial_rx_invented()`; Linux's",
        "`ftrace_modify_all_code()` differs; ours is `ftrace_update_invented()`.",
        "",
        "## How Linux does it",
        "",
        "`start_kernel()` in `init/main.c` calls `ftrace_init()`; `kernel/trace/trace_linux_only.c` too.",
        "",
        "## Exercises",
        "",
        "1. Call `ops->func()` and `ftrace_frobnicate_more()`.",
        "",
        "## Code",
        "",
        "- `kernel/trace/ftrace.c`: `ftrace_init()`, `ftrace_pages_start`, `FTRACE_FL_*`, `%s`." % INVENTED,
    ])
    names = [r.name for r in docscan.code_section_names("docs/99-test.md", text)]
    assert names == ["ftrace_pages_start", "FTRACE_FL_*", INVENTED]
    words = docscan.source_words(files)
    assert "ftrace_pages_start" in words and INVENTED not in words
    refs = docscan.scan("docs/99-test.md", text, docscan.top_level(files))
    ours_missing = sorted({r.name for r in refs if not r.linux and
                           (r.name not in defs if r.kind == "function" else not docscan.path_exists(r.name, files))})
    assert ours_missing == ["docs/42-nothing.md", "ftrace_frobnicate_more", "ftrace_frobnicate_sites",
                            "ftrace_update_invented", "kernel/trace/ftrace_frob.c", "serial_rx_invented",
                            "static_key_slow_bogus"]
    linux = sorted({r.name for r in refs if r.linux})
    assert linux == ["ftrace_init", "ftrace_modify_all_code", "ftrace_process_locs",
                     "kernel/trace/ftrace_linux_only.c", "kernel/trace/trace_linux_only.c", "start_kernel"]


def test_nothing_points_at_the_engineering_notes():
    """The repository is self-contained: no file names the engineers' private notes or their folder."""
    out = subprocess.run(["git", "grep", "--untracked", "-n", "-I", "-i", "-e", "ENGINEERING" + ".md", "-e", "/shared/",
                          "-e", "\\.\\./shared", "--", ".", ":!tests/unit/test_doc_refs.py"],
                         cwd=ROOT, capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    assert out.stdout == "", "files that point at notes outside the repository:\n" + out.stdout
