"""Grader of exercise 11.9 (docs/11-livepatch.md): Linux's /sys/kernel/livepatch/<patch>/{enabled,transition}."""

TITLE = "Linux's livepatch files"
POINTS = 10
SYS = "/sys/kernel/livepatch"
ORIGINAL = "Hello from ftrace-os, the kernel that traces it's own calls"
FIXED = "Hello from ftrace-os, the kernel that traces its own calls"


def greeting(console):
    return console.run("greet").splitlines()[0]


def test_one_directory_per_patch(console):
    assert console.run("ls %s" % SYS).splitlines() == ["demo_greeting/", "demo_greeting_shout/"]
    for patch in ("demo_greeting", "demo_greeting_shout"):
        assert console.run("ls %s/%s" % (SYS, patch)).splitlines() == ["enabled", "transition"]
        assert console.run("cat %s/%s/enabled" % (SYS, patch)) == "0"
        assert console.run("cat %s/%s/transition" % (SYS, patch)) == "0"


def test_enable_and_disable(console):
    console.run("echo 1 > %s/demo_greeting/enabled" % SYS)
    assert console.run("cat %s/demo_greeting/enabled" % SYS) == "1"
    assert greeting(console) == FIXED
    assert "demo_greeting_fixed    enabled" in console.run("cat livepatch_enable")
    assert "Device or resource busy" in console.run("echo 1 > %s/demo_greeting_shout/enabled" % SYS)
    assert console.run("cat %s/demo_greeting_shout/enabled" % SYS) == "0"
    console.run("echo 0 > %s/demo_greeting/enabled" % SYS)
    assert console.run("cat %s/demo_greeting/enabled" % SYS) == "0"
    assert greeting(console) == ORIGINAL


def test_bad_value(console):
    assert "Invalid argument" in console.run("echo 2 > %s/demo_greeting/enabled" % SYS)
    assert console.run("cat %s/demo_greeting/enabled" % SYS) == "0"
    assert greeting(console) == ORIGINAL
