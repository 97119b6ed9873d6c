#!/usr/bin/python3
"""tools/bench-scale.py: `make bench-scale`. What grows with the number of call sites and of CPUs.

For each N (the default kernel, then `make SCALE=N` builds) and each CPU count P, boots under
-icount shift=0 (one TSC tick per guest instruction), types `bench sites`, and writes the rows,
one table per measurement with N down and P across, into docs/BENCHMARKS-scale.md.

    tools/bench-scale.py [--sizes 0,10000,40000] [--smp 1,2,4,8] [--out docs/BENCHMARKS-scale.md]
"""

import argparse
import datetime
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from tests.console import Console  # noqa: E402  (the same console the tests drive)

ICOUNT = ["-icount", "shift=0,sleep=off"]
ROWS = ["boot conversion (text_poke_early, verified)",
        "enable every site, breakpoint", "disable every site, breakpoint",
        "enable every site, stop_machine", "disable every site, stop_machine",
        "filter glob '*' (hash of every function)",
        "read available_filter_functions (no console)"]


def build_dir(n):
    return os.path.join(ROOT, "build" if n == 0 else "build-scale%d" % n)


def build(n):
    """make SCALE=n all (the default build for 0); returns the ISO."""
    args = ["make", "--no-print-directory", "all"] + (["SCALE=%d" % n] if n else [])
    subprocess.run(args, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return os.path.join(build_dir(n), "ftrace-os.iso")


def measure(iso, smp):
    """{row: (sites, ticks, ticks/site, syncs, stops)} and the memory line of one boot."""
    con = Console(smp=smp, extra_args=ICOUNT, iso=iso, name="bench-scale-smp%d" % smp, )
    try:
        con.start()
        out = con.run("bench sites", timeout=1800)
    finally:
        con.close()
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0] in ROWS:
            rows[cells[0]] = tuple(int(c) for c in cells[2:])
    memory = next((l for l in out.splitlines() if l.startswith("memory:")), "")
    return rows, memory


def table(results, sizes, cpus, row, col, unit):
    """One measurement: N down, P across, column `col` of `row` (0 sites, 1 ticks, 2 per site...)."""
    text = "\n### %s: %s\n\n| sites \\\\ CPUs | %s |\n|---:|%s\n" % (
        row, unit, " | ".join(str(p) for p in cpus), "---:|" * len(cpus))
    for n in sizes:
        sites = next((results[n, p][0][row][0] for p in cpus if row in results[n, p][0]), "?")
        cells = [str(results[n, p][0][row][col]) if row in results[n, p][0] else "-" for p in cpus]
        text += "| %s | %s |\n" % (sites, " | ".join(cells))
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="0,10000,40000")
    ap.add_argument("--smp", default="1,2,4,8")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "BENCHMARKS-scale.md"))
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    cpus = [int(p) for p in args.smp.split(",")]
    results = {}
    for n in sizes:
        iso = build(n)
        for p in cpus:
            results[n, p] = measure(iso, p)
            print("N=%d P=%d: %s" % (n, p, results[n, p][0]), flush=True)
    text = HEADER.format(date=datetime.date.today().isoformat(), sizes=args.sizes, smp=args.smp)
    text += table(results, sizes, cpus, ROWS[0], 2, "guest instructions per site")
    for row in ROWS[1:5]:
        text += table(results, sizes, cpus, row, 2, "guest instructions per site")
        text += table(results, sizes, cpus, row, 3 if "breakpoint" in row else 4,
                      "CPU-wide syncs (IPI rounds)" if "breakpoint" in row else "stop_machine rendezvous")
    for row in ROWS[5:]:
        text += table(results, sizes, cpus, row, 2, "guest instructions per function")
    text += "\n" + "\n".join(sorted({results[k][1] for k in results})) + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    print("wrote " + os.path.relpath(args.out, ROOT))


HEADER = """# Benchmarks at scale

Written by `make bench-scale` ({date}); do not edit by hand: run it again.

How: `tools/bench-scale.py` builds the default kernel and `make SCALE=N` kernels (N generated traceable
functions, tools/gen-scale.py) for N in {sizes} (0: the default kernel), boots each under TCG with
`-icount shift=0,sleep=off` on {smp} CPUs, and types `bench sites` (kernel/bench/bench_scale.c). Ticks are
guest instructions. "syncs" counts `sync_core_all()` calls (each an IPI round to every other CPU), "stops"
the `stop_machine()` rendezvous, per operation. Every row is one run: under icount the counts repeat.
Benchmarks are read, never asserted.
"""

if __name__ == "__main__":
    main()
