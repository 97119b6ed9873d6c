"""Grader of exercise 16.4 (docs/16-hardening.md): Linux's kstrtobool() in lib/kstrtox.c, run on the host."""

from tests.grade.conftest import check_host_case, parametrize_host

TITLE = "kstrtobool"
POINTS = 10


def pytest_generate_tests(metafunc):
    parametrize_host(metafunc, "ex_16_4")


def test_host(case):
    check_host_case(case)
