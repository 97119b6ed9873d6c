/* Compiler attributes, named as Linux names them so code reads the same side by side. */
#ifndef LIB_COMPILER_H
#define LIB_COMPILER_H

/* Keep gcc's -pg from planting `call __fentry__` in this function. */
#define notrace __attribute__((no_instrument_function))
#define __noreturn __attribute__((noreturn))
#define __packed __attribute__((packed))
#define __aligned(x) __attribute__((aligned(x)))
#define __section(s) __attribute__((section(s)))
#define __used __attribute__((used))
#define __unused __attribute__((unused))
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define __always_inline inline __attribute__((always_inline))
#define noinline __attribute__((noinline))
#define __must_check __attribute__((warn_unused_result))

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define barrier() __asm__ __volatile__("" ::: "memory")
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

/* The address of the code here (Linux's _THIS_IP_): where a lock is taken, for the validator's
 * "at: func+off/size"; the ip a trace_printk() record names. */
#define _THIS_IP_                                                                                  \
	({                                                                                         \
		unsigned long __ip;                                                                \
		__asm__ volatile("lea 0(%%rip), %0" : "=r"(__ip));                                 \
		__ip;                                                                              \
	})

/* The address the current function returns to: its caller's (Linux's _RET_IP_). */
#define _RET_IP_ ((unsigned long)__builtin_return_address(0))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN(x, a) (((x) + ((a)-1)) & ~((__typeof__(x))(a)-1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a)-1))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#ifndef offsetof
#define offsetof(type, member) __builtin_offsetof(type, member)
#endif
/* Text of a macro's expansion: __stringify(TASK_COMM_LEN) is "16". */
#define __stringify_1(x...) #x
#define __stringify(x...) __stringify_1(x)
/* Whether a type is signed, for the format files' signed: column (pointers count as unsigned). */
#define is_signed_type(type) (((type)(-1)) < (type)1)
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - __builtin_offsetof(type, member)))

#endif
