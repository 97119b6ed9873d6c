"""Grader of exercise 15.11 (docs/15-kprobes.md): bitfield fetch types (:b4@2/32), run on the host."""

from tests.grade.conftest import check_host_case, parametrize_host

TITLE = "a new fetch type: bitfields"
POINTS = 10


def pytest_generate_tests(metafunc):
    parametrize_host(metafunc, "ex_15_11")


def test_host(case):
    check_host_case(case)
