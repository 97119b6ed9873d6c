"""tests/console.py: boot ftrace-os in QEMU and talk to its shell over the serial line (engine of the pytest fixtures).

The design follows U-Boot's test/py console: one object owns one QEMU process, a reader thread collects every
byte QEMU writes to the serial port, and the test thread waits on regular expressions over that text, always with
a timeout, on a clock that stops while QEMU waits for a host CPU (Console.now: a loaded host makes no test fail).
While waiting it watches for "bad patterns" (a panic, an Oops dump, an ftrace bug report, a second boot banner)
and fails at once when one appears, so a crash is reported as a crash and not as a timeout minutes later.

    console = Console(smp=2)
    console.start()                   # boots, waits for the banner and the first prompt
    out = console.run("ls /proc")     # "cmdline\nmeminfo\n..." (echo and prompt removed, no \\r)
    status = console.run_to_exit("poweroff")[0]
    console.close()

Everything this file assumes about the kernel's serial behaviour, and how it starts QEMU, is in tests/serial_spec.py.
"""

import atexit
import contextlib
import ctypes
import os
import re
import select
import signal
import subprocess
import threading
import time
import weakref

from tests.serial_spec import (  # noqa: F401  (re-exported: the tests import these from here)
    ROOT, TEST_ISO, QEMU, QEMU_ARGS, BANNER, PROMPT, INITIAL_CWD, ENTER, NEWLINE, LOG_LINE, BAD_PATTERNS,
    ANNOUNCED_REPORTS, EXIT_POWEROFF, EXIT_PANIC, TIMEOUT_SCALE, STRESS, BOOT_TIMEOUT, COMMAND_TIMEOUT,
    EXIT_TIMEOUT, LOG_DIR, FAKE_KERNEL, FAKE_KERNEL_SCRIPT, unannounced_reports, debug_exit_status, boot_media,
    qemu_command, stress_rounds)


class ConsoleError(Exception):
    """Something went wrong on the serial console; the message ends with the last lines of output."""


class ConsoleTimeout(ConsoleError):
    """A wait did not see what it waited for in time."""


class BadPatternError(ConsoleError):
    """The kernel printed a bad pattern (panic, Oops, ftrace bug, second banner)."""


class ConsoleExited(ConsoleError):
    """QEMU exited while we still expected output from it."""


def printable(text):
    """`text` with \\r\\n turned into \\n and other control characters shown as escapes, for logs and reports."""
    text = text.replace("\r\n", "\n")
    return re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", lambda m: "\\x%02x" % ord(m.group()), text)


def log_path_for(nodeid):
    """The file under build/test-logs/ that keeps the serial log of the test (or module) `nodeid`."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid.replace("::", "--")).strip("_")
    return os.path.join(LOG_DIR, name + ".log")


class SuppressedOutput:
    """What a disable_check() block let through: `hits[name]` lists the lines that matched bad pattern `name`."""

    def __init__(self, names):
        self.names = names
        self.hits = {name: [] for name in names}

    def __bool__(self):
        return any(self.hits.values())


try:
    _prctl = ctypes.CDLL(None, use_errno=True).prctl   # looked up here: the forked child must not dlopen
except (OSError, AttributeError):
    _prctl = None


def _kill_with_parent():
    """Run in the QEMU child before exec: Linux sends it SIGKILL if pytest dies, so no QEMU is left behind."""
    if _prctl is not None:
        _prctl(1, signal.SIGKILL)    # 1 = PR_SET_PDEATHSIG


_live_consoles = weakref.WeakSet()


@atexit.register
def _close_all():
    for console in list(_live_consoles):
        console.close()


class Console:
    """One QEMU running ftrace-os, driven through its serial console."""

    def __init__(self, smp=1, extra_args=(), iso=TEST_ISO, name="console", ttyS1=None, cdrom=False):
        self.smp = smp
        self.cdrom = cdrom
        self.extra_args = list(extra_args)
        # ttyS1: a host file that receives COM2 (/dev/ttyS1) byte for byte; None: no COM2, and the
        # kernel refuses writes to /dev/ttyS1 with "Input/output error".
        self.ttyS1 = ttyS1
        if ttyS1 is not None:
            self.extra_args += ["-serial", "file:" + ttyS1]
        self.iso = iso
        self.name = name
        self.proc = None
        self.returncode = None       # QEMU's exit status once it has been reaped
        self.boot_text = ""          # what came before the first prompt (\r removed)
        self.cwd = None              # directory shown by the last prompt we matched
        self.dirty = False           # a wait failed: the shell may be in an unknown state (see needs_restart)
        self._old_logs = ""          # serial text of earlier boots of this object (restart)
        self._cond = threading.Condition()
        self._disabled = {name: 0 for name in BAD_PATTERNS}
        self._suppressed = []        # SuppressedOutput objects of the active disable_check() blocks
        self._bad = {name: re.compile(rx) for name, rx in BAD_PATTERNS.items()}
        self._stalled = 0.0          # seconds QEMU waited for a host CPU, over all its boots (now)
        self._waited_last = 0.0
        self._reset_buffers()

    def _reset_buffers(self):
        self._raw = bytearray()      # every byte from QEMU's stdout, appended by the reader thread
        self._stderr = bytearray()   # QEMU's own messages ("could not open ...")
        self._eof = False            # stdout closed: QEMU has exited
        self._text = ""              # self._raw decoded (latin-1: one character per byte), owned by the test thread
        self._pos = 0                # waits search self._text from here; a match moves it past the match
        self._checked = 0            # bad patterns have been checked on the complete lines before this offset
        self._banner_seen = False
        self._threads = []

    # -- starting and stopping ---------------------------------------------------------------------------------

    def start(self):
        """Start QEMU, wait for the banner and the first prompt.  Raises ConsoleError on any failure."""
        if not FAKE_KERNEL and not os.path.exists(self.iso):
            self.dirty = True
            raise ConsoleError("test ISO %s not found: build it with `make iso-test` (`make test` does it for you)"
                               % os.path.relpath(self.iso, ROOT))
        self._reset_buffers()
        self.dirty = False
        self.command = qemu_command(self.smp, self.extra_args, self.iso, self.cdrom)
        try:
            self.proc = subprocess.Popen(self.command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, start_new_session=True,
                                         preexec_fn=_kill_with_parent)
        except OSError as e:
            self.dirty = True
            raise ConsoleError("cannot start %s: %s" % (self.command[0], e)) from None
        self._waited_last = 0.0
        _live_consoles.add(self)
        os.set_blocking(self.proc.stdin.fileno(), False)
        for stream, sink in ((self.proc.stdout, self._raw), (self.proc.stderr, self._stderr)):
            thread = threading.Thread(target=self._reader, args=(stream.fileno(), sink, stream is self.proc.stdout),
                                      name="serial-reader", daemon=True)
            thread.start()
            self._threads.append(thread)
        self._boot()
        return self

    def _boot(self):
        deadline = self.now() + BOOT_TIMEOUT
        self._wait_for(re.compile(BANNER), deadline, "the boot banner")
        m = self._wait_for(re.compile(PROMPT), deadline, "the first shell prompt")
        self.boot_text = self._text[:m.start()].replace("\r", "")
        # Synchronise with the shell: an empty line must give exactly a fresh prompt.  After this the prompt is
        # known to be the last thing received, which is what run() relies on.
        self.send(ENTER)
        m = self._wait_for(re.compile(re.escape(NEWLINE) + PROMPT + r"\Z"), deadline, "a prompt after an empty line")
        self.cwd = m.group("cwd")

    def restart(self):
        """Kill QEMU and boot again with the same settings; the old serial text stays in log_text()."""
        self.close()
        self._old_logs += self._text + "\n======== %s: QEMU restarted ========\n" % self.name
        self.start()

    def needs_restart(self):
        """True when QEMU has exited or a wait failed, so the shell is not known to sit at a prompt."""
        return self.dirty or self.proc is None or self.proc.poll() is not None

    def close(self):
        """Kill QEMU (if still running) and reap it.  Safe to call more than once."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for thread in self._threads:
            thread.join(timeout=5)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                stream.close()
            except OSError:
                pass
        self._sync()
        self.returncode = proc.returncode
        _live_consoles.discard(self)

    def _reader(self, fd, sink, is_stdout):
        """Reader thread: append everything QEMU writes on `fd` to `sink` and wake up waiters."""
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            with self._cond:
                if data:
                    sink.extend(data)
                elif is_stdout:
                    self._eof = True
                self._cond.notify_all()
            if not data:
                return

    # -- sending -------------------------------------------------------------------------------------------------

    def send(self, data):
        """Write raw bytes (or a str, sent as latin-1) to the serial port; does not wait for any answer."""
        if isinstance(data, str):
            data = data.encode("latin-1")
        if self.proc is None:
            raise self._error(ConsoleExited, "cannot send %r: QEMU is not running" % data)
        fd = self.proc.stdin.fileno()
        deadline = self.now() + COMMAND_TIMEOUT
        while data:
            remaining = deadline - self.now()
            if remaining <= 0:
                raise self._error(ConsoleTimeout, "QEMU did not accept serial input for %ds" % COMMAND_TIMEOUT)
            select.select([], [fd], [], remaining)
            try:
                data = data[os.write(fd, data):]
            except BlockingIOError:
                continue
            except BrokenPipeError:
                raise self._error(ConsoleExited, "QEMU exited (status %s) while we were typing"
                                  % self.proc.poll()) from None

    # -- waiting -------------------------------------------------------------------------------------------------

    def wait_for(self, pattern, timeout=COMMAND_TIMEOUT):
        """Wait until `pattern` (regex str or compiled) matches the raw received text after the last match.

        The text is raw: lines end in \\r\\n and control characters are kept.  Returns the re.Match (over the whole
        text); following waits start after it.  Raises ConsoleTimeout, ConsoleExited or BadPatternError."""
        rx = re.compile(pattern) if isinstance(pattern, str) else pattern
        return self._wait_for(rx, self.now() + timeout, "/%s/" % rx.pattern)

    def wait_for_prompt(self, timeout=COMMAND_TIMEOUT):
        """Wait until the received text ends with a prompt; return the text before it (\\r removed)."""
        return self._wait_prompt(self.now() + timeout)

    def _wait_prompt(self, deadline):
        start = self._pos
        m = self._wait_for(re.compile(PROMPT + r"\Z"), deadline, "the shell prompt")
        self.cwd = m.group("cwd")
        return self._text[start:m.start()].replace("\r", "")

    def run(self, cmd, timeout=COMMAND_TIMEOUT):
        """Type `cmd` and Enter, wait for its echo and the next prompt, return the output between them.

        The output has \\r removed and no final newline ("" for no output).  `cmd` must be printable text:
        use run_keys() for editing keys."""
        if re.search(r"[\x00-\x1f\x7f]", cmd):
            raise ValueError("run() takes printable text, use run_keys() for control characters: %r" % cmd)
        deadline = self.now() + timeout
        self.send(cmd.encode("latin-1") + ENTER)
        self._wait_for(re.compile(re.escape(cmd + NEWLINE)), deadline, "the echo of %r" % cmd)
        out = self._wait_prompt(deadline)
        return out[:-1] if out.endswith("\n") else out

    def poll(self, cmd, check, timeout=COMMAND_TIMEOUT, interval=0.1):
        """Run `cmd` until `check(output)` is true, and return that output: a wait on the kernel's state (a task
        gone, an event recorded) where a sleep would guess how long it takes.  ConsoleTimeout after `timeout`."""
        deadline = self.now() + timeout
        while True:
            out = self.run(cmd, timeout=max(deadline - self.now(), COMMAND_TIMEOUT))
            if check(out):
                return out
            if self.now() > deadline:
                raise self._error(ConsoleTimeout, "`%s` never printed what was waited for in %.0f s; last:\n%s"
                                  % (cmd, timeout, out[-2000:]))
            time.sleep(interval)

    def run_keys(self, keys, timeout=COMMAND_TIMEOUT):
        """Send raw key bytes that end the line (last key Enter or Ctrl-C), return everything up to the next prompt.

        The result holds the echo, erase sequences and redraws as the kernel sent them, \\r and the final newline
        removed.  To know where that output ends even when it contains redrawn prompts, an empty line is sent
        after the keys and we wait for "prompt, newline, prompt" at the end.  So `keys` must not contain an empty
        Enter itself."""
        deadline = self.now() + timeout
        start = self._pos
        self.send(keys)
        self.send(ENTER)
        sync = PROMPT.replace("?P<cwd>", "")
        m = self._wait_for(re.compile("(%s)%s%s\\Z" % (sync, re.escape(NEWLINE), PROMPT)), deadline,
                           "the prompt after keys %r" % keys)
        self.cwd = m.group("cwd")
        text = self._text[start:m.start()].replace("\r", "")
        return text[:-1] if text.endswith("\n") else text

    def run_to_exit(self, cmd, timeout=EXIT_TIMEOUT):
        """Type `cmd` (poweroff, fault ...) and wait for QEMU to exit; return (exit status, output after the echo)."""
        self.send(cmd.encode("latin-1") + ENTER)
        self.wait_for(re.escape(cmd + NEWLINE), timeout)
        start = self._pos
        status = self.wait_exit(timeout)
        return status, self._text[start:].replace("\r", "")

    def wait_exit(self, timeout=EXIT_TIMEOUT):
        """Wait for QEMU to exit; return its exit status.  All output is checked for bad patterns first."""
        if self.proc is None:
            return self.returncode
        deadline = self.now() + timeout
        self._wait_until(lambda: True if self._eof else None, deadline, "QEMU to exit", allow_exit=True)
        self._check_bad_patterns(final=True)
        proc = self.proc
        try:
            status = proc.wait(timeout=max(1.0, deadline - self.now()))
        except subprocess.TimeoutExpired:
            raise self._error(ConsoleTimeout, "QEMU closed the serial port but did not exit") from None
        self._pos = len(self._text)
        self.close()
        return status

    def check(self):
        """Check output received since the last wait for bad patterns (raises BadPatternError); never blocks."""
        self._sync()
        self._check_bad_patterns(final=self._eof)

    # -- bad patterns --------------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def disable_check(self, *names):
        """Within the block, lines matching the named BAD_PATTERNS do not fail the test.

        Yields a SuppressedOutput whose `hits` tell which lines matched.  Output received up to the end of the
        block is judged with the block's rules."""
        for name in names:
            if name not in BAD_PATTERNS:
                raise ValueError("unknown bad pattern %r (known: %s)" % (name, ", ".join(BAD_PATTERNS)))
        seen = SuppressedOutput(names)
        for name in names:
            self._disabled[name] += 1
        self._suppressed.append(seen)
        try:
            yield seen
            self.check()
        finally:
            self._suppressed.remove(seen)
            for name in names:
                self._disabled[name] -= 1

    def expected_bugs(self):
        """Context: the test expects ftrace bug reports (`[ ftrace bug ]`); yields the SuppressedOutput."""
        return self.disable_check("ftrace_bug")

    def expected_jump_label_bugs(self):
        """Context: the test expects jump label bug reports (`[ jump label bug ]`)."""
        return self.disable_check("jump_label_bug")

    def expected_crash(self):
        """Context: the test expects an Oops dump and a panic (the fault command)."""
        return self.disable_check("oops", "panic")

    def _check_bad_patterns(self, final=False):
        """Check each complete line once (and the unfinished last line if `final`); raise on a bad pattern."""
        text = self._text
        end = len(text) if final else text.rfind("\n", self._checked) + 1
        while self._checked < end:
            nl = text.find("\n", self._checked, end)
            line_end = end if nl < 0 else nl + 1
            line = text[self._checked:line_end]
            self._checked = line_end
            for name, rx in self._bad.items():
                if not rx.search(line):
                    continue
                if name == "banner" and not self._banner_seen:
                    self._banner_seen = True
                elif self._disabled[name]:
                    for seen in self._suppressed:
                        if name in seen.hits:
                            seen.hits[name].append(line.rstrip("\r\n"))
                else:
                    self._settle()
                    self._checked = len(self._text)      # the rest of this crash is reported with it, once
                    what = {"banner": "a second boot banner: the machine rebooted"}.get(name, "bad pattern %r" % name)
                    raise self._error(BadPatternError, "%s in line: %s" % (what, line.rstrip("\r\n")))

    def _settle(self, max_wait=2.0, quiet=0.3):
        """Before reporting a crash, let the rest of the dump arrive: until QEMU exits, output pauses for
        `quiet` seconds, or `max_wait` seconds passed."""
        deadline = time.monotonic() + max_wait
        while not self._eof and time.monotonic() < deadline:
            before = len(self._raw)
            with self._cond:
                self._cond.wait(quiet)
            if len(self._raw) == before:
                break
        self._sync()

    # -- internals -----------------------------------------------------------------------------------------------

    def _runqueue_wait(self):
        """Seconds the most delayed thread of this QEMU has waited, runnable, for a host CPU (Linux's
        /proc/PID/task/TID/schedstat, its second field); 0 when there is no QEMU or no schedstat."""
        worst = 0
        base = "/proc/%d/task" % self.proc.pid if self.proc is not None else None
        try:
            tids = os.listdir(base) if base else []
        except OSError:
            tids = []
        for tid in tids:
            try:
                with open(os.path.join(base, tid, "schedstat")) as f:
                    worst = max(worst, int(f.read().split()[1]))
            except (OSError, ValueError, IndexError):
                pass
        return worst / 1e9

    def now(self):
        """The clock of every timeout here: time.monotonic() less the time QEMU spent waiting for a host CPU.  A
        timeout catches a kernel that hangs, not a host loaded by other work: under load QEMU waits on the run
        queue, and that wait does not count, so a test never fails for being slow (nor passes for being fast)."""
        waited = self._runqueue_wait()
        if waited > self._waited_last:
            self._stalled += waited - self._waited_last
        self._waited_last = waited       # a new QEMU starts again from 0
        return time.monotonic() - self._stalled

    def sleep(self, seconds):
        """Let `seconds` pass on now()'s clock: as long as a reader waits on an idle host, however loaded this one."""
        end = self.now() + seconds
        while self.now() < end:
            time.sleep(min(0.1, max(end - self.now(), 0)))

    def _sync(self):
        """Bring self._text up to date with the bytes the reader thread collected."""
        with self._cond:
            new = bytes(self._raw[len(self._text):])
        self._text += new.decode("latin-1")

    def _wait_for(self, rx, deadline, what):
        def find():
            m = rx.search(self._text, self._pos)
            if m:
                self._pos = m.end()
            return m
        return self._wait_until(find, deadline, what)

    def _wait_until(self, probe, deadline, what, allow_exit=False):
        """Poll `probe()` on new output until it returns non-None, checking bad patterns as output arrives."""
        try:
            while True:
                eof = self._eof          # read before _sync(): the reader appends all data before setting it
                self._sync()
                self._check_bad_patterns(final=eof)
                result = probe()
                if result is not None:
                    return result
                if eof and not allow_exit:
                    status = self.proc.wait(timeout=5) if self.proc else None
                    raise self._error(ConsoleExited, "QEMU exited with status %s while waiting for %s"
                                      % (status, what))
                remaining = deadline - self.now()
                if remaining <= 0:
                    raise self._error(ConsoleTimeout, "timed out waiting for %s" % what)
                with self._cond:
                    if len(self._raw) == len(self._text) and not self._eof:
                        self._cond.wait(min(remaining, 1.0))
        except ConsoleError:
            self.dirty = True
            raise

    def _error(self, cls, message, lines=60):
        self.dirty = True
        stderr = bytes(self._stderr).decode("utf-8", "replace").strip()
        if stderr:
            message += "\nQEMU stderr:\n" + stderr
        return cls("%s\n---- last %d lines of serial output (%s) ----\n%s"
                   % (message, lines, self.name, self.log_tail(lines)))

    # -- logs ----------------------------------------------------------------------------------------------------

    def log_text(self):
        """Everything received over the serial line, from all boots of this object, in printable form."""
        self._sync()
        text = printable(self._old_logs + self._text)
        stderr = bytes(self._stderr).decode("utf-8", "replace")
        if stderr.strip():
            text += "\n======== QEMU stderr ========\n" + stderr
        return text

    def log_tail(self, lines=60):
        """The last `lines` lines of log_text()."""
        return "\n".join(self.log_text().rstrip("\n").split("\n")[-lines:])

    def save_log(self, path):
        """Write log_text() to `path` (directories created); return the path."""
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("# %s\n# %s\n" % (self.name, " ".join(getattr(self, "command", []) or [])))
            f.write(self.log_text())
        return path
