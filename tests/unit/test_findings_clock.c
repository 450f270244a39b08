/*
 * test_findings_clock.c: the waiting finding's clock check
 * (findings_clock.c, issue 57 item 9) on a hand-made clock_offsets.csv.
 * Run "r": rank 0 the reference (residual 0), rank 1 20 us, rank 2 150 us,
 * rank 3 (the straggler) 300 us; crossrank warns above 100 us. Bounds by
 * hand, collectives per step x (waiter's residual + the straggler's):
 *   rank 0: 3 x (0 + 300) = 900 us, under its wait of 12 ms: trusted;
 *   rank 1: 2 x (20 + 300) = 640 us, over its wait of 500 us: not trusted;
 *   rank 2: 3 x (150 + 300) = 1350 us, under its 9 ms: trusted, the largest.
 * Run "q": every residual at most 100 us, nothing said.
 */
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/findings/findings_clock.h"
#include "check.h"
#include "util/buf.h"

int main(void)
{
	struct analysis_result res;
	memset(&res, 0, sizeof(res));
	struct table *t = table_new("clock_offsets", "clock offsets",
				    "run:text,rank:int,reference_rank:int,collectives:int,offset_us:us,residual_us:us");
	const char *runs[] = {"r", "r", "r", "r", "q", "q"};
	const int ranks[] = {0, 1, 2, 3, 0, 1};
	const int64_t residual_ns[] = {0, 20000, 150000, 300000, 0, 100000};
	for (int i = 0; i < 6; i++) {
		size_t r = table_add_row(t);
		table_set_text(t, r, 0, runs[i]);
		table_set_int(t, r, 1, ranks[i]);
		table_set_int(t, r, 2, 0);
		table_set_int(t, r, 3, 6);
		table_set_ns(t, r, 4, 0);
		table_set_ns(t, r, 5, residual_ns[i]);
	}
	result_add_table(&res, t);

	const struct clock_wait w[] = {{0, 12000, 3}, {1, 500, 2}, {2, 9000, 3}};
	struct buf s;
	buf_init(&s);
	CHECK_INT(findings_clock_words(&s, &res, "r", 3, w, 3), 1);
	CHECK(strstr(s.data, "; the clocks of rank 3 (300.0 us), rank 2 (150.0 us) leave the ends of their collectives "
			     "that far from rank 0's after their offsets") != NULL);
	CHECK(strstr(s.data, "rank 1's wait of 500 us per step (uncertain by up to 640 us) is not trusted: the clocks "
			     "alone could make it") != NULL);
	CHECK(strstr(s.data, "; the others' waits are trusted to within 1.4 ms per step (rank 2: 3.0 collectives per "
			     "step x 450.0 us), less than each wait") != NULL);

	/* below the warning's bound (100 us is not above it): nothing */
	buf_reset(&s);
	const struct clock_wait q[] = {{0, 5000, 3}};
	CHECK_INT(findings_clock_words(&s, &res, "q", 1, q, 1), 0);
	CHECK_INT(s.len, 0);
	/* a run without clock offsets: nothing */
	CHECK_INT(findings_clock_words(&s, &res, "none", 1, q, 1), 0);
	CHECK_INT(s.len, 0);
	buf_release(&s);
	analysis_result_release(&res);
	return check_result("test_findings_clock");
}
