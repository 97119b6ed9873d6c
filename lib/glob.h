/* Shell-style wildcard matching for function-name filters ("sched*", "*_lock", "[Ss]y[Ss]_*"). */
#ifndef LIB_GLOB_H
#define LIB_GLOB_H

#include "lib/types.h"

bool glob_match(const char *pat, const char *str);
bool glob_valid(const char *pat);

/*
 * Most filters are a literal with a star at one or both ends. Classifying a
 * pattern once lets a filter write over thousands of function names use a
 * plain compare instead of the general matcher, as Linux's ftrace does.
 */
enum glob_kind {
	GLOB_FULL,   /* "abc": no wildcards, the whole name must equal it */
	GLOB_FRONT,  /* "abc*": the name starts with the needle */
	GLOB_END,    /* "*abc": the name ends with the needle */
	GLOB_MIDDLE, /* "*abc*": the name contains the needle */
	GLOB_GLOB,   /* anything else: use glob_match() */
};

enum glob_kind glob_classify(const char *pat, const char **needle, size_t *needle_len);
bool glob_kind_match(enum glob_kind kind, const char *needle, size_t len, const char *pat,
		     const char *str);

#endif
