/* Memory and string routines, plus Linux's kstrto*() number parsers. */
#ifndef LIB_STRING_H
#define LIB_STRING_H

#include "lib/types.h"

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

size_t strlen(const char *s);
char *strcpy(char *dst, const char *src);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strstr(const char *haystack, const char *needle);
ssize_t strscpy(char *dst, const char *src, size_t size);
size_t strspn(const char *s, const char *accept);
size_t strcspn(const char *s, const char *reject);
char *strsep(char **sp, const char *delim);

char *skip_spaces(const char *s);
char *strim(char *s);

int kstrtoull(const char *s, unsigned int base, unsigned long long *res);
int kstrtoll(const char *s, unsigned int base, long long *res);
int kstrtoul(const char *s, unsigned int base, unsigned long *res);
int kstrtol(const char *s, unsigned int base, long *res);
int kstrtou64(const char *s, unsigned int base, u64 *res);
int kstrtouint(const char *s, unsigned int base, unsigned int *res);
int kstrtoint(const char *s, unsigned int base, int *res);

#endif
