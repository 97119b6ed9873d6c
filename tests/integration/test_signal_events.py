"""tests/integration/test_signal_events.py: signal:signal_generate and signal:signal_deliver (docs/19-signals-and-shell.md,
"The signal events") as a program's own signals make them: `/tests/signals trace` (tests/user/signals.c) sends itself
one signal of each fate (delivered, already pending, ignored) by kill and tgkill, with handlers, and the records say
which signal, its siginfo's errno and code, the target's comm and pid, process- or thread-directed, the result, and at
delivery the handler and flags the program set. Their format files are Linux's byte for byte
(test_format_files.py)."""

import re

SMP = 2
RECORD = re.compile(r"^ *(?P<comm>\S+)-(?P<pid>\d+) +\[\d{3}\] \S+ +\d+\.\d{6}: "
                    r"(?P<event>signal_generate|signal_deliver): (?P<rest>.*)$")
SA_SIGINFO, SA_RESTORER, SA_RESTART = 0x4, 0x04000000, 0x10000000
SI_USER, SI_TKILL, CLD_EXITED = 0, -6, 1
SIGUSR1, SIGUSR2, SIGCHLD = 10, 12, 17
DELIVERED, IGNORED, ALREADY_PENDING = 0, 1, 2


def run_traced(console):
    console.run("echo > trace")
    assert console.run("echo 1 > events/signal/enable") == ""
    out = console.run("/tests/signals trace", timeout=60)
    console.run("echo 0 > events/signal/enable")
    m = re.search(r"^pid=(\d+) handler=([0-9a-f]+)$", out, re.M)
    assert m, out
    records = [r.groupdict() for r in map(RECORD.match, console.run("cat trace").split("\n")) if r]
    return int(m.group(1)), m.group(2), records


def test_generate_and_deliver_say_what_became_of_each_signal(console):
    pid, handler, records = run_traced(console)
    own = [(r["event"], r["rest"]) for r in records if int(r["pid"]) == pid]
    assert all(r["comm"] == "signals" for r in records if int(r["pid"]) == pid)

    def gen(sig, code, grp, res):
        return ("signal_generate", "sig=%d errno=0 code=%d comm=signals pid=%d grp=%d res=%d"
                % (sig, code, pid, grp, res))

    def deliver(sig, code, flags):
        return ("signal_deliver", "sig=%d errno=0 code=%d sa_handler=%s sa_flags=%x"
                % (sig, code, handler, flags | SA_RESTORER | SA_SIGINFO))

    want = [gen(SIGUSR1, SI_USER, 1, DELIVERED), deliver(SIGUSR1, SI_USER, SA_RESTART),
            gen(SIGUSR2, SI_TKILL, 0, DELIVERED), gen(SIGUSR2, SI_TKILL, 0, ALREADY_PENDING),
            deliver(SIGUSR2, SI_TKILL, 0), gen(SIGUSR1, SI_USER, 1, IGNORED)]
    assert own[:len(want)] == want, own
    # Its end tells the parent: SIGCHLD, CLD_EXITED, sent to the process by the exiting task.
    chld = [rest for event, rest in own[len(want):] if event == "signal_generate"]
    assert any(re.fullmatch(r"sig=%d errno=0 code=%d comm=\S+ pid=\d+ grp=1 res=\d" % (SIGCHLD, CLD_EXITED), r)
               for r in chld), own


def test_filter_on_a_signal_field(console):
    """The fields filter as any event's: only SIGUSR2's records stay."""
    assert console.run("echo 'sig == %d' > events/signal/filter" % SIGUSR2) == ""
    try:
        pid, _, records = run_traced(console)
    finally:
        console.run("echo 0 > events/signal/filter")
    assert records and all(" sig=%d " % SIGUSR2 in " " + r["rest"] for r in records)
    assert [r["event"] for r in records] == ["signal_generate", "signal_generate", "signal_deliver"]
