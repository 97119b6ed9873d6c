#!/usr/bin/python3
"""tests/fake_kernel.py: a Python imitation of ftrace-os's serial shell, for working on the test harness without QEMU.

Run the tests against it with `FTRACE_OS_FAKE_KERNEL=1 /usr/bin/python3 -m pytest tests/integration`.  It reads
raw bytes on stdin and writes what the kernel would write on COM1, and exits with the status QEMU would have
(0 for poweroff/reboot, 3 after a panic).  It is written from the SPEC in the test files, independently of the
kernel, and it is never collected by pytest.  FAKE_BUGS=name,... makes it misbehave on purpose (see BUGS below)
so one can check that the tests notice.
"""

import fnmatch
import os
import sys
import time

BUGS = set(filter(None, os.environ.get("FAKE_BUGS", "").split(",")))
# known: printk_accepts_99, no_backspace_echo, help_missing_dis, ls_no_slash, dis_bad_addr, no_exit_on_panic,
#        reboot_banner, history_off_by_one, ktap_fail

T0 = time.monotonic()
LOG = []
SMP = int(sys.argv[sys.argv.index("-smp") + 1]) if "-smp" in sys.argv else 1
VERSION = "ftrace-os version 0.1-fake (python fake kernel) #1 SMP"
printk_level = [7, 4, 1, 7]


def out(text):
    os.write(1, text.encode("latin-1"))


def now():
    return time.monotonic() - T0


def printk(msg):
    t = now()
    line = "[%5d.%06d] %s" % (int(t), int(t * 1e6) % 1000000, msg)
    LOG.append(line)
    out(line + "\r\n")


SYMBOLS = {  # name -> (address, size)
    "kmain": (0xffffffff80100000, 0x200),
    "shell_run": (0xffffffff80100200, 0x180),
    "shell_exec": (0xffffffff80100380, 0x120),
    "cmd_fault": (0xffffffff801004a0, 0x90),
    "fault_pf": (0xffffffff80100530, 0x20),
    "__fentry__": (0xffffffff80100550, 0x10),
}


def code_at(addr, n):
    """Fake text bytes: shell_run starts with the 5-byte NOP, kmain with a call to __fentry__."""
    out_bytes = []
    for a in range(addr, addr + n):
        name, off = lookup(a)
        if off is not None and off < 5 and name == "shell_run":
            out_bytes.append([0x0f, 0x1f, 0x44, 0x00, 0x00][off])
        elif off is not None and off < 5 and name == "kmain":
            rel = (SYMBOLS["__fentry__"][0] - (SYMBOLS["kmain"][0] + 5)) & 0xffffffff
            out_bytes.append(([0xe8] + list(rel.to_bytes(4, "little")))[off])
        else:
            out_bytes.append((a * 7) & 0xff)
    return out_bytes


def lookup(addr):
    for name, (start, size) in SYMBOLS.items():
        if start <= addr < start + size:
            return name, addr - start
    return None, None


# ---- a tiny file system -------------------------------------------------------------------------------------

class File:
    def __init__(self, read, write=None):
        self.read, self.write = read, write


def write_printk(data):
    try:
        value = int(data.split()[0])
    except (ValueError, IndexError):
        return "Invalid argument"
    if not 0 <= value <= 7 and "printk_accepts_99" not in BUGS:
        return "Invalid argument"
    printk_level[0] = value
    return None


current_tracer = ["nop"]


def write_tracer(data):
    if data.strip() not in ("nop", "function"):
        return "Invalid argument"
    current_tracer[0] = data.strip()


def meminfo_text():
    return ("MemTotal:         261632 kB\nMemFree:          250000 kB\n"
            "HeapTotal:          4096 kB\nHeapUsed:            120 kB\n")


FS = {
    "proc": {
        "cmdline": File(lambda: "BOOT_IMAGE=/boot/ftrace-os.elf test\n"),
        "meminfo": File(meminfo_text),
        "uptime": File(lambda: "%.2f 0.00\n" % now()),
        "version": File(lambda: VERSION + "\n"),
        "sys": {"kernel": {"printk": File(lambda: "\t".join(map(str, printk_level)) + "\n", write_printk)}},
    },
    "sys": {"kernel": {"tracing": {
        "current_tracer": File(lambda: current_tracer[0] + "\n", write_tracer),
        "available_tracers": File(lambda: "function nop\n"),
    }}},
}

cwd = "/sys/kernel/tracing"


def resolve(path):
    """Absolute, normalised form of `path` relative to the cwd."""
    parts = [] if path.startswith("/") else cwd.strip("/").split("/")
    for p in path.split("/"):
        if p in ("", "."):
            continue
        if p == "..":
            parts = parts[:-1]
        else:
            parts.append(p)
    return "/" + "/".join(p for p in parts if p)


def node(path):
    n = FS
    for p in resolve(path).strip("/").split("/"):
        if not p:
            continue
        if not isinstance(n, dict) or p not in n:
            return None
        n = n[p]
    return n


# ---- commands -------------------------------------------------------------------------------------------------

def cmd_help(args):
    for name, (fn, desc) in COMMANDS.items():
        if name == "dis" and "help_missing_dis" in BUGS:
            continue
        out("  %-8s  %s\r\n" % (name, desc))


def cmd_dmesg(args):
    for line in LOG:
        out(line + "\r\n")


def cmd_uptime(args):
    out(" up %.3f seconds\r\n" % now())


def cmd_meminfo(args):
    out(meminfo_text().replace("\n", "\r\n"))


def cmd_cpus(args):
    out("CPU  APIC  STATE    TICKS\r\n")
    for i in range(SMP):
        out("%3d  %4d  %-7s  %d\r\n" % (i, i, "online", int(now() * 100)))


def cmd_ksym(args):
    if not args:
        out("usage: ksym NAME|0xADDR\r\n")
        return
    arg = args[0]
    if arg.startswith("0x"):
        try:
            addr = int(arg, 16)
        except ValueError:
            out("ksym: %s: bad address\r\n" % arg)
            return
        name, off = lookup(addr)
        if name is None:
            out("ksym: %s: no symbol at this address\r\n" % arg)
        else:
            out("%s+0x%x/0x%x\r\n" % (name, off, SYMBOLS[name][1]))
    elif arg in SYMBOLS:
        out("0x%016x %s+0x0/0x%x\r\n" % (SYMBOLS[arg][0], arg, SYMBOLS[arg][1]))
    else:
        out("ksym: %s: no such symbol\r\n" % arg)


def cmd_dis(args):
    if not args:
        out("usage: dis FUNC [N]\r\n")
        return
    if args[0] not in SYMBOLS:
        out("dis: %s: no such function\r\n" % args[0])
        return
    n = 32
    if len(args) > 1:
        if not args[1].isdigit() or not 0 < int(args[1]) <= 4096:
            out("dis: bad length\r\n")
            return
        n = int(args[1])
    addr = SYMBOLS[args[0]][0]
    code = code_at(addr, n)
    out("%s at 0x%016x:\r\n" % (args[0], addr))
    if code[0] == 0x0f:
        size, text = 5, "nopl   0x0(%rax,%rax,1)"
    elif code[0] == 0xe8:
        rel = int.from_bytes(bytes(code[1:5]), "little", signed=True)
        target = addr + 5 + rel
        if "dis_bad_addr" in BUGS:
            target += 1
        size, text = 5, "call   %016x <%s>" % (target, lookup(target)[0])
    else:
        size, text = 1, "(bad)"
    size = min(size, n)
    out("%016x:  %s  %s\r\n" % (addr, " ".join("%02x" % b for b in code[:size]), text))
    for i in range(size, n, 8):
        chunk = code[i:min(i + 8, n)]
        out("%016x:  %s\r\n" % (addr + i, " ".join("%02x" % b for b in chunk)))


CASES = ["ftrace_nop_sites", "kallsyms_lookup", "glob_match", "ring_buffer_basic", "smp_ipi"]


def cmd_selftest(args):
    pattern = args[0] if args else "*"
    cases = [c for c in CASES if fnmatch.fnmatchcase(c, pattern)]
    out("KTAP version 1\r\n1..%d\r\n" % len(cases))
    for i, c in enumerate(cases, 1):
        if c == "smp_ipi" and SMP < 2:
            out("ok %d %s # SKIP needs 2 CPUs\r\n" % (i, c))
        elif c == "glob_match" and "ktap_fail" in BUGS:
            out("# glob_match: expected 1, got 0\r\nnot ok %d %s\r\n" % (i, c))
        else:
            out("ok %d %s\r\n" % (i, c))


def cmd_ls(args):
    path = args[0] if args else cwd
    n = node(path)
    if n is None:
        out("ls: cannot access '%s': No such file or directory\r\n" % path)
    elif not isinstance(n, dict):
        out(path + "\r\n")
    else:
        for name in sorted(n):
            slash = "/" if isinstance(n[name], dict) and "ls_no_slash" not in BUGS else ""
            out(name + slash + "\r\n")


def cmd_cat(args):
    for path in args:
        n = node(path)
        if n is None:
            out("cat: %s: No such file or directory\r\n" % path)
        elif isinstance(n, dict):
            out("cat: %s: Is a directory\r\n" % path)
        else:
            out(n.read().replace("\n", "\r\n"))


def cmd_echo(args, redirect=None):
    newline = True
    if args and args[0] == "-n":
        newline, args = False, args[1:]
    text = " ".join(args) + ("\n" if newline else "")
    if redirect is None:
        out(text.replace("\n", "\r\n"))
        return
    op, path = redirect
    n = node(path)
    if n is None or isinstance(n, dict):
        out("%s: %s\r\n" % (path, "No such file or directory" if n is None else "Is a directory"))
    elif n.write is None:
        out("%s: Permission denied\r\n" % path)
    else:
        err = n.write(text)
        if err:
            out("echo: write error: %s\r\n" % err)


def cmd_cd(args):
    global cwd
    path = args[0] if args else "/"
    n = node(path)
    if n is None:
        out("cd: %s: No such file or directory\r\n" % path)
    elif not isinstance(n, dict):
        out("cd: %s: Not a directory\r\n" % path)
    else:
        cwd = resolve(path)


def cmd_pwd(args):
    out(cwd + "\r\n")


def cmd_poweroff(args):
    printk("Power down.")
    sys.exit(0)


def cmd_reboot(args):
    printk("Restarting system.")
    if "reboot_banner" in BUGS:
        printk(VERSION)
    sys.exit(0)


def cmd_clear(args):
    out("\x1b[2J\x1b[H")


def cmd_fault(args):
    kind = args[0] if args else ""
    headers = {"pf": "#PF page fault, error code 0x2", "wx": "#PF page fault, error code 0x3",
               "gp": "#GP general protection fault",
               "ud": "#UD invalid opcode", "de": "#DE divide error"}
    if kind == "panic":
        out("Kernel panic - not syncing: fault panic requested\r\n")
    elif kind in headers:
        out("Oops: %s\r\n" % headers[kind])
        out("RIP: 0010:fault_%s+0x9/0x20\r\n" % kind)
        out("RSP: 0018:ffffffff80200f80 EFLAGS: 00010246\r\n")
        regs = ["RAX", "RBX", "RCX", "RDX", "RSI", "RDI", "RBP", "R8", "R9", "R10", "R11", "R12", "R13", "R14",
                "R15"]
        for i in range(0, len(regs), 3):
            out(" ".join("%s: %016x" % (r, 0) for r in regs[i:i + 3]) + "\r\n")
        out("CR2: 00000000deadbeef CR3: 0000000000101000\r\n")
        out("Call Trace:\r\n cmd_fault+0x45/0x90\r\n shell_exec+0x70/0x120\r\n shell_run+0x3a/0x180\r\n"
            " kmain+0x1c5/0x200\r\n")
        out("Kernel panic - not syncing: Fatal exception\r\n")
    else:
        out("usage: fault pf|wx|gp|ud|de|panic|sleep, or fault site FUNCTION\r\n")
        return
    if "no_exit_on_panic" in BUGS:
        while True:
            time.sleep(1)
    sys.exit(3)


COMMANDS = {
    "help": (cmd_help, "list commands"), "dmesg": (cmd_dmesg, "print the kernel log"),
    "uptime": (cmd_uptime, "time since boot"), "meminfo": (cmd_meminfo, "memory usage"),
    "cpus": (cmd_cpus, "list CPUs"), "ksym": (cmd_ksym, "look up a kernel symbol"),
    "dis": (cmd_dis, "disassemble a function"), "selftest": (cmd_selftest, "run self-tests (KTAP)"),
    "ls": (cmd_ls, "list a directory"), "cat": (cmd_cat, "print files"), "echo": (cmd_echo, "print or write text"),
    "cd": (cmd_cd, "change directory"), "pwd": (cmd_pwd, "print the directory"),
    "poweroff": (cmd_poweroff, "power the machine off"), "reboot": (cmd_reboot, "reboot"),
    "clear": (cmd_clear, "clear the screen"), "fault": (cmd_fault, "trigger an exception (test mode)"),
}


def split_words(line):
    """Words of `line`; quotes group; an unquoted > or >> is returned as the tuple ('>',) / ('>>',)."""
    words, word, quote, have = [], "", None, False
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == quote:
                quote = None
            else:
                word += c
        elif c in "'\"":
            quote, have = c, True
        elif c == " ":
            if have:
                words.append(word)
            word, have = "", False
        elif c == ">":
            if have:
                words.append(word)
            op = ">>" if line[i + 1:i + 2] == ">" else ">"
            i += len(op) - 1
            words.append((op,))
            word, have = "", False
        else:
            word += c
            have = True
        i += 1
    if have:
        words.append(word)
    return words


def execute(line):
    words = split_words(line)
    if not words:
        return
    redirect = None
    for i, w in enumerate(words):
        if isinstance(w, tuple):
            redirect = (w[0], words[i + 1] if i + 1 < len(words) else "")
            words = words[:i]
            break
    name = words[0]
    if name not in COMMANDS:
        out("%s: command not found\r\n" % name)
    elif name == "echo":
        cmd_echo(words[1:], redirect)
    else:
        COMMANDS[name][0](words[1:])


# ---- line editor ----------------------------------------------------------------------------------------------

def prompt():
    out("root@ftrace-os:%s# " % cwd)


def complete(buf):
    """Tab: complete the command name (first word) or the path being typed (later words)."""
    line = "".join(buf)
    if " " not in line:
        base = line
        shown = sorted(c for c in COMMANDS if c.startswith(base))
        cands = [c + " " for c in shown]
    else:
        word = line.rsplit(" ", 1)[1]
        d, base = word.rsplit("/", 1) if "/" in word else ("", word)
        n = node(d or ("/" if word.startswith("/") else "."))
        if not isinstance(n, dict):
            return
        names = sorted(k for k in n if k.startswith(base))
        shown = [k + ("/" if isinstance(n[k], dict) else "") for k in names]
        cands = [k + ("/" if isinstance(n[k], dict) else " ") for k in names]
    if len(cands) == 1:
        add = cands[0][len(base):]
        buf.extend(add)
        out(add)
    elif len(cands) > 1:
        out("\r\n" + "  ".join(shown) + "\r\n")
        prompt()
        out(line)


def main():
    printk(VERSION)
    printk("Command line: BOOT_IMAGE=/boot/ftrace-os.elf test")
    printk("smp: %d CPU%s online" % (SMP, "s" if SMP > 1 else ""))
    printk("shell: ready")
    prompt()
    buf, hist, hidx, esc = [], [], 0, 0
    while True:
        data = os.read(0, 1024)
        if not data:
            return
        for b in data:
            c = chr(b)
            if esc == 1:
                esc = 2 if c == "[" else 0
                continue
            if esc == 2:
                esc = 0
                if c in "AB" and hist:
                    hidx = max(0, hidx - 1) if c == "A" else min(len(hist), hidx + 1)
                    if "history_off_by_one" in BUGS:
                        hidx = max(0, hidx - 1)
                    out("\b \b" * len(buf))
                    buf = list(hist[hidx]) if hidx < len(hist) else []
                    out("".join(buf))
                continue
            if b == 0x1b:
                esc = 1
            elif b in (0x7f, 0x08):
                if buf:
                    buf.pop()
                    if "no_backspace_echo" not in BUGS:
                        out("\b \b")
            elif b == 0x15:
                out("\b \b" * len(buf))
                buf = []
            elif b == 0x03:
                out("^C\r\n")
                buf = []
                prompt()
            elif c in "\r\n":
                out("\r\n")
                line, buf = "".join(buf), []
                if len(line) > 255:
                    out("line too long: at most 255 characters\r\n")
                elif line:
                    hist.append(line)
                    execute(line)
                hidx = len(hist)
                prompt()
            elif c == "\t":
                complete(buf)
            elif 0x20 <= b < 0x7f:
                buf.append(c)
                out(c)


if __name__ == "__main__":
    main()
