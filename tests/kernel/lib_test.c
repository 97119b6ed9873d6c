/* Self-tests that lib/ behaves the same inside the kernel as in the host unit tests. */
#include "kernel/selftest.h"
#include "lib/glob.h"
#include "lib/printf.h"
#include "lib/string.h"

SELFTEST(glob_ftrace_patterns)
{
	KT_EXPECT(t, glob_match("*schedule", "preempt_schedule"));
	KT_EXPECT(t, glob_match("schedule*", "schedule_timeout"));
	KT_EXPECT(t, glob_match("*pin*lock", "_raw_spin_lock"));
	KT_EXPECT(t, glob_match("[Ss]y[Ss]_*", "SyS_read"));
	KT_EXPECT(t, glob_match("sch?dule", "schxdule"));
	KT_EXPECT(t, !glob_match("sch?dule", "schedule_x"));
	KT_EXPECT(t, !glob_valid("sched[ule"));
}

SELFTEST(vsnprintf_kernel)
{
	char buf[32];

	KT_EXPECT_EQ(t, snprintf(buf, sizeof(buf), "%5lu|%-4s|%04x", 42UL, "ab", 0xbeef), 15);
	KT_EXPECT_STREQ(t, buf, "   42|ab  |beef");
	KT_EXPECT_EQ(t, snprintf(buf, 4, "%s", "truncated"), 9);
	KT_EXPECT_STREQ(t, buf, "tru");
}
