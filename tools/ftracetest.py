#!/usr/bin/python3
"""tools/ftracetest.py: runs Linux 6.1's own ftracetest inside this kernel (`make ftracetest`).

    ftracetest.py [--smp 2] [--mem 1G] [--timeout S] [--doc docs/FTRACETEST.md] [CASE_OR_DIR...]
    ftracetest.py --linux          # Linux 6.1's list, once, into tests/data/linux-6.1/ftracetest.txt

tools/testing/selftests/ftrace is taken at run time from Debian's linux-source-6.1 tarball
(/usr/src/linux-source-6.1.tar.xz, tools/deps.sh installs it) into build/ftracetest/ftrace, never
into the repository. It is packed with busybox into an initramfs as /ftrace, the test kernel boots
it, and busybox's sh runs `./ftracetest` unmodified, its logs in /tmp (a tmpfs). The per-case
results and the summary are parsed from the console, saved in build/ftracetest/results.txt, and
written with Linux's list beside them into docs/FTRACETEST.md (only for a full run).

--linux boots Debian's Linux 6.1 in the same QEMU through linux-peer's run.sh (LINUX_PEER=its path)
with the same busybox and the same copy of ftracetest, and keeps its result lines.
"""

import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

TARBALL = "/usr/src/linux-source-6.1.tar.xz"
MEMBER = "linux-source-6.1/tools/testing/selftests/ftrace"
WORK = os.path.join(ROOT, "build", "ftracetest")
SRC = os.path.join(WORK, "ftrace")
LINUX_LIST = os.path.join(ROOT, "tests", "data", "linux-6.1", "ftracetest.txt")
PEER = os.environ.get("LINUX_PEER")  # linux-peer's run.sh, for --linux
# The options both kernels get (none: logs go to /ftrace/logs/, in the writable rootfs).
FTRACETEST_ARGS = ""
CASE_RE = re.compile(r"^\[(\d+)\](.*?)\t\[(PASS|FAIL|UNRESOLVED|UNTESTED|UNSUPPORTED|XFAIL|UNDEFINED)\]\s*$")
SUMMARY_RE = re.compile(r"^# of ([a-z() ]+):\s+(\d+)")
RESULTS = ["PASS", "FAIL", "UNRESOLVED", "UNTESTED", "UNSUPPORTED", "XFAIL"]


def extract():
    """build/ftracetest/ftrace from the tarball, once (xz over the whole tarball takes a while)."""
    if os.path.exists(os.path.join(SRC, "ftracetest")):
        return
    if not os.path.exists(TARBALL):
        sys.exit("ftracetest: %s missing: run tools/deps.sh (linux-source-6.1)" % TARBALL)
    os.makedirs(WORK, exist_ok=True)
    tmp = SRC + ".tmp"
    subprocess.run(["rm", "-rf", tmp], check=True)
    os.makedirs(tmp)
    subprocess.run(["tar", "-xJf", TARBALL, "-C", tmp, "--strip-components=5", MEMBER],
                   check=True)
    os.replace(tmp, SRC)


def failure_tails(text):
    """{case number: the last lines of its kept log} from the listing run_ours() adds."""
    out, cur = {}, None
    for line in text.replace("\r", "").split("\n"):
        m = re.match(r"^== (\d+)-\S+-log\.\w+$", line)
        if m:
            cur = int(m.group(1))
            out[cur] = []
        elif cur is not None and line and not line.startswith("root@"):
            out[cur].append(line)
    return out


def parse(text):
    """[(number, description, result)] and {summary name: count} from ftracetest's output."""
    cases, summary = [], {}
    # A kernel message may land inside a case's line, between its name and its result.
    text = re.sub(r"\[ *\d+\.\d{6}\] [^\n]*\n", "", text.replace("\r", ""))
    for line in text.split("\n"):
        m = CASE_RE.match(line)
        if m:
            cases.append((int(m.group(1)), m.group(2).strip(), m.group(3)))
            continue
        m = SUMMARY_RE.match(line)
        if m:
            summary[m.group(1).strip()] = int(m.group(2))
    return cases, summary


def build_iso():
    user = sorted(os.path.join(ROOT, "build", "user", p)
                  for p in os.listdir(os.path.join(ROOT, "build", "user")))
    cpio = os.path.join(WORK, "initramfs.cpio")
    iso = os.path.join(WORK, "ftracetest.iso")
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "mkinitramfs.py"), cpio,
                    "--busybox", "/bin/busybox", "--tests"] + user + ["--tree", SRC, "/ftrace"],
                   check=True)
    subprocess.run([os.path.join(ROOT, "tools", "mkiso.sh"),
                    os.path.join(ROOT, "build", "kernel.elf"), "test", iso, cpio], check=True)
    return iso


def command(cases):
    return " ".join(["cd /ftrace && ./ftracetest", FTRACETEST_ARGS] + list(cases)).replace("  ", " ").strip()


def run_ours(args):
    """Boots the test kernel with /ftrace and runs ftracetest under busybox's sh; the console text,
    also written to build/ftracetest/console.log as it comes (a long run can be watched, and what
    ran before a timeout or a crash is kept)."""
    import time
    from console import Console, PROMPT
    iso = build_iso()
    log = os.path.join(WORK, "console.log")
    con = Console(smp=args.smp, extra_args=["-m", args.mem], iso=iso, name="ftracetest")
    con.start()
    try:
        start = len(con.log_text())
        con.send("/bin/sh -c '%s'\r" % command(args.cases))
        deadline = time.time() + args.timeout
        while time.time() < deadline:
            time.sleep(5)
            text = con.log_text()
            with open(log, "w") as f:
                f.write(text)
            con.check()  # a panic or an Oops ends the run at once
            if re.search(PROMPT + r"$", text[start:]):
                # The logs ftracetest kept (a failed case's): the last commands say what failed.
                tails = con.run("/bin/sh -c 'cd /ftrace/logs/* && for f in *-log.*; do "
                                "echo \"== $f\"; tail -n 2 $f; done'", timeout=300)
                with open(log, "w") as f:
                    f.write(con.log_text())
                return text[start:] + "\n" + tails
        print("ftracetest: stopped after --timeout %d s" % args.timeout)
        return con.log_text()[start:]
    finally:
        con.close()


def run_linux():
    """Linux 6.1's own run of the same copy, its case lines and summary into tests/data."""
    if not PEER:
        sys.exit("ftracetest --linux: set LINUX_PEER to linux-peer's run.sh")
    script = os.path.join(WORK, "linux-peer.sh")
    with open(script, "w") as f:
        f.write(command([]) + "\n")
    cmd = [PEER, "-s", "2", "-m", "1G", "-t", "3600", "-a", SRC, script]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True).stdout
    cases, summary = parse(out)
    if not cases or "passed" not in summary:
        sys.exit("ftracetest --linux: no result lines from the peer:\n" + out[-3000:])
    os.makedirs(os.path.dirname(LINUX_LIST), exist_ok=True)
    kernel = re.search(r"=== linux-peer: (\S+)", out)
    with open(LINUX_LIST, "w") as f:
        f.write("# Linux %s's ftracetest in QEMU (TCG, 2 CPUs, 1G, busybox-static 1.35), its\n"
                "# result lines as printed. Captured by `tools/ftracetest.py --linux`, which runs\n"
                "# linux-peer's run.sh -s 2 -m 1G -t 3600 -a build/ftracetest/ftrace S\n"
                "# with S holding: %s\n" % (kernel.group(1) if kernel else "6.1", command([])))
        for line in out.replace("\r", "").split("\n"):
            if CASE_RE.match(line) or SUMMARY_RE.match(line):
                f.write(line + "\n")
    print("ftracetest --linux: %d cases, %s" % (len(cases), summary))


def save_results(cases, summary):
    with open(os.path.join(WORK, "results.txt"), "w") as f:
        for n, desc, res in cases:
            f.write("[%d] %s\t[%s]\n" % (n, desc, res))
        for k, v in summary.items():
            f.write("# of %s: %d\n" % (k, v))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--smp", type=int, default=2)
    ap.add_argument("--mem", default="1G")
    ap.add_argument("--timeout", type=float, default=7200)
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "FTRACETEST.md"))
    ap.add_argument("--linux", action="store_true", help="take Linux 6.1's list (linux-peer)")
    ap.add_argument("--from-log", help="no boot: the doc from a saved console log of a run")
    ap.add_argument("cases", nargs="*", help="test.d/... cases or directories (default: all)")
    args = ap.parse_args()
    extract()
    if args.linux:
        return run_linux()
    if args.from_log:
        out = open(args.from_log, errors="replace").read()
    else:
        try:
            out = run_ours(args)
        except Exception as e:  # a crash: what ran is still in the log
            print("ftracetest: the run stopped: %s" % str(e).split("\n")[0])
            out = open(os.path.join(WORK, "console.log"), errors="replace").read()
    cases, summary = parse(out)
    save_results(cases, summary)
    print("ftracetest: %d cases: %s" % (len(cases), ", ".join(
        "%s %d" % (r, sum(1 for c in cases if c[2] == r)) for r in RESULTS)))
    if not cases:
        sys.exit("ftracetest: no result lines; see build/ftracetest/console.log")
    if not args.cases:
        from ftracetest_doc import write_doc
        linux = parse(open(LINUX_LIST).read())
        complete = "passed" in summary
        write_doc(args.doc, cases, summary, linux, command([]), SRC, complete, failure_tails(out),
                  "it stopped after case %d of Linux's %d (the limit of `--timeout`)."
                  % (cases[-1][0], len(linux[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
