"""tests/integration/test_line_editing.py: the shell's line editor as a user's keys reach it: backspace, Ctrl-U,
Ctrl-C, history, escape sequences (CSI and SS3: arrows, Home, End, Delete, Ctrl-arrows), tab completion, the longest
line and the ones refused, `clear`. Formats and helpers are test_shell.py's SHELL SPEC; the cwd is put back after
each test by its autouse fixture, imported here.
"""

import re

import pytest

from tests.console import INITIAL_CWD
from tests.integration.test_shell import (BACKSPACE_ECHO, BANNER_MSG, DOWN, LINE_MAX, LINE_TOO_LONG, PROC_ENTRIES, UP,
                                          assert_alive, lines)
from tests.integration.test_shell import back_to_initial_cwd  # noqa: F401 (an autouse fixture: it runs here too)

SMP = 1


def last_line(text):
    return lines(text)[-1] if text else ""


@pytest.mark.parametrize("key", [b"\x7f", b"\x08"])
def test_backspace(console, key):
    text = console.run_keys(b"pwdxy" + key + key + b"\r")
    assert text.count(BACKSPACE_ECHO) == 2, repr(text)
    assert last_line(text) == INITIAL_CWD
    assert "command not found" not in text


def test_backspace_on_empty_line_keeps_prompt(console):
    text = console.run_keys(b"\x7f\x08pwd\r")
    assert BACKSPACE_ECHO not in text, "backspace at an empty line erased part of the prompt: %r" % text
    assert last_line(text) == INITIAL_CWD


def test_ctrl_u_erases_line(console):
    text = console.run_keys(b"foo bar\x15pwd\r")
    assert last_line(text) == INITIAL_CWD
    assert "command not found" not in text


def test_ctrl_c_discards_line(console):
    text = console.run_keys(b"foo\x03")
    assert "^C" in text and "command not found" not in text, repr(text)
    assert console.run("pwd") == INITIAL_CWD           # "foo" is gone, not "foopwd"


def test_history_up_and_down(console):
    console.run("echo first")
    console.run("echo second")
    assert last_line(console.run_keys(UP + UP + b"\r")) == "first"
    console.run("echo third")
    assert last_line(console.run_keys(UP + UP + DOWN + b"\r")) == "third"
    assert last_line(console.run_keys(UP + b"\r")) == "third"


def test_history_down_past_newest_gives_empty_line(console):
    console.run("echo newest")
    text = console.run_keys(UP + DOWN + b"\r")
    assert "newest\n" not in text and last_line(text) != "newest", repr(text)


LEFT, RIGHT, HOME, END, DELETE = b"\x1b[D", b"\x1b[C", b"\x1b[H", b"\x1b[F", b"\x1b[3~"
CTRL_LEFT, CTRL_RIGHT = b"\x1b[1;5D", b"\x1b[1;5C"


@pytest.mark.parametrize("keys,line", [
    (b"echo abc" + LEFT + LEFT + DELETE, "echo ac"),                             # Delete: the character under
    (b"echo abc" + LEFT + b"\x7f", "echo ac"),                                  # Backspace: the one before
    (b"cho x" + HOME + b"e" + END + b"y", "echo xy"),                           # Home, End (xterm)
    (b"cho x" + b"\x1b[1~" + b"e" + b"\x1b[4~" + b"y", "echo xy"),              # Home, End (vt220)
    (b"cho x" + b"\x1bOH" + b"e" + b"\x1bOF" + b"y", "echo xy"),                # Home, End (application mode)
    (b"echo one three" + CTRL_LEFT + b"two " + CTRL_RIGHT + b"!", "echo one two three!"),
    (b"echo a c" + CTRL_LEFT + CTRL_LEFT + CTRL_RIGHT + b" b", "echo a b c"),
    (b"echo ac" + b"\x1bOD" + b"b" + b"\x1bOC" + b"d", "echo abcd"),          # SS3 arrows (application mode)
    (b"echo x" + b"\x1bOP" + b"\x1b[15~" + b"\x1b[2~" + b"\x1b[1;2P" + b"\x1b[5;5~" + b"y", "echo xy"),
])
def test_escape_sequences_edit_the_line(console, keys, line):
    """Whole CSI and SS3 sequences: Delete, Home/End, (Ctrl-)arrows move or erase; F-keys, Insert and Page Up
    are ignored, never inserted as text."""
    text = console.run_keys(keys + b"\r")
    assert last_line(text) == line[len("echo "):], repr(text)
    assert "command not found" not in text and "~" not in last_line(text), repr(text)


def test_history_in_application_cursor_mode(console):
    console.run("echo ss3-history")
    assert last_line(console.run_keys(b"\x1bOA\r")) == "ss3-history"


def test_tab_completes_unique_command(console):
    text = console.run_keys(b"sel\tnomatch_zz*\r")
    assert "selftest nomatch_zz*" in text.replace("\b \b", ""), repr(text)
    assert "1..0" in lines(text)


def test_tab_completes_unique_file(console):
    with console.disable_check("banner"):
        text = console.run_keys(b"cat /proc/vers\t\r")
    assert "/proc/version" in text and BANNER_MSG in last_line(text), repr(text)


def test_tab_lists_several_commands(console):
    console.send(b"c\t")
    m = console.wait_for(r"(?s)c[^\n]*\n(?P<cands>.*?)\r?\nroot@ftrace-os:[^#\r\n]*# c")
    cands = m["cands"].replace("\r", "").split()
    assert {"cat", "cd", "cpus"} <= set(cands), cands
    assert all(c.startswith("c") for c in cands), cands
    console.run_keys(b"\x15\x03")                      # drop the redrawn "c"


def test_tab_lists_several_files(console):
    console.send(b"cat /proc/\t")
    m = console.wait_for(r"(?s)/proc/[^\n]*\n(?P<cands>.*?)\r?\nroot@ftrace-os:[^#\r\n]*# cat /proc/")
    cands = [c.rstrip("/").rsplit("/", 1)[-1] for c in m["cands"].replace("\r", "").split()]
    for e in PROC_ENTRIES:
        assert e.rstrip("/") in cands, cands
    console.run_keys(b"\x15\x03")


def test_line_of_max_length_runs(console):
    words = "x" * (LINE_MAX - len("echo "))
    assert console.run("echo " + words) == words


@pytest.mark.parametrize("length", [LINE_MAX + 1, 300, 1000])
def test_overlong_line_is_refused(console, length):
    line = "echo " + "y" * (length - len("echo "))
    text = console.run_keys(line.encode() + b"\r")
    assert LINE_TOO_LONG in lines(text), repr(text[-200:])
    assert not any(set(l) == {"y"} for l in lines(text)), "the overlong line was executed"
    assert "command not found" not in text
    assert_alive(console)


# -- clear ------------------------------------------------------------------------------------------

def test_clear(console):
    assert re.search(r"^  clear ", console.run("help"), re.M)
    assert "\x1b[" in console.run("clear")
