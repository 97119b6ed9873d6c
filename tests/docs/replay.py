"""tests/docs/replay.py: type a chapter's transcripts into a booted kernel and collect what it prints.

Used by tests/docs/test_labs.py (compare) and tools/docs-replay (`make docs`: write the output back).
The rules a transcript follows are in tests/docs/transcript.py.
"""

import os
import re
import time

from tests.console import Console, ConsoleError, ROOT, TEST_ISO
from tests.docs.transcript import CTRL_C, read_chapter
from tests.elf import elf_symbol_offset

PLAIN_ISO = os.path.join(ROOT, "build", "ftrace-os.iso")
DOCS = os.path.join(ROOT, "docs")
RUN_RX = re.compile(r"^run \S+ \S+ \d+$")          # a workload with a time limit: wait for it to end
KILL_RX = re.compile(r"^kill(?: \d+)+$")           # kill only asks: wait for the tasks to be gone, as a reader does
KILL_REFUSED_RX = re.compile(r"^kill: \((\d+)\) - ", re.M)
TASK_RX = re.compile(r"^\[(\d+)\] \S+ on CPU \d+$", re.M)
EXITS = ("poweroff", "reboot")
COMMAND_TIMEOUT = 300


def chapters(host=False):
    """docs/*.md that hold at least one kernel transcript (or host transcript), as paths relative to the tree."""
    names = sorted(n for n in os.listdir(DOCS) if n.endswith(".md"))
    return ["docs/" + n for n in names if any(b.host == host for b in read_chapter("docs/" + n, read("docs/" + n)))]


def read(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


class Replay:
    """One chapter's transcripts, replayed in order; boots as the directives say."""

    def __init__(self, path, name=None):
        self.path = path
        self.blocks = read_chapter(path, read(path))
        self.name = name or path
        self.console = None
        self.consoles = []             # every console used, for logs on failure

    def boot(self, settings):
        self.close()
        iso = TEST_ISO if settings["iso"] == "test" else PLAIN_ISO
        args = ["-m", settings["mem"]] if settings["mem"] != "256M" else []
        name = "%s-%d" % (self.name, len(self.consoles))
        # COM2 to a host file, as `make run` has it: `cat FILE > /dev/ttyS1` then works as the chapters show.
        ttyS1 = os.path.join(ROOT, "build", "docs-replay", re.sub(r"[^\w.-]+", "_", name) + ".ttyS1.bin")
        os.makedirs(os.path.dirname(ttyS1), exist_ok=True)
        self.console = Console(smp=settings["smp"], extra_args=args, iso=iso, name=name, ttyS1=ttyS1)
        self.consoles.append(self.console)
        self.console.start()

    def close(self):
        if self.console is not None:
            self.console.close()
            self.console = None

    def blocks_to_run(self):
        return [b for b in self.blocks if not b.skip and not b.host]

    def run_block(self, block):
        """[(step, command typed, printed lines)] for one block; boots first when it says so or when
        nothing runs yet (or the last block left the kernel dead)."""
        if block.boot or self.console is None or self.console.needs_restart():
            self.boot(block.boot or {"smp": 1, "mem": "256M", "iso": "test"})
        results = []
        try:
            with self.console.disable_check(*sorted(block.expect)):
                for cmd in block.setup:
                    self.console.run(cmd, timeout=COMMAND_TIMEOUT)
                for step in block.steps:
                    cmd = self.substitute(block, step)
                    results.append((step, cmd, self.run_step(cmd, step.expected, "lines" in block.vary)))
        except ConsoleError as e:
            # The kernel died, hung or printed a bad pattern: the step gets the error, the next block a new boot.
            self.console.dirty = True
            step = block.steps[len(results)] if len(results) < len(block.steps) else block.steps[-1]
            results.append((step, step.cmd, ["(replay: %s)" % l for l in str(e).splitlines()[:30]]))
        return results

    def substitute(self, block, step):
        cmd = step.cmd
        for shown, func, path in block.lets:
            if path.startswith("elf:"):
                off, _ = elf_symbol_offset(os.path.join(ROOT, "build", "user", path[4:]), func)
                cmd = re.sub(r"\b%s\b" % shown, "%#x" % off, cmd)
                continue
            if shown.startswith("0x"):
                # `ksym FUNC` prints "0xADDRESS FUNC+0x0/0xSIZE"; path holds the offset
                words = self.console.run("ksym " + func, timeout=COMMAND_TIMEOUT).split()
                if len(words) != 2 or not words[1].startswith(func + "+"):
                    raise AssertionError("%s: let %s: ksym %s printed %r" % (block.where(), shown, func, words))
                cmd = re.sub(r"\b%s\b" % shown, "0x%016x" % (int(words[0], 16) + int(path, 16)), cmd)
                continue
            names = self.console.run("cat " + path, timeout=COMMAND_TIMEOUT).splitlines()
            words = [n.split()[0] if n.split() else "" for n in names]
            if func not in words:
                raise AssertionError("%s: let %s: %s is not in %s" % (block.where(), shown, func, path))
            cmd = re.sub(r"\b%s\b" % shown, str(words.index(func) + 1), cmd)
        return cmd

    def run_step(self, cmd, expected, any_lines=False):
        c = self.console
        if cmd in EXITS:
            status, out = c.run_to_exit(cmd)
            return out.rstrip("\n").split("\n") if out.strip() else []
        if expected and expected[-1] == CTRL_C:
            return self.run_until_ctrl_c(cmd, len(expected) if any_lines else None)
        out = c.run(cmd, timeout=COMMAND_TIMEOUT)
        if RUN_RX.match(cmd):
            # Wait as a reader does, without typing, for the time the run asked for; only then ask `ps`.
            # Polling from the start would put `ps` and its output into what the chapter measures
            # (the stack tracer found `ps` printing under a timer interrupt deeper than any reader sees);
            # on a loaded host the wait is as long as QEMU's own (Console.sleep), so one `ps` is enough there too.
            c.sleep(int(cmd.split()[-1]))
            self.wait_tasks_gone([int(p) for p in TASK_RX.findall(out)])
        elif KILL_RX.match(cmd):
            refused = {int(p) for p in KILL_REFUSED_RX.findall(out)}      # not there, or the shell itself
            self.wait_tasks_gone([int(p) for p in cmd.split()[1:] if int(p) not in refused])
        return out.split("\n") if out else []

    def run_until_ctrl_c(self, cmd, enough=None):
        """A command that runs until interrupted (cat trace_pipe): let it print until quiet, then Ctrl-C.  In a block
        whose line count varies (`vary lines`: each line printed must match one the chapter shows), a writer that
        never stops is interrupted as the chapter's reader does it, after a second, once it has printed at least
        `enough` lines; its later lines would be more of the same shapes, and the reader types Ctrl-C as soon as
        the output flowed that long (printing it over the serial line for 20 s cost 12 CPU seconds)."""
        c = self.console
        c.send(cmd + "\r")
        c.wait_for(re.escape(cmd) + "\r\n", timeout=COMMAND_TIMEOUT)
        start = c._pos
        began = c.now()
        last, quiet_since, deadline = None, began, began + 20
        while c.now() < deadline:
            c._sync()
            size = len(c._text)
            if size != last:
                last, quiet_since = size, c.now()
            elif c.now() - quiet_since > 1.0:
                break
            if enough is not None and c.now() - began > 1.0 and c._text.count("\n", start) >= enough:
                break
            time.sleep(0.1)
        c.send(b"\x03")
        c._pos = start
        out = c.wait_for_prompt(timeout=COMMAND_TIMEOUT)
        out = out[:-1] if out.endswith("\n") else out
        # The shell does not echo the Ctrl-C; the chapter shows it as typed, and so does the result.
        return (out.split("\n") if out else []) + [CTRL_C]

    def wait_tasks_gone(self, pids, timeout=120):
        c = self.console
        deadline = c.now() + timeout
        while pids and c.now() < deadline:
            rows = self.console.run("ps").splitlines()[1:]
            live = {int(r.split()[0]) for r in rows if r.split()}
            if not live & set(pids):
                return
            time.sleep(0.2)
        if pids:
            raise AssertionError("%s: tasks %s of a timed `run` or a `kill` did not end" % (self.path, pids))


__all__ = ["Replay", "chapters"]
