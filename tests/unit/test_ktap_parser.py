"""Tests for tests/ktap.py, the KTAP parser the unit and kernel self-tests share."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from ktap import KtapError, KtapResult, parse_ktap  # noqa: E402


def test_results_and_diagnostics():
    text = ("KTAP version 1\n1..3\nok 1 first\n# a.c:3: got 1, expected 2\n# second line\n"
            "not ok 2 second\nok 3 third # SKIP no SMP\n")
    assert parse_ktap(text) == [
        KtapResult(1, "first", True, False, []),
        KtapResult(2, "second", False, False, ["a.c:3: got 1, expected 2", "second line"]),
        KtapResult(3, "third", True, True, []),
    ]


def test_noise_and_carriage_returns():
    text = ("GRUB loading...\r\n$ selftest\r\nKTAP version 1\r\n1..2\r\nok 1 a\r\n"
            "printk: something\r\nok 2 - b\r\n# 2 passed, 0 failed\r\n$ \r\nok 3 late\r\n")
    results = parse_ktap(text)
    assert [(r.number, r.name, r.ok) for r in results] == [(1, "a", True), (2, "b", True)]
    assert results[1].diagnostics == ["printk: something"]


def test_prefix_of_version_line_is_stripped():
    text = ("[    0.1] boot\n[    0.2] KTAP version 1\n[    0.2] 1..1\n"
            "[    0.3] # why\n[    0.3] not ok 1 x\n")
    assert parse_ktap(text) == [KtapResult(1, "x", False, False, ["why"])]


def test_indented_subtests_do_not_count():
    text = ("KTAP version 1\n1..2\n    KTAP version 1\n    1..2\n    ok 1 sub_a\n"
            "    not ok 2 sub_b\nnot ok 1 parent\nok 2 other\n")
    results = parse_ktap(text)
    assert [(r.name, r.ok) for r in results] == [("parent", False), ("other", True)]
    assert "not ok 2 sub_b" in results[0].diagnostics


def test_plan_after_results():
    assert len(parse_ktap("TAP version 13\nok 1 a\nok 2 b\n1..2\n")) == 2


def test_short_output_is_an_error():
    with pytest.raises(KtapError, match="plan says 3 results, found 1") as info:
        parse_ktap("KTAP version 1\n1..3\nok 1 a\nAddressSanitizer: boom\n")
    assert [r.name for r in info.value.results] == ["a"]
    assert info.value.trailing == ["AddressSanitizer: boom"]


@pytest.mark.parametrize("text, message", [
    ("1..1\nok 1 a\n", "no 'KTAP version'"),
    ("KTAP version 1\nok 1 a\n", "no plan"),
    ("KTAP version 1\n1..2\nok 1 a\nok 3 b\n", "out of order"),
    ("KTAP version 1\n1..2\nok 1 a\nBail out! disk on fire\n", "Bail out"),
    ("KTAP version 1\n1..2\nok 1 a\nKTAP version 1\n1..2\n", "restarted"),
])
def test_malformed(text, message):
    with pytest.raises(KtapError, match=message):
        parse_ktap(text)


def test_empty_plan():
    assert parse_ktap("KTAP version 1\n1..0\n") == []
