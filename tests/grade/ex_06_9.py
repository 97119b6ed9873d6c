"""Grader of exercise 06.9 (docs/06-ring-buffer.md): buffer_total_size_kb, the buffer's size over all CPUs."""

import pytest

TITLE = "buffer_total_size_kb"
POINTS = 10


@pytest.fixture
def size(console):
    before = console.run("cat buffer_size_kb")
    yield
    console.run("echo %s > buffer_size_kb" % before)


def per_cpu(console):
    return [int(console.run("cat per_cpu/cpu%d/buffer_size_kb" % cpu)) for cpu in (0, 1)]


def test_sum_of_the_cpus(console):
    assert console.run("cat buffer_total_size_kb") == str(sum(per_cpu(console)))


def test_follows_a_resize(console, size):
    assert console.run("echo 100 > buffer_size_kb") == ""
    assert per_cpu(console) == [100, 100]
    assert console.run("cat buffer_total_size_kb") == "200"


def test_read_only(console):
    total = console.run("cat buffer_total_size_kb")
    assert total.isdigit(), total
    assert "Permission denied" in console.run("echo 8 > buffer_total_size_kb")
    assert console.run("cat buffer_total_size_kb") == total
