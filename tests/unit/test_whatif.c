/*
 * test_whatif.c: the grammar of `perfstudy whatif`'s CHANGEs (whatif.h),
 * a table of arguments and what each must parse to, or the words that say
 * what was expected instead.
 */
#include <stdlib.h>

#include "analyze/replay/whatif.h"
#include "check.h"

struct ok_case {
	const char *arg;
	int kind;
	double factor;
	const char *pattern; /* NULL: none */
	int64_t rank;
};

static const struct ok_case oks[] = {
	{"collectives=0.5", WI_COLLECTIVES, 0.5, NULL, -1},
	{"collectives=0", WI_COLLECTIVES, 0, NULL, -1},
	{"collectives=.25", WI_COLLECTIVES, 0.25, NULL, -1},
	{"collectives=1000", WI_COLLECTIVES, 1000, NULL, -1},
	{"host=2", WI_HOST, 2, NULL, -1},
	{"host=1e-1", WI_HOST, 0.1, NULL, -1},
	{"kernels:nvjet*=0.5", WI_KERNELS, 0.5, "nvjet*", -1},
	{"kernels:a=b=0", WI_KERNELS, 0, "a=b", -1},      /* the last '=' ends the pattern */
	{"kernels:*[Gg]emm*=3", WI_KERNELS, 3, "*[Gg]emm*", -1},
	{"gaps=0", WI_GAPS, 1, NULL, -1},
	{"gaps=0.0", WI_GAPS, 1, NULL, -1},
	{"data-loading=0", WI_DATA_LOADING, 1, NULL, -1},
	{"syncs=0", WI_SYNCS, 1, NULL, -1},
	{"rank=0:median", WI_RANK_MEDIAN, 1, NULL, 0},
	{"rank=12:median", WI_RANK_MEDIAN, 1, NULL, 12},
	{"roofline:aten::mm=0.8", WI_ROOFLINE, 0.8, "aten::mm", -1},
	{"roofline:*=1", WI_ROOFLINE, 1, "*", -1},
};

struct bad_case {
	const char *arg;
	const char *why;
};

#define ONE_OF "collectives=X, kernels:PATTERN=X, roofline:OP=F, host=X, gaps=0, data-loading=0, syncs=0 or rank=R:median"

static const struct bad_case bads[] = {
	{"collectives", "expected CHANGE=VALUE, one of " ONE_OF},
	{"", "expected CHANGE=VALUE, one of " ONE_OF},
	{"collectives=", "expected collectives=X, X a number from 0 to 1000"},
	{"collectives=fast", "expected collectives=X, X a number from 0 to 1000"},
	{"collectives=-0.5", "expected collectives=X, X a number from 0 to 1000"},
	{"collectives=1001", "expected collectives=X, X a number from 0 to 1000"},
	{"collectives=0x10", "expected collectives=X, X a number from 0 to 1000"},
	{"collectives=nan", "expected collectives=X, X a number from 0 to 1000"},
	{"collectives=inf", "expected collectives=X, X a number from 0 to 1000"},
	{"collectives= 1", "expected collectives=X, X a number from 0 to 1000"},
	{"collectives=0.5x", "expected collectives=X, X a number from 0 to 1000"},
	{"host=0", "expected host=X, X a number above 0, at most 1000"},
	{"kernels:=1", "expected kernels:PATTERN=X with a PATTERN (fnmatch, e.g. 'nvjet*')"},
	{"kernels:x=", "expected kernels:PATTERN=X, X a number from 0 to 1000"},
	{"roofline:=0.5", "expected roofline:OP=F with an operator pattern OP (fnmatch, e.g. 'aten::mm')"},
	{"roofline:aten::mm=0", "expected roofline:OP=F, F the fraction of its roofline the operator reaches, above 0, "
				"at most 1"},
	{"roofline:aten::mm=1.5", "expected roofline:OP=F, F the fraction of its roofline the operator reaches, above "
				  "0, at most 1"},
	{"gaps=1", "expected gaps=0 (taken out: the only value this change takes)"},
	{"syncs=0.5", "expected syncs=0 (taken out: the only value this change takes)"},
	{"data-loading=free", "expected data-loading=0 (taken out: the only value this change takes)"},
	{"rank=1", "expected rank=R:median, R a rank of the run"},
	{"rank=-1:median", "expected rank=R:median, R a rank of the run"},
	{"rank=1:mean", "expected rank=R:median, R a rank of the run"},
	{"rank=99999999999:median", "expected rank=R:median, R a rank of the run"},
	{"Collectives=0.5", "unknown change 'Collectives': expected one of " ONE_OF},
	{"kernel:x=1", "unknown change 'kernel:x': expected one of " ONE_OF},
};

int main(void)
{
	for (size_t i = 0; i < sizeof(oks) / sizeof(oks[0]); i++) {
		struct whatif_change c;
		char *why;
		int rc = whatif_parse(oks[i].arg, 7, &c, &why);
		CHECK_INT(rc, 0);
		CHECK(why == NULL);
		if (rc)
			fprintf(stderr, "  %s: %s\n", oks[i].arg, why ? why : "");
		CHECK_INT(c.kind, oks[i].kind);
		CHECK(c.factor == oks[i].factor);
		if (oks[i].pattern)
			CHECK_STR(c.pattern, oks[i].pattern);
		else
			CHECK(c.pattern == NULL);
		CHECK_INT(c.rank, oks[i].rank);
		CHECK_INT(c.position, 7);
		CHECK(c.arg == oks[i].arg);
		whatif_change_release(&c);
		free(why);
	}
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		struct whatif_change c;
		char *why;
		CHECK_INT(whatif_parse(bads[i].arg, 3, &c, &why), -1);
		CHECK_STR(why, bads[i].why);
		CHECK(c.pattern == NULL);
		whatif_change_release(&c);
		free(why);
	}
	return check_result("test_whatif");
}
