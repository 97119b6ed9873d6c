"""tools/ftracetest_doc.py: writes docs/FTRACETEST.md from our ftracetest run and Linux 6.1's list.

Each case not passing here is given the reason the test itself states: the files of its
`# requires:` line and the command that failed, sorted into the area they belong to (AREAS) with
the issue that owns it, so the document says where to look, never a guess. Cases are matched by their printed description.
"""

import os
import re
import shlex

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The area a required file or a failing command belongs to, by the first match, with its issue.
WAITING_ON = [
    (r"^instances", "instances/ (issue 26)"),
    (r"^options/|^trace_options|create options/", "options/ (issue 26)"),
    (r"^README|:README$|-f README", "the README feature strings (issues 25 to 27)"),
    (r"^trace_clock", "trace_clock (issue 26)"),
    (r"^snapshot|^tracing_max_latency|irqsoff|preemptoff|wakeup|hwlat|osnoise|timerlat",
     "the snapshot buffer and latency tracers (issue 24)"),
    (r"hist|synthetic_events|enable_event|disable_event",
     "hist triggers, synthetic events, enable_event (issue 25)"),
    (r"printk|trace_marker_raw", "trace_printk (issue 26)"),
]


def issue_for(req):
    for rx, why in WAITING_ON:
        if re.search(rx, req):
            return why
    return None


def case_files(src):
    """{description: relative .tc path} from the copy of test.d ftracetest ran."""
    out = {}
    top = os.path.join(src, "test.d")
    for d, _, files in os.walk(top):
        for name in files:
            if not name.endswith(".tc"):
                continue
            path = os.path.join(d, name)
            with open(path, errors="replace") as f:
                for line in f:
                    m = re.match(r"^#[ \t]*description:(.*)", line)
                    if m:
                        out[m.group(1).strip()] = os.path.relpath(path, top)
                        break
    return out


def requires_of(src, rel):
    with open(os.path.join(src, "test.d", rel), errors="replace") as f:
        for line in f:
            m = re.match(r"^#[ \t]*requires:(.*)", line)
            if m:  # ftracetest evals it: shell words, quotes and all
                try:
                    return shlex.split(m.group(1))
                except ValueError:
                    return m.group(1).split()
    return []


def table(cases, linux, src, tails, tally):
    files = case_files(src)
    lin = {desc: res for _, desc, res in linux}
    rows = ["| # | case (test.d/...) | ours | Linux 6.1 | what ours lacks |",
            "|---|---|---|---|---|"]
    for n, desc, res in cases:
        key = desc.replace("(instance)", "").strip()
        rel = files.get(key, "?")
        why = ""
        if res != "PASS" and rel != "?":
            reqs = requires_of(src, rel)
            waits = sorted({issue_for(r) for r in reqs if issue_for(r)})
            if desc.startswith("(instance)"):
                waits = sorted(set(waits) | {issue_for("instances")})
            for t in tails.get(n, []):  # what the failing command itself touched
                if issue_for(t):
                    waits = sorted(set(waits) | {issue_for(t)})
            if lin.get(desc) == res:
                waits = waits or ["the same result as Linux 6.1 here (modules, ping, checkbashisms)"]
            for w in waits or ["elsewhere: the log line says what"]:
                tally[w] = tally.get(w, 0) + 1
            why = "; ".join(waits) or ("requires: " + " ".join(reqs) if reqs else "")
            if n in tails and tails[n]:
                last = " / ".join(t.strip() for t in tails[n][-2:]).replace("|", "\\|")
                why = (why + "; " if why else "") + "failed at: `%s`" % last.replace("`", "'")
        rows.append("| %d | %s `%s` | %s | %s | %s |" % (n, desc, rel, res, lin.get(desc, "-"), why))
    return "\n".join(rows)


def counts(cases):
    return {r: sum(1 for c in cases if c[2] == r)
            for r in ["PASS", "FAIL", "UNRESOLVED", "UNTESTED", "UNSUPPORTED", "XFAIL"]}


def write_doc(path, cases, summary, linux, command, src, complete, tails, notes):
    ours, theirs = counts(cases), counts(linux[0])
    lines = [
        "# Linux's ftracetest on ftrace-os",
        "",
        "Written by `make ftracetest` (`tools/ftracetest.py`); do not edit by hand. Linux 6.1's own",
        "`tools/testing/selftests/ftrace`, taken from Debian's `linux-source-6.1` at run time, runs",
        "unmodified under busybox's `sh` inside this kernel (test ISO, QEMU TCG, 2 CPUs, 1 GB):",
        "",
        "    " + command,
        "",
        "Its logs go to `/ftrace/logs/` in the writable rootfs, its scratch directories to `/tmp`",
        "(a tmpfs), both made with `mktemp`. Linux's list (`tests/data/linux-6.1/ftracetest.txt`) was",
        "taken the same way from Debian's Linux 6.1 with the same busybox (`tools/ftracetest.py",
        "--linux`). How the run works and what it needed from the kernel: docs/17-user-space.md,",
        "section 8.",
        "",
        "## Summary",
        "",
        "| result | ftrace-os | Linux 6.1 |",
        "|---|---|---|",
    ]
    for r in ours:
        lines.append("| %s | %d | %d |" % (r, ours[r], theirs[r]))
    lines.append("| cases | %d | %d |" % (len(cases), len(linux[0])))
    lines += ["", "ftracetest's own summary lines here: " +
              (", ".join("%s %d" % kv for kv in summary.items()) if summary else
               "none (the run did not reach them)"), ""]
    if not complete:
        lines += ["**This run is partial**: " + notes, ""]
    tally = {}
    per_case = table(cases, linux[0], src, tails, tally)
    lines += ["## Cases not passing here, by the area they test", "",
              "| area (the issue that owns it) | cases |", "|---|---|"]
    lines += ["| %s | %d |" % (w, n) for w, n in sorted(tally.items(), key=lambda kv: -kv[1])]
    lines += ["", "## Per case", "",
              "The last column: for a case not passing here, the areas (and issues) of what its",
              "`# requires:` line names, and for a FAIL the last two lines of the log ftracetest kept",
              "(its `set -x` trace: the command that failed).", "",
              per_case, ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))
