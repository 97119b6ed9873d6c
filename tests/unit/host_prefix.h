/*
 * Force-included (gcc -include) when the lib/ sources and the tests/unit/test_
 * files are built for the host, and only then.
 *
 * lib/ defines memcpy, strlen, snprintf... under their standard names, as the
 * kernel needs. In a host program those names belong to libc, and ASan
 * intercepts them too, so linking ours in would clash or, worse, silently
 * test glibc instead. Renaming every libc name lib/ defines to lib_<name>,
 * in both the definitions and the tests that call them, keeps the two
 * apart: the tests call our code, and libc and ASan keep their own.
 * Only ktest_host.c, which prints the KTAP report with libc's stdio, is
 * built without this header. The test files include no libc headers.
 *
 * Add a line here whenever lib/ gains a function that libc also has.
 */
#define memcpy lib_memcpy
#define memmove lib_memmove
#define memset lib_memset
#define memcmp lib_memcmp
#define strlen lib_strlen
#define strnlen lib_strnlen
#define strcmp lib_strcmp
#define strncmp lib_strncmp
#define strchr lib_strchr
#define strrchr lib_strrchr
#define strstr lib_strstr
#define strerror lib_strerror
#define snprintf lib_snprintf
#define vsnprintf lib_vsnprintf
#define bsearch lib_bsearch
/* Not (yet) in lib/, renamed ahead so a later addition cannot silently test libc's. */
#define memchr lib_memchr
#define strcpy lib_strcpy
#define strncpy lib_strncpy
#define strcat lib_strcat
#define strncat lib_strncat
#define strlcpy lib_strlcpy
#define strlcat lib_strlcat
#define strspn lib_strspn
#define strcspn lib_strcspn
#define strpbrk lib_strpbrk
#define strsep lib_strsep
#define sprintf lib_sprintf
#define vsprintf lib_vsprintf
#define qsort lib_qsort
