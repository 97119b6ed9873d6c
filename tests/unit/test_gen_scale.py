"""tests/unit/test_gen_scale.py: tools/gen-scale.py writes what `make SCALE=N` compiles: N functions, 1000 a
file, each body different (or gcc could fold them into one and the kernel would have fewer sites), and a
table that lists every one of them once, in order."""

import os
import re
import subprocess

from tests.console import ROOT

GEN = os.path.join(ROOT, "tools", "gen-scale.py")


def test_functions_files_and_table(tmp_path):
    subprocess.run(["/usr/bin/python3", GEN, "2500", str(tmp_path)], check=True)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["scale_000.c", "scale_001.c", "scale_002.c", "scale_table.c"]
    bodies, names = [], []
    for name in files[:-1]:
        text = (tmp_path / name).read_text()
        names += re.findall(r"^__attribute__\(\(noinline\)\) int (scale_fn_\d{5})\(int x\)$", text, re.M)
        bodies += re.findall(r"^\treturn (.*);$", text, re.M)
    assert names == ["scale_fn_%05d" % i for i in range(2500)]
    assert len(set(bodies)) == 2500
    table = (tmp_path / "scale_table.c").read_text()
    assert re.findall(r"^\t(scale_fn_\d{5}),$", table, re.M) == names
    assert "const unsigned long scale_nr_fns = 2500;" in table


def test_unchanged_files_are_left_alone(tmp_path):
    subprocess.run(["/usr/bin/python3", GEN, "1200", str(tmp_path)], check=True)
    before = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
    os.utime(tmp_path / "scale_000.c", ns=(1, 1))
    subprocess.run(["/usr/bin/python3", GEN, "1200", str(tmp_path)], check=True)
    assert (tmp_path / "scale_000.c").stat().st_mtime_ns == 1     # same text: not rewritten
    assert set(before) == {p.name for p in tmp_path.iterdir()}


def test_bad_n_is_refused(tmp_path):
    for arg in ("0", "-5", "many"):
        r = subprocess.run(["/usr/bin/python3", GEN, arg, str(tmp_path)], capture_output=True, text=True)
        assert r.returncode != 0 and "usage" in r.stderr, arg
    assert not any(tmp_path.iterdir())
