/*
 * lib/glob.c against the C library's fnmatch(3), flags 0: both read '*', '?', '[...]' (with
 * '!' or '^' negating, ']' first literal, ranges by byte value) and '\' escapes the same way,
 * so on every pattern both accept they must agree. And glob_classify()'s fast paths must
 * answer exactly as glob_match() does, as glob.h promises.
 *
 * Input: PATTERN '\0' STRING (no NUL: the whole input is the pattern, matched against itself
 * with its first byte dropped, so the fuzzer also meets near misses).
 */
#include "tests/fuzz/fuzz.h"
#include "lib/glob.h"
#include "lib/string.h"

/*
 * Patterns where fnmatch means more than we do, left out of the comparison: POSIX's
 * "[:class:]", "[=equiv=]" and "[.coll.]" inside brackets (we read them as plain members), and
 * what glob_valid() refuses (the kernel never matches with those).
 */
static bool comparable(const char *pat)
{
	return glob_valid(pat) && !strstr(pat, "[:") && !strstr(pat, "[=") && !strstr(pat, "[.");
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	char *in = fuzz_cstr(data, size), *pat = in, *str;
	const char *needle;
	size_t len;
	enum glob_kind kind;
	bool ours;

	str = strlen(in) < size ? in + strlen(in) + 1 : (*in ? in + 1 : in);
	ours = glob_match(pat, str);
	if (comparable(pat))
		FUZZ_CHECK(ours == libc_fnmatch(pat, str), "glob_match(\"%s\", \"%s\") is %d, fnmatch %d",
			   pat, str, ours, !ours);
	kind = glob_classify(pat, &needle, &len);
	FUZZ_CHECK(glob_kind_match(kind, needle, len, pat, str) == ours,
		   "glob_kind_match (kind %d) and glob_match disagree on \"%s\", \"%s\"", kind, pat,
		   str);
	fuzz_free(in);
	return 0;
}
