"""Host fuzzing in `make test`: a short, fixed run of each tests/fuzz target, and a replay of its seeds and of
every input that once found a bug (tests/fuzz/regressions/<target>/).

    /usr/bin/python3 -m pytest -q tests/fuzz
    make fuzz FUZZ_TIME=60      the long runs (not part of make test)

A run is deterministic (-seed=1, a fixed number of executions), so a failure here reproduces: the failing input is
saved where the message says; `build/fuzz/fuzz-<target> FILE` replays it.
"""

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FUZZ = ROOT / "tests" / "fuzz"
OUT = ROOT / "build" / "fuzz"
# Executions per target: about two seconds each on a 2-core machine, under ASan and UBSan.
RUNS = {
    "glob": 80000,
    "kstrtox": 300000,
    "vsnprintf": 45000,
    "shell_split": 100000,
    "ftrace_filter": 7000,
    "event_filter": 35000,
    "kprobe_events": 25000,
    "hist": 20000,
    "bpf_verifier": 700,
    "btf": 20000,
}
_built = None


def _build():
    """None once every target is built, else what make said."""
    global _built
    if _built is None:
        r = subprocess.run(["make", "-s", "-j2", "-f", "tests/fuzz/Makefile"], cwd=ROOT, capture_output=True,
                           text=True, timeout=900)
        _built = f"build failed:\n{r.stdout}{r.stderr}" if r.returncode else ""
    if _built:
        pytest.fail(_built, pytrace=False)


def _run(target, args, timeout=120):
    cmd = [str(OUT / f"fuzz-{target}"), "-timeout=10"] + args
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, errors="replace", timeout=timeout)
    if r.returncode:
        tail = "\n".join(r.stderr.splitlines()[-40:])
        pytest.fail(f"{' '.join(cmd)}\nexit status {r.returncode}:\n{tail}", pytrace=False)
    return r.stderr


@pytest.mark.parametrize("target", RUNS)
def test_fuzz_replay(target):
    """Every seed and every regression input passes (each is run once)."""
    _build()
    files = sorted((FUZZ / "corpus" / target).iterdir()) + sorted((FUZZ / "regressions" / target).glob("*"))
    assert files, f"no seeds in tests/fuzz/corpus/{target}"
    out = _run(target, [str(f) for f in files])
    assert out.count("Executed ") == len(files), out


@pytest.mark.parametrize("target", RUNS)
def test_fuzz_short_run(target, tmp_path):
    """A short run from the seeds finds nothing; new inputs go to a temporary directory, never into the repo."""
    _build()
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    dictionary = FUZZ / f"{target}.dict"
    out = _run(target, ["-seed=1", f"-runs={RUNS[target]}", f"-dict={dictionary}",
                        f"-artifact_prefix={tmp_path}/", str(corpus), str(FUZZ / "corpus" / target)])
    assert f"Done {RUNS[target]} runs" in out, out[-2000:]
