/* whatif_change.c: the grammar of a what-if CHANGE (whatif_change.h). */
#include "manifest/whatif_change.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static const char EXPECTED[] = "collectives=X, kernels:PATTERN=X, roofline:OP=F, host=X, gaps=0, data-loading=0, "
			       "syncs=0 or rank=R:median";

/* A factor from text: 0, or -1 when it is not a plain decimal number in [0, WHATIF_MAX_FACTOR]. */
static int factor(const char *t, double *v)
{
	char *end;
	if (!((*t >= '0' && *t <= '9') || *t == '.') || strpbrk(t, "xX"))
		return -1;
	errno = 0;
	*v = strtod(t, &end);
	return *end || errno || !isfinite(*v) || *v < 0 || *v > WHATIF_MAX_FACTOR ? -1 : 0;
}

int whatif_parse(const char *arg, int position, struct whatif_change *c, char **why)
{
	*c = (struct whatif_change){.arg = arg, .position = position, .factor = 1.0, .rank = -1};
	*why = NULL;
	const char *eq = strrchr(arg, '=');
	if (!eq) {
		*why = xasprintf("expected CHANGE=VALUE, one of %s", EXPECTED);
		return -1;
	}
	size_t klen = (size_t)(eq - arg);
	const char *val = eq + 1;
	static const struct {
		const char *key;
		int kind;
	} zero_only[] = {{"gaps", WI_GAPS}, {"data-loading", WI_DATA_LOADING}, {"syncs", WI_SYNCS}};
	for (size_t i = 0; i < sizeof(zero_only) / sizeof(zero_only[0]); i++)
		if (strlen(zero_only[i].key) == klen && !strncmp(arg, zero_only[i].key, klen)) {
			double v;
			c->kind = zero_only[i].kind;
			if (factor(val, &v) < 0 || v != 0)
				*why = xasprintf("expected %s=0 (taken out: the only value this change takes)", zero_only[i].key);
			return *why ? -1 : 0;
		}
	if ((klen == 11 && !strncmp(arg, "collectives", 11)) || (klen == 4 && !strncmp(arg, "host", 4))) {
		c->kind = klen == 4 ? WI_HOST : WI_COLLECTIVES;
		if (factor(val, &c->factor) < 0 || (c->kind == WI_HOST && c->factor == 0))
			*why = xasprintf("expected %.*s=X, X a number %s %.0f", (int)klen, arg,
					 c->kind == WI_HOST ? "above 0, at most" : "from 0 to", WHATIF_MAX_FACTOR);
		return *why ? -1 : 0;
	}
	if (!strncmp(arg, "kernels:", 8)) {
		c->kind = WI_KERNELS;
		if (klen == 8)
			*why = xstrdup("expected kernels:PATTERN=X with a PATTERN (fnmatch, e.g. 'nvjet*')");
		else if (factor(val, &c->factor) < 0)
			*why = xasprintf("expected kernels:PATTERN=X, X a number from 0 to %.0f", WHATIF_MAX_FACTOR);
		else
			c->pattern = xstrndup(arg + 8, klen - 8);
		return *why ? -1 : 0;
	}
	if (!strncmp(arg, "roofline:", 9)) {
		c->kind = WI_ROOFLINE;
		if (klen == 9)
			*why = xstrdup("expected roofline:OP=F with an operator pattern OP (fnmatch, e.g. 'aten::mm')");
		else if (factor(val, &c->factor) < 0 || c->factor <= 0 || c->factor > 1)
			*why = xstrdup("expected roofline:OP=F, F the fraction of its roofline the operator reaches, "
				       "above 0, at most 1");
		else
			c->pattern = xstrndup(arg + 9, klen - 9);
		return *why ? -1 : 0;
	}
	if (!strncmp(arg, "rank=", 5)) {
		/* rank=R:median: the '=' is the first one */
		char *end;
		const char *r = arg + 5;
		c->kind = WI_RANK_MEDIAN;
		errno = 0;
		long long v = r[0] >= '0' && r[0] <= '9' ? strtoll(r, &end, 10) : -1;
		if (v < 0 || errno || v > INT32_MAX || strcmp(end, ":median"))
			*why = xstrdup("expected rank=R:median, R a rank of the run");
		else
			c->rank = v;
		return *why ? -1 : 0;
	}
	*why = xasprintf("unknown change '%.*s': expected one of %s", (int)klen, arg, EXPECTED);
	return -1;
}

void whatif_change_release(struct whatif_change *c)
{
	free(c->pattern);
	c->pattern = NULL;
}
