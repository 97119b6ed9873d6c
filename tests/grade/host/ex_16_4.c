/* Grader of exercise 16.4: kstrtobool() in lib/kstrtox.c, held against Linux's answers. */
#include "lib/errno.h"
#include "lib/string.h"
#include "tests/unit/ktest_host.h"

static const struct {
	const char *s;
	int err;	/* 0 or -EINVAL */
	bool res;
} rows[] = {
	{ "1", 0, true }, { "y", 0, true }, { "Y", 0, true }, { "yes", 0, true },
	{ "t", 0, true }, { "True", 0, true }, { "on", 0, true }, { "ON", 0, true },
	{ "1\n", 0, true }, { "yellow", 0, true }, { "oN!", 0, true },
	{ "0", 0, false }, { "n", 0, false }, { "No", 0, false }, { "f", 0, false },
	{ "FALSE", 0, false }, { "off", 0, false }, { "oF", 0, false }, { "0x1", 0, false },
	{ "", -EINVAL, false }, { "2", -EINVAL, false }, { "o", -EINVAL, false },
	{ "ox", -EINVAL, false }, { " 1", -EINVAL, false }, { "-1", -EINVAL, false },
	{ "\n", -EINVAL, false }, { "enable", -EINVAL, false },
};

KTEST(grade_16_4_answers)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		bool res = !rows[i].res;	/* so a result left unwritten shows */
		int err = kstrtobool(rows[i].s, &res);

		ktest_check(err == rows[i].err, __FILE__, __LINE__, "kstrtobool(\"%s\") returned %d, expected %d",
			    rows[i].s, err, rows[i].err);
		if (!rows[i].err)
			ktest_check(res == rows[i].res, __FILE__, __LINE__, "kstrtobool(\"%s\") gave %d",
				    rows[i].s, res);
	}
}

KTEST(grade_16_4_refusal_keeps_result)
{
	bool res = true;

	EXPECT_EQ(kstrtobool("maybe", &res), -EINVAL);
	EXPECT_TRUE(res);
	res = false;
	EXPECT_EQ(kstrtobool("of", &res), 0);
	EXPECT_FALSE(res);
	EXPECT_EQ(kstrtobool(NULL, &res), -EINVAL);
}
