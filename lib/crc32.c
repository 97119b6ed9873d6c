/* CRC-32 as zlib computes it, half a byte at a time: a 16-entry table is small and fast enough
 * for the serial channel, which moves bytes far slower than this loop checks them. */
#include "lib/crc32.h"

static const u32 crc_nibble[16] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4,
	0x4db26158, 0x5005713c, 0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
	0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

u32 crc32_ieee(u32 crc, const void *p, size_t len)
{
	const u8 *s = p;

	/* zlib keeps the register inverted between calls, so 0 starts and results chain. */
	crc = ~crc;
	while (len--) {
		crc ^= *s++;
		crc = (crc >> 4) ^ crc_nibble[crc & 15];
		crc = (crc >> 4) ^ crc_nibble[crc & 15];
	}
	return ~crc;
}
