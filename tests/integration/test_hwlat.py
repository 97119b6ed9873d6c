"""tests/integration/test_hwlat.py: the hwlat tracer on 2 CPUs: hwlat_detector/'s files and their refusals, the
threads of each mode and tracing_cpumask, tracing_thresh's default of 10 us while it runs, and a sample made on
purpose: `nmihold 1 US` sends CPU 1 an NMI that holds it US microseconds, which no interrupts-off section keeps out,
so hwlat must report a gap of at least US with the NMI counted (Linux's nmi-total and nmi-count).  Under TCG the
other samples are the host taking QEMU's thread away: how many and how long is the host's business, so nothing is
asserted about them but their format and that each passed the threshold."""

import re

SMP = 2
EINVAL = "echo: write error: Invalid argument"
EOVERFLOW = "echo: write error: Value too large for defined data type"
HOLD_US = 2000
LINE = re.compile(r"^ *(\S+)-(\d+) +\[(\d{3})\] \S{5} +\d+\.\d{6}: (#(\d+) +inner/outer\(us\): +(\d+)/(\d+) +"
                  r"ts:(\d+)\.(\d{9}) count:(\d+)(?: nmi-total:(\d+) nmi-count:(\d+))?)$")


def samples(console):
    """Every hwlat line of the trace as a dict, each checked against Linux's exact format."""
    out = []
    for line in console.run("cat trace", timeout=60).splitlines():
        m = LINE.match(line)
        if not m:
            continue
        s = dict(task=m.group(1), cpu=int(m.group(3)), seq=int(m.group(5)), inner=int(m.group(6)),
                 outer=int(m.group(7)), sec=int(m.group(8)), nsec=int(m.group(9)), count=int(m.group(10)),
                 nmi_total=int(m.group(11) or 0), nmi_count=int(m.group(12) or 0))
        text = "#%-5u inner/outer(us): %4u/%-5u ts:%d.%09d count:%d" % (
            s["seq"], s["inner"], s["outer"], s["sec"], s["nsec"], s["count"])
        if s["nmi_count"]:
            text += " nmi-total:%d nmi-count:%d" % (s["nmi_total"], s["nmi_count"])
        assert m.group(4) == text, line
        out.append(s)
    return out


def threads(console):
    """(name, cpu) of every hwlat thread in ps."""
    return sorted((m.group(2), int(m.group(1)))
                  for m in re.finditer(r"^ +\d+ +(\d+) \S +\d+ (hwlatd\S*)$", console.run("ps"), re.M))


def verify_sites(console):
    out = console.run("cat verify_sites", timeout=60)
    assert re.search(r"^ftrace sites: \d+ checked, \d+ calling ftrace: ok$", out, re.M), out


def test_files_and_defaults(console):
    assert "hwlat" in console.run("cat available_tracers").split()
    assert console.run("ls hwlat_detector").split() == ["mode", "width", "window"]
    assert console.run("cat hwlat_detector/width hwlat_detector/window").split() == ["500000", "1000000"]
    assert console.run("cat hwlat_detector/mode") == "none [round-robin] per-cpu"
    assert console.run("cat tracing_cpumask") == "3"


def test_bad_input_changes_nothing(console):
    """Linux's trace_min_max_param: width may not pass window, nor window fall under width (EINVAL)."""
    for cmd in ("echo 1000001 > hwlat_detector/width", "echo 499999 > hwlat_detector/window",
                "echo x > hwlat_detector/width", "echo -1 > hwlat_detector/window",
                "echo per_cpu > hwlat_detector/mode", "echo zz > tracing_cpumask", "echo 0x1 > tracing_cpumask"):
        assert console.run(cmd) == EINVAL, cmd
    assert console.run("echo 4 > tracing_cpumask") == EOVERFLOW     # CPU 2 does not exist on 2 CPUs
    test_files_and_defaults(console)
    # Each bound follows the other's current value.
    assert console.run("echo 2000000 > hwlat_detector/window") == ""
    assert console.run("echo 2000000 > hwlat_detector/width") == ""
    assert console.run("echo 1999999 > hwlat_detector/window") == EINVAL
    assert console.run("cat hwlat_detector/width hwlat_detector/window").split() == ["2000000", "2000000"]


def test_threshold_is_10us_while_it_runs(console):
    """As Linux: tracing_thresh 0 means 10 us for hwlat, and is put back when it stops; a threshold of the
    user's own is kept."""
    assert console.run("cat tracing_thresh") == "0"
    assert console.run("echo hwlat > current_tracer") == ""
    assert console.run("cat tracing_thresh") == "10"
    assert console.run("echo nop > current_tracer") == ""
    assert console.run("cat tracing_thresh") == "0"
    assert console.run("echo 25 > tracing_thresh") == ""
    assert console.run("echo hwlat > current_tracer") == ""
    assert console.run("cat tracing_thresh") == "25"
    assert console.run("echo nop > current_tracer") == ""
    assert console.run("cat tracing_thresh") == "25"


def test_threads_follow_mode_and_cpumask(console):
    assert console.run("echo 10000 > hwlat_detector/width") == ""
    assert console.run("echo 100000 > hwlat_detector/window") == ""
    assert console.run("echo hwlat > current_tracer") == ""
    assert threads(console) == [("hwlatd", 0), ("hwlatd", 1)]          # round-robin: they take turns
    assert console.run("echo per-cpu > hwlat_detector/mode") == ""
    assert console.run("cat hwlat_detector/mode") == "none round-robin [per-cpu]"
    assert threads(console) == [("hwlatd/0", 0), ("hwlatd/1", 1)]
    assert console.run("echo none > hwlat_detector/mode") == ""
    assert threads(console) == [("hwlatd", 0)]
    assert console.run("echo nop > current_tracer") == ""
    assert threads(console) == []
    assert console.run("echo > tracing_cpumask") == ""                 # Linux's bitmap_parse(): no CPU at all
    assert console.run("cat tracing_cpumask") == "0"
    assert console.run("echo 2 > tracing_cpumask") == ""
    assert console.run("cat tracing_cpumask") == "2"
    assert console.run("echo per-cpu > hwlat_detector/mode") == ""
    assert console.run("echo hwlat > current_tracer") == ""
    assert threads(console) == [("hwlatd/1", 1)]
    assert console.run("echo nop > current_tracer") == ""
    assert threads(console) == []


def test_an_nmi_is_a_hardware_latency(console):
    """CPU 1 samples all the time (width = window); NMIs that hold it HOLD_US each come until one lands in a
    sample.  That sample's gap is at least HOLD_US, its NMIs took at least HOLD_US each, and
    tracing_max_latency is at least the worst gap shown."""
    for cmd in ("echo 2 > tracing_cpumask", "echo per-cpu > hwlat_detector/mode",
                "echo 100000 > hwlat_detector/width", "echo 100000 > hwlat_detector/window",
                "echo hwlat > current_tracer"):
        assert console.run(cmd) == "", cmd

    def held():
        assert console.run("nmihold 1 %d" % HOLD_US) == ""
        return [s for s in samples(console) if s["nmi_count"]]

    for _ in range(30):
        if held():
            break
    console.run("echo 0 > tracing_on")
    got = samples(console)
    nmi = [s for s in got if s["nmi_count"]]
    assert nmi, got
    assert [s["seq"] for s in got] == list(range(1, len(got) + 1))
    for s in got:
        assert (s["task"], s["cpu"]) == ("hwlatd/1", 1), s
        assert max(s["inner"], s["outer"]) > 10 and s["count"] >= 1, s
    for s in nmi:
        assert s["nmi_total"] >= HOLD_US * s["nmi_count"], s
    assert max(max(s["inner"], s["outer"]) for s in nmi) >= HOLD_US, nmi
    assert int(console.run("cat tracing_max_latency")) >= max(max(s["inner"], s["outer"]) for s in got)
    # The raw option: Linux's trace_hwlat_raw() after the pid, CPU and nanoseconds.
    assert console.run("echo 1 > options/raw") == ""
    raw = [l for l in console.run("cat trace", timeout=60).splitlines() if not l.startswith("#")]
    console.run("echo 0 > options/raw")
    assert [l.split()[3:] for l in raw] == [
        [str(s["inner"]), str(s["outer"]), str(s["sec"]), "%09d" % s["nsec"], str(s["seq"])] for s in got], raw
    verify_sites(console)


def test_hwlat_in_an_instance(console):
    """Linux 6.1's allow_instances: hwlat on an instance samples the CPUs of the instance's tracing_cpumask and
    writes its samples and tracing_max_latency there, the top level's untouched; one hwlat in all arrays
    (EBUSY, nothing changed)."""
    top_before = console.run("cat tracing_max_latency")
    assert console.run("mkdir instances/hw") == ""
    try:
        assert "hwlat" in console.run("cat instances/hw/available_tracers").split()
        for cmd in ("echo 2 > instances/hw/tracing_cpumask", "echo per-cpu > hwlat_detector/mode",
                    "echo 100000 > hwlat_detector/width", "echo 100000 > hwlat_detector/window",
                    "echo hwlat > instances/hw/current_tracer"):
            assert console.run(cmd) == "", cmd
        assert console.run("echo hwlat > current_tracer") == "echo: write error: Device or resource busy"
        assert console.run("cat current_tracer") == "nop"
        assert threads(console) == [("hwlatd/1", 1)]
        for _ in range(30):
            assert console.run("nmihold 1 %d" % HOLD_US) == ""
            if "inner/outer" in console.run("cat instances/hw/trace", timeout=60):
                break
        console.run("echo 0 > instances/hw/tracing_on")
        lines = console.run("cat instances/hw/trace", timeout=60).splitlines()
        got = [LINE.match(l) for l in lines if LINE.match(l)]
        assert got, lines
        assert all(m.group(1) == "hwlatd/1" and int(m.group(3)) == 1 for m in got), lines
        worst = max(max(int(m.group(6)), int(m.group(7))) for m in got)
        assert int(console.run("cat instances/hw/tracing_max_latency")) >= worst
        assert console.run("cat tracing_max_latency") == top_before
        assert "inner/outer" not in console.run("cat trace", timeout=60)
        assert console.run("echo nop > instances/hw/current_tracer") == ""
        assert threads(console) == []
    finally:
        console.run("echo nop > instances/hw/current_tracer")
        console.run("rmdir instances/hw")
