"""tests/unit/test_transcript.py: the rules by which a chapter's transcript is read and compared (tests/docs)."""

import pytest

from tests.docs.transcript import TranscriptError, compare, line_pattern, read_chapter

P = "root@ftrace-os:/sys/kernel/tracing# "


def chapter(*lines):
    return "\n".join(lines) + "\n"


def test_blocks_steps_and_directives():
    text = chapter("Intro", "<!-- replay: boot smp=4; vary num -->", "```", P + "cat func_hits", "kmalloc 3",
                   P + "echo 0 > func_hits", "```", "", "```", "not a transcript", "```",
                   "<!-- replay: skip needs trace-cmd on the host -->", "```", P + "ls", "```")
    blocks = read_chapter("docs/x.md", text)
    assert len(blocks) == 2
    first, second = blocks
    assert first.boot == {"smp": 4, "mem": "256M", "iso": "test"} and first.vary == {"num"}
    assert [(s.cmd, s.expected, s.line) for s in first.steps] == [
        ("cat func_hits", ["kmalloc 3"], 4), ("echo 0 > func_hits", [], 6)]
    assert second.skip == "needs trace-cmd on the host" and second.boot is None


@pytest.mark.parametrize("text", [
    "<!-- replay: skip -->",                      # no reason
    "<!-- replay: vary numbers -->",              # unknown class
    "<!-- replay: boot smp=9 -->",
    "<!-- replay: boot cpus=2 -->",
    "<!-- replay: frobnicate -->",
    "<!-- replay: let 5 = kfree -->",
])
def test_bad_directives_are_refused(text):
    with pytest.raises(TranscriptError):
        read_chapter("docs/x.md", chapter(text, "```", P + "ls", "```"))


def test_directives_must_stand_just_before_a_transcript():
    with pytest.raises(TranscriptError):
        read_chapter("docs/x.md", chapter("<!-- replay: vary num -->", "prose between", "```", P + "ls", "```"))
    with pytest.raises(TranscriptError):
        read_chapter("docs/x.md", chapter("<!-- replay: vary num -->", "```", "plain block", "```"))


def test_let_must_name_a_number_the_block_types():
    with pytest.raises(TranscriptError):
        read_chapter("docs/x.md", chapter("<!-- replay: let 118 = line of kfree in available_filter_functions -->",
                                          "```", P + "echo 117 >> set_ftrace_filter", "```"))


def test_let_an_address():
    block, = read_chapter("docs/x.md", chapter("<!-- replay: let 0xffffffff8020971a = address of kmain+0xa -->",
                                              "```", P + "ksym 0xffffffff8020971a", "kmain+0xa/0x19d", "```"))
    assert block.lets == [("0xffffffff8020971a", "kmain", "0xa")]
    with pytest.raises(TranscriptError):
        read_chapter("docs/x.md", chapter("<!-- replay: let 0xffffffff8020971a = address of kmain -->",
                                          "```", P + "ksym 0xffffffff8020971a", "```"))


def test_always_varying_classes():
    pat = line_pattern("ffffffff8020da20:  e8 db 25 df 1f           call   ffffffffa0000000 <ftrace_trampoline>", set())
    assert pat.match("ffffffff80211230:  e8 00 11 22 33   call   ffffffffa0001000 <ftrace_trampoline>")
    assert not pat.match("ffffffff80211230:  e9 00 11 22 33   call   ffffffffa0001000 <ftrace_trampoline>")
    assert not pat.match("ffffffff80211230:  e8 00 11 22 33   call   ffffffffa0001000 <ftrace_stub>")
    pat = line_pattern("kmalloc (1)  tramp: 0xffffffffa0000000 (func_hits_call+0x0/0x55)", set())
    assert pat.match("kmalloc (1)  tramp: 0xffffffffa0002000 (func_hits_call+0x0/0x61)")
    assert not pat.match("kmalloc (1)  tramp: 0xffffffffa0002000 (func_hits_call+0x4/0x61)")
    assert not pat.match("kmalloc (2)  tramp: 0xffffffffa0002000 (func_hits_call+0x0/0x61)")


def test_numbers_vary_only_where_marked():
    assert compare(["  kmalloc   3"], ["  kmalloc   3"], set()) is None
    assert compare(["  kmalloc   3"], ["  kmalloc   14"], set())
    assert compare(["  kmalloc   3"], ["  kmalloc   14"], {"num"}) is None
    assert compare(["  kmalloc   3"], ["  kfree   14"], {"num"})
    line = " 1)   2.162 us    |        dentry_lookup();"
    assert compare([line], [" 1)   0.311 us    |        dentry_lookup();"], {"dur"}) is None
    assert compare([line], [" 1)   0.311 us    |        dentry_lookup();"], set())
    assert compare([line], [" 0)   0.311 us    |        dentry_lookup();"], {"dur"})
    # The mark before a duration follows from it, so it varies with it.
    marked = " 0) + 53.349 us   |    demo_greeting_fixed();"
    assert compare([marked], [" 0) ! 109.271 us  |    demo_greeting_fixed();"], {"dur"}) is None
    assert compare([marked], [" 0)   9.870 us    |    demo_greeting_fixed();"], {"dur"}) is None
    assert compare([line], [" 1) ! 150.002 us  |        dentry_lookup();"], {"dur"}) is None
    assert compare([marked], [" 0) ! 109.271 us  |    demo_greeting_fixed();"], set())
    assert compare([marked], [" 0) ! 109.271 us  |    demo_greeting();"], {"dur"})


def test_timestamps_always_vary_but_keep_their_shape():
    line = "            spin-5       [001] d..2.    12.345678: stress_target <-spin_fn"
    assert compare([line], ["            spin-5       [001] d..2.    99.000001: stress_target <-spin_fn"], set()) is None
    assert compare([line], ["            spin-5       [001] d..2.    99.0001: stress_target <-spin_fn"], set())


def test_task_column_varies_only_where_marked():
    line = "       osnoise/1-4       [001] dNh..     1.717895: irq_noise: reschedule:242 start 1.717890829 duration 1028 ns"
    other = "            spin-6       [001] dNh..     3.466167: irq_noise: reschedule:242 start 3.466162025 duration 1028 ns"
    assert compare([line], [other], set())
    assert compare([line], [other], {"task"}) is None
    # Only the column before [CPU]: the event's own text still has to match.
    assert compare([line], [other.replace("reschedule", "local_timer")], {"task"})
    assert compare(["  spin-5 runs"], ["  sh-7 runs"], {"task"})


def test_ellipsis_and_line_counts():
    want = ["# tracer: function", "...", "  end"]
    assert compare(want, ["# tracer: function", "  end"], set()) is None
    assert compare(want, ["# tracer: function", "a", "b", "  end"], set()) is None
    assert compare(want, ["# tracer: function", "a", "b"], set())
    assert compare(["a 1", "b 2"], ["a 1"], set())
    assert compare(["x 1", "y 2"], ["x 5", "x 6", "y 7", "x 8"], {"lines", "num"}) is None
    assert compare(["x 1", "y 2"], ["x 5", "z 7"], {"lines", "num"})
    assert compare(["x 1"], [], {"lines", "num"})


def test_unordered():
    assert compare(["a", "b"], ["b", "a"], set(), unordered=True) is None
    assert compare(["a", "b"], ["b", "a"], set())
