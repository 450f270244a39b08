/*
 * check.h: the unit tests' one macro.
 *
 * CHECK(cond) prints file:line and the condition when it fails and counts
 * the failure; CHECK_STR and CHECK_INT show both values. A test's main()
 * returns check_result(), non-zero when anything failed.
 */
#ifndef PERFSTUDY_CHECK_H
#define PERFSTUDY_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                   \
	do {                                                                          \
		check_count++;                                                        \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			check_failures++;                                             \
		}                                                                     \
	} while (0)

#define CHECK_STR(got, want)                                                          \
	do {                                                                          \
		const char *g_ = (got), *w_ = (want);                                 \
		check_count++;                                                        \
		if (!g_ || !w_ || strcmp(g_, w_)) {                                   \
			fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__, \
				g_ ? g_ : "(null)", w_ ? w_ : "(null)");              \
			check_failures++;                                             \
		}                                                                     \
	} while (0)

#define CHECK_INT(got, want)                                                          \
	do {                                                                          \
		int64_t g_ = (int64_t)(got), w_ = (int64_t)(want);                    \
		check_count++;                                                        \
		if (g_ != w_) {                                                       \
			fprintf(stderr, "%s:%d: got %" PRId64 ", want %" PRId64 "\n", __FILE__, \
				__LINE__, g_, w_);                                    \
			check_failures++;                                             \
		}                                                                     \
	} while (0)

/*
 * The whole file at path, with a NUL after its bytes (caller frees), or
 * NULL when it cannot be opened; *len, when len is not NULL, gets its size.
 */
static inline char *check_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (len)
		*len = 0;
	if (!f)
		return NULL;
	size_t n = 0, cap = 4096, got;
	char *s = malloc(cap + 1);
	while (s && (got = fread(s + n, 1, cap - n, f)) > 0)
		if ((n += got) == cap)
			s = realloc(s, (cap *= 2) + 1);
	fclose(f);
	if (!s)
		abort();
	s[n] = '\0';
	if (len)
		*len = n;
	return s;
}

static inline int check_result(const char *name)
{
	if (check_failures)
		fprintf(stderr, "%s: %d of %d checks failed\n", name, check_failures, check_count);
	else
		printf("%s: %d checks passed\n", name, check_count);
	return check_failures != 0;
}

#endif
