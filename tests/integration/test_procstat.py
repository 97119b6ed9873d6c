"""tests/integration/test_procstat.py: /proc/<pid>/stat as Linux 6.1 prints it (docs/17-user-space.md, section 17).

tests/user/procstat.c checks the 52 fields against what the program knows of itself and counters that must grow
as it works; busybox ps reads the same files: its columns must agree with the program's own view.
"""

import re

from tests.console import LOG_LINE

SMP = 2


def program_lines(text):
    return [line for line in text.split("\n") if not re.match(LOG_LINE, line)]


def test_procstat_program(console):
    out = program_lines(console.run("/tests/procstat", timeout=120))
    failures = [line for line in out if line.startswith("not ok")]
    assert not failures, "\n".join(out)
    m = re.match(r"^PASS (\d+)/(\d+)$", out[-1])
    assert m and m.group(1) == m.group(2) and int(m.group(2)) >= 45, out


def test_busybox_ps_reads_stat(console):
    """ps lists itself from /proc's readdir with the ids, state and sizes its stat line gives."""
    out = program_lines(console.run("/bin/ps -o pid,ppid,pgid,sid,stat,vsz,rss,nice,comm", timeout=60))
    assert re.match(r"^\s*PID\s+PPID\s+PGID\s+SID\s+STAT\s+VSZ\s+RSS\s+NI\s+COMMAND$", out[0]), out
    rows = [line.split() for line in out[1:]]
    ps = [r for r in rows if r[-1] == "ps"]
    assert len(ps) == 1, out
    pid, ppid, pgid, sid, stat, vsz, rss, ni, _ = ps[0]
    assert pgid == sid == pid              # the kernel shell makes it the leader of its own session
    assert stat.startswith("R")
    assert re.match(r"^[1-9]\d*[mg]?$", vsz) and re.match(r"^[1-9]\d*[mg]?$", rss) and ni == "0"
    # every process listed has its own stat file, and ps read each one
    assert all(len(r) == 9 for r in rows), out
