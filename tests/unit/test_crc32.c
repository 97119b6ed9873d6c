/* Unit tests for lib/crc32.c: the standard check value, zlib's values, and chaining. */
#include "lib/crc32.h"
#include "lib/string.h"
#include "tests/unit/ktest_host.h"

KTEST(crc32_known_values)
{
	EXPECT_EQ(crc32_ieee(0, "", 0), 0);
	EXPECT_EQ(crc32_ieee(0, "123456789", 9), 0xcbf43926);	/* the CRC catalogue's check */
	EXPECT_EQ(crc32_ieee(0, "FTOSRAW1", 8), 0x688f3f72);	/* zlib.crc32(b"FTOSRAW1") */
}

/* Two calls over the halves give what one call over the whole does. */
KTEST(crc32_chains)
{
	static u8 buf[4096];
	u32 whole, split;

	for (int i = 0; i < (int)sizeof(buf); i++)
		buf[i] = (u8)(i * 7 + (i >> 8));
	whole = crc32_ieee(0, buf, sizeof(buf));
	split = crc32_ieee(crc32_ieee(0, buf, 1000), buf + 1000, sizeof(buf) - 1000);
	EXPECT_EQ(whole, split);
}
