"""tests/integration/test_shell.py: the shell as a user sees it: every command and bad input (the line-editing keys
are test_line_editing.py's, on a kernel of their own, so that the two run side by side).

All tests share one QEMU (the module-scoped `console` fixture), so each test leaves the shell as it found it:
the cwd is put back by an autouse fixture, values written to files are restored in `finally`.
The output formats expected are collected in the SHELL SPEC block below.
"""

import os
import re

import pytest

from tests.console import FAKE_KERNEL, INITIAL_CWD, LOG_LINE, ROOT

SMP = 1

# ---------------------------------------------------------------------------------------------------------------
# SHELL SPEC: formats and messages these tests expect.
# ---------------------------------------------------------------------------------------------------------------

COMMANDS = ["help", "dmesg", "uptime", "meminfo", "cpus", "ksym", "dis", "selftest", "ls", "cat", "echo", "cd",
            "pwd", "poweroff", "reboot", "fault"]          # `fault` exists in test mode, which these tests run in
HELP_LINE = r"^  (?P<name>[a-z][a-z0-9_-]*)  +(?P<desc>\S.*)$"
NOT_FOUND = "{cmd}: command not found"
LINE_MAX = 255
LINE_TOO_LONG = "line too long: at most 255 characters"

KERNEL_LOG_LINE = LOG_LINE + r"(?P<msg>.*)$"          # "[    0.012345] message"
TIMESTAMP = r"^\[ *(?P<sec>\d+)\.(?P<usec>\d{6})\]"
BANNER_MSG = "ftrace-os version"

NO_SUCH_FILE = "{cmd}: {path}: No such file or directory"
IS_A_DIR = "cat: {path}: Is a directory"
REDIRECT_NO_SUCH_FILE = "{path}: No such file or directory"
REDIRECT_READ_ONLY = "{path}: Permission denied"
WRITE_ERROR_EINVAL = "echo: write error: Invalid argument"
ROOT_ENTRIES = ["proc/", "sys/"]
PROC_ENTRIES = ["cmdline", "meminfo", "uptime", "version", "sys/"]
PRINTK = "/proc/sys/kernel/printk"
PRINTK_LINE = r"^(\d+)\t(\d+)\t(\d+)\t(\d+)$"          # like Linux: "7\t4\t1\t7"

UPTIME_LINE = r"^ up (?P<secs>\d+(?:\.\d+)?)"         # seconds since boot
MEMINFO_LINE = r"^(?P<key>[A-Za-z][A-Za-z0-9_()]*): +(?P<kb>\d+) kB$"
QEMU_MEM_KB = 256 * 1024                                # -m 256M
CPUS_HEADER = r"^CPU +APIC +STATE +TICKS$"
CPUS_LINE = r"^ *(?P<cpu>\d+) +(?P<apic>\d+|0x[0-9a-f]+) +(?P<state>[a-z-]+) +(?P<ticks>\d+)$"

KADDR = r"ffffffff8[0-9a-f]{7}"                         # a kernel text address, 16 hex digits
KSYM_BY_NAME = r"^0x(?P<addr>" + KADDR + r") (?P<name>\w+)\+0x0/0x(?P<size>[0-9a-f]+)$"
KSYM_BY_ADDR = r"^(?P<name>\w+)\+0x(?P<off>[0-9a-f]+)/0x(?P<size>[0-9a-f]+)$"
KSYM_NO_SUCH = "ksym: {name}: no such symbol"
DIS_HEADER = r"^(?P<func>\w+) at 0x(?P<addr>" + KADDR + r"):$"
DIS_LINE = r"^(?P<addr>" + KADDR + r"):  (?P<bytes>[0-9a-f]{2}(?: [0-9a-f]{2})*)(?: {2,}(?P<insn>\S.*))?$"
DIS_NO_SUCH = "dis: {name}: no such function"
DIS_BAD_LENGTH = "dis: bad length"                      # the message starts with this
NOP5 = "0f 1f 44 00 00"
NOP5_TEXT = "nopl 0x0(%rax,%rax,1)"                     # compared with runs of spaces squeezed

UP, DOWN = b"\x1b[A", b"\x1b[B"
BACKSPACE_ECHO = "\b \b"

# ---------------------------------------------------------------------------------------------------------------


def lines(text):
    return text.split("\n") if text else []


def boot_log(console):
    """Kernel log lines printed before the first prompt (escape sequences and any boot-loader text dropped)."""
    found = []
    for line in lines(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", console.boot_text)):
        m = re.search(LOG_LINE[1:], line)
        if m:
            found.append(line[m.start():])
    return found


@pytest.fixture(autouse=True)
def back_to_initial_cwd(request):
    """Tests that cd somewhere leave the shell in INITIAL_CWD for the next one."""
    console = request.getfixturevalue("console") if "console" in request.fixturenames else None
    yield
    if console and not console.needs_restart() and console.cwd != INITIAL_CWD:
        console.run("cd " + INITIAL_CWD)


def assert_alive(console):
    """The shell still answers, in the directory it was in."""
    assert console.run("pwd") == console.cwd


# -- boot, help, unknown commands ------------------------------------------------------------------------------

def test_boot_log_format(console):
    """The banner is a timestamped log line and boot timestamps do not go backwards."""
    log = boot_log(console)
    assert log, "no kernel log lines before the first prompt"
    for line in log:
        assert re.match(KERNEL_LOG_LINE, line), "bad log line format: %r" % line
    banner = [l for l in log if BANNER_MSG in l]
    assert len(banner) == 1, "expected one banner line, got %r" % banner
    assert re.match(LOG_LINE + re.escape(BANNER_MSG) + r" \S", banner[0])
    stamps = [(int(m["sec"]), int(m["usec"])) for m in (re.match(TIMESTAMP, l) for l in log)]
    assert stamps == sorted(stamps), "boot log timestamps go backwards"


def test_help_lists_every_command(console):
    out = console.run("help")
    names = []
    for line in lines(out):
        m = re.match(HELP_LINE, line)
        assert m, "help line not `  NAME  description`: %r" % line
        names.append(m["name"])
    missing = [c for c in COMMANDS if c not in names]
    assert not missing, "help does not list %s" % missing
    assert len(names) == len(set(names)), "a command is listed twice: %s" % names


@pytest.mark.parametrize("line, cmd", [("foo", "foo"), ("foo bar baz", "foo"), ("PWD", "PWD")])
def test_unknown_command(console, line, cmd):
    assert console.run(line) == NOT_FOUND.format(cmd=cmd)


def test_empty_line_gives_a_new_prompt(console):
    assert console.run("") == ""


# -- ls, cat, cd, pwd ------------------------------------------------------------------------------------------

def test_ls_root(console):
    entries = lines(console.run("ls /"))
    for e in ROOT_ENTRIES:
        assert e in entries, "`ls /` lacks %s: %s" % (e, entries)


def test_ls_proc(console):
    entries = lines(console.run("ls /proc"))
    for e in PROC_ENTRIES:
        assert e in entries, "`ls /proc` lacks %s: %s" % (e, entries)
    assert all(" " not in e for e in entries), "one entry per line expected: %s" % entries


def test_ls_proc_sys_kernel_has_printk(console):
    assert os.path.basename(PRINTK) in lines(console.run("ls " + os.path.dirname(PRINTK)))


def test_ls_without_argument_lists_cwd(console):
    assert console.run("ls") == console.run("ls " + INITIAL_CWD)


def test_ls_missing_directory(console):
    out = console.run("ls /nosuch")
    assert "No such file or directory" in out


def test_every_proc_file_can_be_read(console):
    """What `ls` shows without a slash is a file that `cat` can read."""
    files = [e for e in lines(console.run("ls /proc")) if not e.endswith("/")]
    for f in files:
        with console.disable_check("banner"):           # /proc/version contains the banner text
            out = console.run("cat /proc/" + f)
        assert "No such file" not in out and "Is a directory" not in out, "cat /proc/%s: %s" % (f, out)
        assert out, "/proc/%s is empty" % f


def test_cat_proc_version(console):
    with console.disable_check("banner"):
        out = console.run("cat /proc/version")
    assert BANNER_MSG in out


def test_cat_proc_cmdline_has_test(console):
    out = console.run("cat /proc/cmdline")
    assert "test" in out.split(), "kernel command line %r lacks the word `test`" % out


def test_cat_proc_meminfo_agrees_with_meminfo(console):
    def total(text):
        return [l for l in lines(text) if l.startswith("MemTotal:")]
    assert total(console.run("cat /proc/meminfo")) == total(console.run("meminfo")) != []


def test_cat_missing_file(console):
    assert console.run("cat /proc/nosuch") == NO_SUCH_FILE.format(cmd="cat", path="/proc/nosuch")


def test_cat_directory(console):
    assert console.run("cat /proc") == IS_A_DIR.format(path="/proc")


def test_pwd_initial(console):
    assert console.cwd == INITIAL_CWD
    assert console.run("pwd") == INITIAL_CWD


def test_cd_changes_prompt_and_pwd(console):
    console.run("cd /proc")
    assert console.cwd == "/proc"
    assert console.run("pwd") == "/proc"
    console.run("cd /")
    assert console.cwd == "/"
    assert console.run("pwd") == "/"


def test_cd_relative_paths(console):
    console.run("cd /proc")
    with console.disable_check("banner"):
        assert BANNER_MSG in console.run("cat version")
    assert "cmdline" in lines(console.run("ls"))
    console.run("cd sys")
    assert console.run("pwd") == "/proc/sys"
    console.run("cd ..")
    assert console.run("pwd") == "/proc"


def test_cd_missing_directory_keeps_cwd(console):
    assert console.run("cd /nosuch") == NO_SUCH_FILE.format(cmd="cd", path="/nosuch")
    assert console.cwd == INITIAL_CWD
    assert console.run("pwd") == INITIAL_CWD


def test_cd_into_a_file_fails(console):
    out = console.run("cd /proc/version")
    assert out.startswith("cd: /proc/version: "), out
    assert console.run("pwd") == INITIAL_CWD


# -- echo and redirection --------------------------------------------------------------------------------------

@pytest.mark.parametrize("line, expected", [
    ("echo hello", "hello"),
    ("echo hello   world", "hello world"),
    ("echo \"a  b\" 'c  d' e", "a  b c  d e"),
    ("echo \"it's\"", "it's"),
    ("echo", ""),
])
def test_echo(console, line, expected):
    assert console.run(line) == expected


def test_echo_n_prints_no_newline(console):
    """With -n the next prompt follows the text on the same line (as in bash)."""
    text = console.run_keys(b"echo -n hi\r")
    assert text == "echo -n hi\nhi", repr(text)


def read_printk(console):
    out = console.run("cat " + PRINTK)
    m = re.match(PRINTK_LINE, out)
    assert m, "%s: expected 4 tab-separated numbers, got %r" % (PRINTK, out)
    return [int(x) for x in m.groups()]


def test_printk_format(console):
    level = read_printk(console)
    assert 0 <= level[0] <= 7


@pytest.mark.parametrize("op", [">", ">>"])
def test_printk_write_sets_console_loglevel(console, op):
    before = read_printk(console)
    new = 3 if before[0] != 3 else 5
    try:
        assert console.run("echo %d %s %s" % (new, op, PRINTK)) == ""
        assert read_printk(console) == [new] + before[1:]
    finally:
        console.run("echo %d > %s" % (before[0], PRINTK))
    assert read_printk(console) == before


@pytest.mark.parametrize("value", ["abc", "99", "8", "-1", "''"])
def test_printk_bad_write_changes_nothing(console, value):
    before = read_printk(console)
    assert console.run("echo %s > %s" % (value, PRINTK)) == WRITE_ERROR_EINVAL
    assert read_printk(console) == before


def test_redirect_to_missing_file(console):
    assert console.run("echo hi > /proc/nosuch") == REDIRECT_NO_SUCH_FILE.format(path="/proc/nosuch")
    assert console.run("echo hi > /nodir/file") == REDIRECT_NO_SUCH_FILE.format(path="/nodir/file")


def test_redirect_to_read_only_file(console):
    with console.disable_check("banner"):
        before = console.run("cat /proc/version")
        assert console.run("echo hi > /proc/version") == REDIRECT_READ_ONLY.format(path="/proc/version")
        assert console.run("cat /proc/version") == before


# -- dmesg, uptime, meminfo, cpus ------------------------------------------------------------------------------

def test_dmesg(console):
    with console.disable_check("banner"):                # dmesg replays the banner line
        out = lines(console.run("dmesg"))
    assert out, "dmesg printed nothing"
    for line in out:
        assert re.match(KERNEL_LOG_LINE, line), "bad dmesg line: %r" % line
    assert BANNER_MSG in out[0], "the first dmesg line is not the banner: %r" % out[0]
    boot_banner = [l for l in boot_log(console) if BANNER_MSG in l]
    assert boot_banner and out[0] == boot_banner[0], "dmesg's banner differs from the one printed at boot"


def uptime(console):
    out = console.run("uptime")
    m = re.match(UPTIME_LINE, out)
    assert m and len(lines(out)) == 1, "uptime: %r" % out
    return float(m["secs"])


def test_uptime_does_not_go_backwards(console):
    first = uptime(console)
    console.run("ls /proc")
    assert uptime(console) >= first


def test_meminfo(console):
    values = {}
    for line in lines(console.run("meminfo")):
        m = re.match(MEMINFO_LINE, line)
        assert m, "meminfo line not `Name:   N kB`: %r" % line
        values[m["key"]] = int(m["kb"])
    assert "MemTotal" in values and "MemFree" in values, values
    assert QEMU_MEM_KB // 2 < values["MemTotal"] <= QEMU_MEM_KB, "MemTotal %d kB with -m 256M" % values["MemTotal"]
    assert values["MemFree"] <= values["MemTotal"]
    assert len(values) > 2, "no heap lines in meminfo"


def parse_cpus(out):
    rows = lines(out)
    assert rows and re.match(CPUS_HEADER, rows[0]), "cpus header: %r" % rows[:1]
    cpus = []
    for row in rows[1:]:
        m = re.match(CPUS_LINE, row)
        assert m, "cpus line: %r" % row
        cpus.append(m)
    return cpus


def test_cpus(console):
    cpus = parse_cpus(console.run("cpus"))
    assert [int(c["cpu"]) for c in cpus] == list(range(SMP))
    assert any(c["state"] == "online" for c in cpus)


@pytest.mark.smp(2)
def test_cpus_smp2(fresh_console):
    first = parse_cpus(fresh_console.run("cpus"))
    assert [int(c["cpu"]) for c in first] == [0, 1]
    assert first[0]["state"] == "online"
    assert len({c["apic"] for c in first}) == 2, "two CPUs with the same APIC id"
    second = parse_cpus(fresh_console.run("cpus"))
    for a, b in zip(first, second):
        assert int(b["ticks"]) >= int(a["ticks"]), "TICKS went backwards"


# -- ksym, dis -------------------------------------------------------------------------------------------------

def ksym(console, name):
    out = console.run("ksym " + name)
    m = re.match(KSYM_BY_NAME, out)
    assert m and m["name"] == name, "ksym %s: %r" % (name, out)
    return int(m["addr"], 16), int(m["size"], 16)


def test_ksym_round_trip(console):
    addr, size = ksym(console, "kmain")
    assert size > 4
    assert console.run("ksym 0x%x" % addr) == "kmain+0x0/0x%x" % size
    assert console.run("ksym 0x%x" % (addr + 4)) == "kmain+0x4/0x%x" % size
    assert console.run("ksym 0x%x" % (addr + size - 1)) == "kmain+0x%x/0x%x" % (size - 1, size)


def test_ksym_matches_kernel_sym(console):
    """ksym agrees with build/kernel.sym, which `make` writes with the kernel."""
    path = os.path.join(ROOT, "build", "kernel.sym")
    table = {}
    for line in open(path):
        m = re.match(r"^([0-9a-f]{16})\s+(?:\w\s+)?(\S+)$", line.strip())
        if m:
            table.setdefault(m.group(2), int(m.group(1), 16))
    assert ksym(console, "kmain")[0] == table["kmain"]


def test_ksym_unknown_name(console):
    assert console.run("ksym nosuch_fn") == KSYM_NO_SUCH.format(name="nosuch_fn")


@pytest.mark.parametrize("arg", ["0x1234", "zzz", "0x", "0xzz", "0xffffffffffffffff", "0x1ffffffffffffffff"])
def test_ksym_bad_address(console, arg):
    out = console.run("ksym " + arg)
    assert len(lines(out)) == 1 and out.startswith("ksym: "), out
    assert_alive(console)


def parse_dis(console, cmd):
    rows = lines(console.run(cmd))
    assert rows, "%s printed nothing" % cmd
    head = re.match(DIS_HEADER, rows[0])
    assert head, "dis header: %r" % rows[0]
    insns = []
    for row in rows[1:]:
        m = re.match(DIS_LINE, row)
        assert m, "dis line: %r" % row
        insns.append((int(m["addr"], 16), [int(b, 16) for b in m["bytes"].split()], m["insn"]))
    assert insns, "%s shows no bytes" % cmd
    return head, insns


def test_dis_format(console):
    addr, size = ksym(console, "kmain")
    head, insns = parse_dis(console, "dis kmain")
    assert head["func"] == "kmain" and int(head["addr"], 16) == addr
    assert insns[0][0] == addr, "the first line is not at the function's address"
    for (a, code, _), (b, _, _) in zip(insns, insns[1:]):
        assert b == a + len(code), "line at %x does not follow the %d bytes at %x" % (b, len(code), a)
    assert insns[0][2], "the first instruction is not decoded"


def check_first_instruction(console, addr, code, text):
    """The instructions ftrace writes at a call site (the 5-byte NOP, int3, call/jmp rel32) are decoded, alone on
    their line, and the text says what the bytes are (a call/jmp names its real target)."""
    hexes = " ".join("%02x" % b for b in code)
    if not (hexes.startswith(NOP5) or code[0] in (0xcc, 0xe8, 0xe9)):
        return                                           # not an ftrace instruction: may stay raw hex
    assert text, "first instruction %s not decoded" % hexes
    text = " ".join(text.split())
    if hexes.startswith(NOP5):
        assert hexes == NOP5, "the NOP is not alone on its line: %s" % hexes
        assert text == NOP5_TEXT
    elif code[0] == 0xcc:
        assert text == "int3"
    elif code[0] in (0xe8, 0xe9):
        assert len(code) == 5
        m = re.match(r"^(call|jmp) ([0-9a-f]{16}) <([\w.]+)(?:\+0x[0-9a-f]+)?>$", text)
        assert m, "call/jmp text: %r" % text
        assert m.group(1) == ("call" if code[0] == 0xe8 else "jmp")
        target = (addr + 5 + int.from_bytes(bytes(code[1:5]), "little", signed=True)) & (2 ** 64 - 1)
        assert int(m.group(2), 16) == target, "%s: wrong target %s, bytes say %x" % (hexes, m.group(2), target)
        assert console.run("ksym 0x%x" % target).startswith(m.group(3) + "+"), "symbol of the target"


def functions_to_disassemble():
    """kmain, plus a sample of global functions from build/kernel.sym when there is one."""
    names = ["kmain"]
    path = os.path.join(ROOT, "build", "kernel.sym")
    if os.path.exists(path) and not FAKE_KERNEL:
        funcs = [m.group(1) for m in (re.match(r"^" + KADDR + r" T (\w+)$", l.strip()) for l in open(path)) if m]
        funcs = [f for f in funcs if not f.startswith("_")]
        names += funcs[::max(1, len(funcs) // 6)][:6]
    return names


@pytest.mark.parametrize("func", functions_to_disassemble())
def test_dis_first_instruction_decoded(console, func):
    head, insns = parse_dis(console, "dis " + func)
    assert head["func"] == func
    check_first_instruction(console, *insns[0])


@pytest.mark.parametrize("n", [5, 16, 32, 64])
def test_dis_length(console, n):
    _, insns = parse_dis(console, "dis kmain %d" % n)
    assert sum(len(code) for _, code, _ in insns) == n


def test_dis_bytes_are_stable(console):
    def raw(n):
        return [b for _, code, _ in parse_dis(console, "dis kmain %d" % n)[1] for b in code]
    assert raw(32)[:16] == raw(16)


def test_dis_unknown_function(console):
    assert console.run("dis nosuch") == DIS_NO_SUCH.format(name="nosuch")


@pytest.mark.parametrize("n", ["abc", "12x", "-5", "0"])
def test_dis_bad_length(console, n):
    assert console.run("dis kmain " + n).startswith(DIS_BAD_LENGTH)


@pytest.mark.parametrize("line", ["ksym", "dis", "fault bogus", "fault", "echo \"unterminated", "echo >",
                                  "cat /proc/version/x", "ls /proc/version/x"])
def test_bad_input_does_not_kill_the_shell(console, line):
    console.run(line)
    assert_alive(console)
