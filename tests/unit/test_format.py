"""tests/unit/test_format.py: the C sources are exactly as `make format` (Debian 12's clang-format 14) writes them.

A tree that `make format` would rewrite makes every later formatting run a diff of someone else's lines; this
keeps the tree and its .clang-format agreeing. Fix a failure with `make format` and commit the result.
"""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def format_files():
    """The files `make format` hands to clang-format, as the Makefile lists them."""
    out = subprocess.run(["make", "-s", "-n", "format"], cwd=ROOT, capture_output=True, text=True, check=True)
    line = next(l for l in out.stdout.splitlines() if l.startswith("clang-format "))
    return [w for w in line.split()[1:] if not w.startswith("-")]


def test_clang_format_is_debians_14():
    version = subprocess.run(["clang-format", "--version"], capture_output=True, text=True).stdout
    assert re.search(r"version 14\.", version), "the tree is formatted with clang-format 14 (Debian 12): %s" % version


def test_make_format_lists_every_c_source():
    listed = set(format_files())
    assert len(listed) > 150
    for sub in ("kernel", "arch", "lib"):
        for path in (ROOT / sub).rglob("*.c"):
            assert str(path.relative_to(ROOT)) in listed, "%s is not formatted by make format" % path


def test_tree_is_as_make_format_writes_it():
    files = format_files()
    out = subprocess.run(["clang-format", "--dry-run", "--Werror"] + files, cwd=ROOT, capture_output=True,
                         text=True)
    bad = sorted({m.group(1) for m in re.finditer(r"^(\S+?):\d+:\d+: error", out.stderr, re.M)})
    assert out.returncode == 0 and not bad, "make format would rewrite %d files: %s" % (len(bad), " ".join(bad))
