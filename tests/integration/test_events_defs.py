"""tests/integration/test_events_defs.py: the events beyond sched, each as Linux defines it: its
format file (field names, types and order, and the print fmt) and a line in `cat trace` when the
kernel does what the event reports: irq (the serial port's IRQ 4), irq_vectors (timer tick, IPIs),
ipi, timer (msleep's timers), kmem (kmalloc, kfree, page frames) and our own workload event."""

import re

import pytest

SMP = 4
LINE = (r"^(?P<comm>[ -~]{16})-(?P<pid>\d+) *(?<= )\[(?P<cpu>\d{3})\] "
        r"(?P<flags>[d.][N.][hzZ.][0-9a-f.][.]) +(?P<ts>\d+\.\d{6}): (?P<rest>.*)$")
PTR = r"[0-9a-f]{16}"          # Linux's %p: a hashed id, or with hash-ptr off the address (%px)
SYM = r"[A-Za-z_][\w.]*"
SYM_OFF = SYM + r"\+0x[0-9a-f]+/0x[0-9a-f]+"
DIRECT_MAP = 0xffff888000000000

# Every event's own fields after the common ones, as `type name` in Linux's order.
FIELDS = {
    "irq/irq_handler_entry": ["int irq", "__data_loc char[] name"],
    "irq/irq_handler_exit": ["int irq", "int ret"],
    "ipi/ipi_raise": ["unsigned long target_cpus", "const char * reason"],
    "ipi/ipi_entry": ["const char * reason"],
    "ipi/ipi_exit": ["const char * reason"],
    "timer/hrtimer_start": ["void * hrtimer", "void * function", "s64 expires", "s64 softexpires",
                            "enum hrtimer_mode mode", "bool was_armed"],
    "timer/hrtimer_expire_entry": ["void * hrtimer", "s64 now", "void * function"],
    "timer/hrtimer_expire_exit": ["void * hrtimer"],
    "timer/hrtimer_cancel": ["void * hrtimer"],
    "kmem/kmalloc": ["unsigned long call_site", "const void * ptr", "size_t bytes_req",
                     "size_t bytes_alloc", "unsigned long gfp_flags", "int node"],
    "kmem/kfree": ["unsigned long call_site", "const void * ptr"],
    "kmem/mm_page_alloc": ["unsigned long pfn", "unsigned int order", "unsigned long gfp_flags",
                           "int migratetype"],
    "kmem/mm_page_free": ["unsigned long pfn", "unsigned int order"],
    "workload/workload_iteration": ["__data_loc char[] name", "int cpu", "u64 iteration"],
}
for _v in ("local_timer", "reschedule", "call_function", "call_function_single", "irq_work"):
    for _end in ("entry", "exit"):
        FIELDS["irq_vectors/%s_%s" % (_v, _end)] = ["int vector"]

# How each print fmt begins: Linux's format string, then its first argument.
PRINT_FMT = {
    "irq/irq_handler_entry": '"irq=%d name=%s", REC->irq, __get_str(name)',
    "irq/irq_handler_exit": '"irq=%d ret=%s", REC->irq, REC->ret ? "handled" : "unhandled"',
    "ipi/ipi_raise": '"target_mask=%02lx (%s)", REC->target_cpus, REC->reason',
    "ipi/ipi_entry": '"(%s)", REC->reason',
    "timer/hrtimer_start": '"hrtimer=%p function=%ps expires=%llu softexpires=%llu mode=%s was_armed=%d", '
                           'REC->hrtimer, REC->function, ',
    "timer/hrtimer_expire_entry": '"hrtimer=%p function=%ps now=%llu", REC->hrtimer, REC->function, ',
    "timer/hrtimer_cancel": '"hrtimer=%p", REC->hrtimer',
    "kmem/kmalloc": '"call_site=%pS ptr=%p bytes_req=%zu bytes_alloc=%zu gfp_flags=%s node=%d '
                    'accounted=%s", (void *)REC->call_site, REC->ptr, ',
    "kmem/kfree": '"call_site=%pS ptr=%p", (void *)REC->call_site, REC->ptr',
    "kmem/mm_page_alloc": '"page=%p pfn=0x%lx order=%d migratetype=%d gfp_flags=%s", ',
    "kmem/mm_page_free": '"page=%p pfn=0x%lx order=%d", ',
    "irq_vectors/local_timer_entry": '"vector=%d", REC->vector',
    "workload/workload_iteration": '"name=%s cpu=%d iteration=%llu", __get_str(name), REC->cpu, ',
}

TIMER_VECTOR, CALL_FUNCTION_VECTOR, RESCHEDULE_VECTOR, CALL_FUNCTION_SINGLE_VECTOR = 32, 241, 242, 243


def lines_of(console, text=None):
    """Every event line of `cat trace` (or of `text`, its output), parsed into its context columns and `rest`."""
    out = (console.run("cat trace", timeout=60) if text is None else text).splitlines()
    parsed = []
    for line in out:
        if line.startswith("#"):
            continue
        m = re.match(LINE, line)
        assert m, "bad trace line: %r" % line
        parsed.append(m.groupdict())
    return parsed


def matching(lines, regex):
    """(line, match) for each line whose `rest` matches regex in full."""
    found = [(l, re.fullmatch(regex, l["rest"])) for l in lines]
    return [(l, m) for l, m in found if m]


def start(console, cmd):
    """Starts `run ...`; returns the pids."""
    pids = []
    for line in console.run(cmd).splitlines():
        m = re.match(r"^\[(\d+)\] (\w+) on CPU (\d+)$", line)
        assert m, line
        pids.append(m.group(1))
    return pids


def wait_gone(console, pids, timeout=60):
    console.poll("ps", lambda out: not set(re.findall(r"^\s*(\d+)\s", out, re.M)) & set(pids), timeout=timeout)


def wait_traced(console, rx, timeout=60):
    """Until the buffer holds a line matching `rx` (the event has happened at least once)."""
    console.poll("cat trace", lambda out: re.search(rx, out, re.M), timeout=timeout)


def test_every_event_listed_and_off_at_boot(console):
    avail = console.run("cat available_events").splitlines()
    for path in FIELDS:
        assert path.replace("/", ":") in avail
    assert console.run("cat set_event") == ""


@pytest.mark.parametrize("path", sorted(FIELDS))
def test_format_fields_and_print_fmt(console, path):
    text = console.run("cat events/%s/format" % path)
    lines = text.split("\n")
    name = path.split("/")[1]
    assert lines[0] == "name: " + name
    assert re.fullmatch(r"ID: \d+", lines[1]) and lines[2] == "format:"
    own = [l for l in lines[3:] if l.startswith("\tfield:") and " common_" not in l]
    got = [re.match(r"^\tfield:(.*);\toffset:\d+;\tsize:\d+;\tsigned:[01];$", l).group(1) for l in own]
    assert got == FIELDS[path]
    fmt = [l for l in lines if l.startswith("print fmt: ")]
    assert len(fmt) == 1 and lines[-1] == fmt[0]
    want = PRINT_FMT.get(path)
    if want:
        assert fmt[0][len("print fmt: "):].startswith(want), fmt[0]
    # Offsets follow the fields' sizes and alignment, as Linux lays a record out.
    end = 8
    for l in own:
        off, size = map(int, re.search(r"offset:(\d+);\tsize:(\d+);", l).groups())
        align = min(size, 8) if size in (1, 2, 4, 8) else (4 if "__data_loc" in l else 1)
        assert off == (end + align - 1) // align * align, l
        end = off + size


def test_kmem_print_fmt_names_gfp_kernel(console):
    fmt = console.run("cat events/kmem/kmalloc/format").split("\n")[-1]
    assert '{ 0xcc0, "GFP_KERNEL" }' in fmt and fmt.endswith('"true" : "false"')
    mode = console.run("cat events/timer/hrtimer_start/format").split("\n")[-1]
    # Linux 6.1's text names the modes (test_format_files.py holds the whole file)
    assert '__print_symbolic(REC->mode, { HRTIMER_MODE_ABS, "ABS" }, { HRTIMER_MODE_REL, "REL" },' in mode


def test_irq_handler_events_for_the_serial_port(console):
    assert console.run("echo 1 > events/irq/enable") == ""
    console.run("echo typed through IRQ 4")      # typed bytes raise IRQ 4 (the FIFO batches some)
    console.run("echo 0 > events/irq/enable")
    lines = lines_of(console)
    entries = matching(lines, r"irq_handler_entry: irq=4 name=ttyS0")
    exits = matching(lines, r"irq_handler_exit: irq=4 ret=(handled|unhandled)")
    assert len(entries) >= 2 and exits
    assert any(m.group(1) == "handled" for _, m in exits)
    for l, _ in entries + exits:
        assert l["cpu"] == "000" and l["flags"][0] == "d" and l["flags"][2] == "h", l
    # Only these two events were on.
    assert all(re.match(r"irq_handler_(entry|exit): ", l["rest"]) for l in lines)


def test_irq_vectors_timer_and_ipis(console):
    assert console.run("echo 1 > events/irq_vectors/enable") == ""
    pids = start(console, "run compute 1-3")
    out = console.run("selftest smp_call_function_reaches_each_cpu", timeout=60)
    assert "ok 1 smp_call_function_reaches_each_cpu" in out
    for cpu in range(SMP):                      # a tick on every CPU
        wait_traced(console, r"\[%03d\] .* local_timer_entry: " % cpu)
    console.run("kill %s" % " ".join(pids))
    wait_gone(console, pids)
    console.run("echo 0 > events/irq_vectors/enable")
    lines = lines_of(console)
    seen = {}
    for l, m in matching(lines, r"(\w+)_(entry|exit): vector=(\d+)"):
        assert l["flags"][0] == "d" and l["flags"][2] == "h", l
        seen.setdefault(m.group(1), set()).add((m.group(2), int(m.group(3)), l["cpu"]))
    vectors = {"local_timer": TIMER_VECTOR, "reschedule": RESCHEDULE_VECTOR,
               "call_function": CALL_FUNCTION_VECTOR,
               "call_function_single": CALL_FUNCTION_SINGLE_VECTOR}
    assert set(seen) == set(vectors)
    for name, vector in vectors.items():
        assert {v for _, v, _ in seen[name]} == {vector}, name
        assert {e for e, _, _ in seen[name]} == {"entry", "exit"}, name
    assert {c for _, _, c in seen["local_timer"]} == {"000", "001", "002", "003"}
    assert {c for _, _, c in seen["call_function"]} >= {"001", "002", "003"}
    assert "000" not in {c for _, _, c in seen["call_function"]}   # the shell's CPU calls


def test_ipi_raise_entry_exit(console):
    assert console.run("echo 1 > events/ipi/enable") == ""
    pids = start(console, "run compute 1-3")
    out = console.run("selftest smp_call_function_reaches_each_cpu", timeout=60)
    assert "ok 1 smp_call_function_reaches_each_cpu" in out
    console.run("kill %s" % " ".join(pids))
    wait_gone(console, pids)
    console.run("echo 0 > events/ipi/enable")
    lines = lines_of(console)
    raised = matching(lines, r"ipi_raise: target_mask=([0-9a-f]{2}) \(([\w -]+)\)")
    kinds = {}
    for l, m in raised:
        assert not int(m.group(1), 16) & (1 << int(l["cpu"])), l   # never to itself
        if l["cpu"] == "000":
            kinds.setdefault(m.group(2), set()).add(int(m.group(1), 16))
    # The shell (CPU 0) wakes tasks on CPUs 1-3 (run, kill): one CPU each.
    assert kinds["Rescheduling interrupts"] <= {2, 4, 8} and kinds["Rescheduling interrupts"]
    assert 0x0e in kinds["Function call interrupts"]            # CPU 0 calls CPUs 1-3
    assert kinds["Single function call interrupts"]
    handled = matching(lines, r"ipi_(entry|exit): \(([\w -]+)\)")
    assert {(m.group(1), m.group(2)) for _, m in handled} >= {
        ("entry", "Rescheduling interrupts"), ("exit", "Rescheduling interrupts"),
        ("entry", "Function call interrupts"), ("exit", "Function call interrupts"),
        ("entry", "Single function call interrupts")}
    assert all(l["flags"][2] == "h" for l, _ in handled)


def test_hrtimer_events_follow_msleep(console):
    assert console.run("echo 1 > events/timer/enable") == ""
    pids = start(console, "run compute 1-3")
    # A sleep's timer has fired and been handled on each of the three CPUs (one CPU's first is not enough: on a
    # loaded host another CPU's compute may not have slept yet).
    console.poll("cat trace", lambda out: {l["cpu"] for l in lines_of(console, out)
                                           if l["rest"].startswith("hrtimer_expire_exit: ")} >= {"001", "002", "003"},
                 timeout=60)
    console.run("kill %s" % " ".join(pids))    # most likely asleep: their timers are cancelled
    wait_gone(console, pids)
    console.run("echo 0 > events/timer/enable")
    lines = lines_of(console)
    started = matching(lines, r"hrtimer_start: hrtimer=(%s) function=msleep_wakeup expires=(\d+) "
                              r"softexpires=(\d+) mode=ABS was_armed=0" % PTR)
    fired = matching(lines, r"hrtimer_expire_entry: hrtimer=(%s) function=msleep_wakeup now=(\d+)" % PTR)
    done = matching(lines, r"hrtimer_expire_exit: hrtimer=(%s)" % PTR)
    cancelled = matching(lines, r"hrtimer_cancel: hrtimer=(%s)" % PTR)
    assert started and fired and done and cancelled
    assert all(m.group(2) == m.group(3) for _, m in started)
    # Each expiry is of the timer its CPU last started, at or after its expiry time, and is
    # followed by its exit on the same CPU.
    last = {}
    for l in lines:
        s = re.fullmatch(started[0][1].re, l["rest"])
        f = re.fullmatch(fired[0][1].re, l["rest"])
        if s:
            last[l["cpu"]] = (s.group(1), int(s.group(2)))
            assert l["comm"].strip() == "compute"
        elif f and l["cpu"] in last:
            timer, expires = last.pop(l["cpu"])
            assert f.group(1) == timer and int(f.group(2)) >= expires, l
    assert {l["cpu"] for l, _ in fired} == {"001", "002", "003"}
    timers = {m.group(1) for _, m in started}
    assert {m.group(1) for _, m in cancelled} <= timers
    assert all(l["comm"].strip() == "sh" and l["cpu"] == "000" for l, _ in cancelled)


def task_reaped(lines):
    """Some kzalloc'd object of CPU 0 freed by CPU 1 in hard irq context: a task, reaped by a tick."""
    allocs = matching(lines, r"kmalloc: call_site=(%s) ptr=(%s) bytes_req=(\d+) bytes_alloc=(\d+) "
                             r"gfp_flags=GFP_KERNEL node=-1 accounted=false" % (SYM_OFF, PTR))
    zeroed = {m.group(2) for l, m in allocs if m.group(1).startswith("kzalloc+") and l["cpu"] == "000"}
    reaped = {m.group(2) for l, m in matching(lines, r"kfree: call_site=(%s) ptr=(%s)" % (SYM_OFF, PTR))
              if l["cpu"] == "001" and l["flags"][2] == "h"}
    return bool(zeroed & reaped)


def test_kmem_events_for_a_task_and_its_stack(console):
    assert console.run("echo 0 > options/hash-ptr") == ""     # the addresses themselves, to check them
    assert console.run("echo 1 > events/kmem/enable") == ""
    pids = start(console, "run compute 1 1")
    wait_gone(console, pids)
    # The task (kthread_create's kzalloc, on CPU 0) goes back when a later tick of CPU 1 reaps it.
    console.poll("cat trace", lambda out: task_reaped(lines_of(console, out)), timeout=60)
    console.run("echo 0 > events/kmem/enable")
    lines = lines_of(console)
    allocs = matching(lines, r"kmalloc: call_site=(%s) ptr=(%s) bytes_req=(\d+) bytes_alloc=(\d+) "
                             r"gfp_flags=GFP_KERNEL node=-1 accounted=false" % (SYM_OFF, PTR))
    assert allocs, [l["rest"] for l in lines[:10]]
    for _, m in allocs:
        assert int(m.group(3)) <= int(m.group(4)), m.group(0)
    assert task_reaped(lines)
    pages = matching(lines, r"mm_page_alloc: page=(%s) pfn=0x([0-9a-f]+) order=(\d+) migratetype=0 "
                            r"gfp_flags=GFP_KERNEL" % PTR)
    for _, m in pages:
        assert int(m.group(1), 16) == DIRECT_MAP + (int(m.group(2), 16) << 12)
    stack = [m for _, m in pages if m.group(3) == "2"]   # TASK_STACK_PAGES = 4: order 2
    assert stack
    freed = matching(lines, r"mm_page_free: page=(%s) pfn=0x([0-9a-f]+) order=(\d+)" % PTR)
    assert (stack[0].group(2), "2") in {(m.group(2), m.group(3)) for _, m in freed}
    for _, m in freed:
        assert int(m.group(1), 16) == DIRECT_MAP + (int(m.group(2), 16) << 12)


def test_hash_ptr_hides_addresses_per_array(console):
    """hash-ptr (on at boot, as in Linux): an event's %p prints a hashed id, the same for the same address; an
    instance with it off prints the same events' addresses, in Linux's %px form."""
    assert console.run("cat options/hash-ptr") == "1"
    console.run("mkdir instances/hp")
    try:
        assert console.run("echo 0 > instances/hp/options/hash-ptr") == ""
        for where in ("", "instances/hp/"):
            assert console.run(f"echo 1 > {where}events/kmem/mm_page_alloc/enable") == ""
        wait_gone(console, start(console, "run compute 1 1"))
        for where in ("", "instances/hp/"):
            console.run(f"echo 0 > {where}events/kmem/mm_page_alloc/enable")
        rx = r"mm_page_alloc: page=(%s) pfn=0x([0-9a-f]+) order=(\d+) .*" % PTR
        hashed = {(m.group(2), m.group(1)) for _, m in matching(lines_of(console), rx)}
        shown = {(m.group(2), m.group(1))
                 for _, m in matching(lines_of(console, console.run("cat instances/hp/trace", timeout=60)), rx)}
    finally:
        console.run("rmdir instances/hp")
    assert hashed and {pfn for pfn, _ in hashed} == {pfn for pfn, _ in shown}
    assert all(int(page, 16) == DIRECT_MAP + (int(pfn, 16) << 12) for pfn, page in shown)
    ids = dict(hashed)
    assert len(ids) == len(hashed)                           # one id per address
    assert all(int(page, 16) < 1 << 32 for page in ids.values())   # Linux keeps 32 bits of the hash
    assert not set(ids.values()) & {page for _, page in shown}


def test_workload_iteration_counts_each_round(console):
    assert console.run("echo 1 > events/workload/enable") == ""
    pids = start(console, "run spin 2 1")
    wait_gone(console, pids)
    console.run("echo 0 > events/workload/enable")
    rounds = matching(lines_of(console), r"workload_iteration: name=spin cpu=2 iteration=(\d+)")
    assert len(rounds) > 10
    assert all(l["cpu"] == "002" and l["pid"] == pids[0] for l, _ in rounds)
    counts = [int(m.group(1)) for _, m in rounds]
    assert counts == list(range(counts[0], counts[0] + len(counts)))   # none lost, in order
    # Outside spin's checked window: its calls and func_hits still agree.
    stats = [l.split() for l in console.run("cat /proc/workloads").splitlines()
             if l.split()[:1] == [pids[0]]]
    assert stats and stats[0][5] == "0" and int(stats[0][3]) == counts[-1]
