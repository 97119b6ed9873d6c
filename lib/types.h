/* Fixed-width integer names shared by the kernel, lib/ and the host unit tests. */
#ifndef LIB_TYPES_H
#define LIB_TYPES_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;

#ifndef __ssize_t_defined
typedef long ssize_t;
#define __ssize_t_defined
#endif
#ifndef __pid_t_defined
typedef int pid_t;
#define __pid_t_defined
#endif

#endif
