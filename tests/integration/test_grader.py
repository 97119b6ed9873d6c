"""tests/integration/test_grader.py: `make grade` checked by `make test`: on this tree every graded exercise
scores 0, and on a copy with reference solutions (docs/solutions/*.patch) applied, full marks.

A grader that passes on the untouched tree proves nothing, and one that fails on its own reference
solution would fail every student; this is where both are caught.  The solutions are applied together
to one copy, in exercise order (so they must not conflict), built once in the copy's own build/ (a copy
of ours, so make only recompiles what the patches changed), and graded in one run that boots one QEMU.
`make test` applies the solutions that change no header (*.h): the copy then recompiles only their own files, where
a header would recompile most of the kernel, and grades only their exercises.  `make grade SOLUTIONS=1`
(FTRACE_OS_ALL_SOLUTIONS=1) applies and grades every solution.
docs/GRADING.md describes the design.
"""

import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COPY = os.path.join(ROOT, "build", "grade-check")
SOLUTIONS = os.path.join(ROOT, "docs", "solutions")
PYTHON = "/usr/bin/python3"
LINE = re.compile(r"^ex (\d\d\.\d+) (.*): (\d+)/(\d+)$", re.M)
ALL_SOLUTIONS = os.environ.get("FTRACE_OS_ALL_SOLUTIONS", "") not in ("", "0")
# Not worth copying: the copy rebuilds the ISOs, and keeps no logs, fuzzing or caches of ours.
SKIP = ["./.git", "./build/grade-check", "./build/fuzz", "./build/test-logs", "./build/grade-logs",
        "./build/pytest-cache", "./build/*.iso", "./build-*"]


def exercise_key(ex):
    ch, num = ex.split(".")
    return int(ch), int(num)


def graded():
    names = os.listdir(os.path.join(ROOT, "tests", "grade"))
    found = [re.match(r"ex_(\d\d)_(\d+)\.py$", n) for n in names]
    return sorted(("%s.%s" % m.groups() for m in found if m), key=exercise_key)


def patches():
    """{ '09.3': path } for docs/solutions/09.3-*.patch."""
    found = {}
    for name in os.listdir(SOLUTIONS):
        m = re.match(r"(\d\d\.\d+)-.*\.patch$", name)
        if m:
            found[m.group(1)] = os.path.join(SOLUTIONS, name)
    return found


def checked_solutions():
    """The exercises whose solutions this run applies: every one, or those whose patches change no header."""
    found = patches()
    touches_header = {ex: re.search(r"^\+\+\+ b/\S+\.h$", open(path).read(), re.M) for ex, path in found.items()}
    return sorted((ex for ex in found if ALL_SOLUTIONS or not touches_header[ex]), key=exercise_key)


def grade(root, exercises=()):
    """{ '09.3': (score, points) } from tools/grade run in root on the build there (only `exercises`, if given)."""
    args = [a for ex in exercises for a in ("--ex", ex)]
    proc = subprocess.run([PYTHON, "tools/grade", "--no-build"] + args, cwd=root, capture_output=True,
                          text=True, timeout=900)
    scores = {m.group(1): (int(m.group(3)), int(m.group(4))) for m in LINE.finditer(proc.stdout)}
    return proc, scores


def report(proc):
    return "tools/grade exited %d\n%s\n%s" % (proc.returncode, proc.stdout[-6000:], proc.stderr[-3000:])


def test_every_grader_has_a_solution():
    assert graded() and sorted(patches(), key=exercise_key) == graded()


def test_untouched_tree_scores_zero():
    proc, scores = grade(ROOT)
    assert sorted(scores, key=exercise_key) == graded(), report(proc)
    assert {ex: s for ex, (s, _) in scores.items() if s} == {}, report(proc)


def copy_tree():
    shutil.rmtree(COPY, ignore_errors=True)
    os.makedirs(COPY)
    excludes = ["--exclude=" + p for p in SKIP]
    # tar keeps modification times: make in the copy sees only the patched files as new.
    subprocess.run("tar -C %s %s -cf - . | tar -C %s -xf -" % (ROOT, " ".join(excludes), COPY),
                   shell=True, check=True)


def test_reference_solutions_score_full():
    chosen = checked_solutions()
    assert chosen, "no solution changes only .c files: make test would check none"
    copy_tree()
    for ex in chosen:
        # The copy lies inside our work tree: without the ceiling, git would take it for a
        # subdirectory of this repository and skip every path outside it.
        applied = subprocess.run(["git", "apply", "--whitespace=nowarn", patches()[ex]], cwd=COPY,
                                 capture_output=True, text=True,
                                 env=dict(os.environ, GIT_CEILING_DIRECTORIES=os.path.dirname(COPY)))
        assert applied.returncode == 0, "%s does not apply:\n%s" % (patches()[ex], applied.stderr)
    build = subprocess.run(["make", "--no-print-directory", "-j2", "all"], cwd=COPY,
                           capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, "the patched tree does not build:\n" + (build.stdout + build.stderr)[-4000:]
    proc, scores = grade(COPY, chosen)
    assert sorted(scores, key=exercise_key) == chosen, report(proc)
    short = {ex: "%d/%d" % sp for ex, sp in scores.items() if sp[0] != sp[1]}
    assert short == {}, report(proc)
