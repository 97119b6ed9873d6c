/* CRC-32 (IEEE 802.3, reflected, polynomial 0xedb88320): the checksum zlib.crc32() computes. */
#ifndef LIB_CRC32_H
#define LIB_CRC32_H

#include "lib/types.h"

/* Continues crc (0 to start) over len bytes at p; the result of one call feeds the next. */
u32 crc32_ieee(u32 crc, const void *p, size_t len);

#endif
