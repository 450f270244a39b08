/*
 * fuzz_number.c: parse_us_to_ns() against long double arithmetic.
 *
 * Every Kineto time goes through parse_us_to_ns(), so a wrong digit there is
 * a silently wrong number everywhere. For any decimal text it accepts, the
 * result must be within half a nanosecond (plus long double's own error) of
 * strtold's value times 1000; text that strtold reads as a plain decimal
 * number well inside the int64 range must be accepted.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static int plain_decimal(const char *s, size_t n)
{
	int digits = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			digits++;
		else if (!strchr("+-.eE", s[i]))
			return 0;
	}
	return digits > 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 64)
		return 0;
	char s[65];
	memcpy(s, data, size);
	s[size] = '\0';
	if (strlen(s) != size || !plain_decimal(s, size))
		return 0;
	int64_t ns;
	int r = parse_us_to_ns(s, size, &ns);
	char *end;
	long double ref = strtold(s, &end) * 1000.0L;
	int full = end == s + size && isfinite(ref);
	if (r == 0) {
		if (!full) {
			fprintf(stderr, "fuzz: parse_us_to_ns accepted '%s' which is not a number\n", s);
			abort();
		}
		long double tol = 0.5L + fabsl(ref) * 1e-18L + 1e-9L;
		if (fabsl((long double)ns - ref) > tol) {
			fprintf(stderr, "fuzz: parse_us_to_ns('%s') = %lld, want %.3Lf\n", s, (long long)ns, ref);
			abort();
		}
	} else if (full && fabsl(ref) < 9.0e18L) {
		fprintf(stderr, "fuzz: parse_us_to_ns rejected '%s' (%.3Lf ns)\n", s, ref);
		abort();
	}
	return 0;
}
