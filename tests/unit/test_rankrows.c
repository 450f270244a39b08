/*
 * test_rankrows.c: rank_rows (analyze/lib/rankdata.h), a per-rank table's
 * rows by run and rank, against hand-worked cases: rows out of order, a
 * run and rank on two rows (found in table order), rows with an empty run
 * or rank (left out), runs that sort apart, a rank absent, an empty or
 * missing table; then against a scan of the table for every run and rank
 * of a larger one. And the work it does, counted (util/timing.h): the
 * table is read once to sort it, a look-up reads no cell.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/lib/rankdata.h"
#include "util/table.h"
#include "util/timing.h"
#include "check.h"

/* A row of run (NULL: empty), rank (< 0: empty) and v. */
static void add(struct table *t, const char *run, int64_t rank, int64_t v)
{
	size_t r = table_add_row(t);
	if (run)
		table_set_text(t, r, 0, run);
	if (rank >= 0)
		table_set_int(t, r, 1, rank);
	table_set_int(t, r, 2, v);
}

/* The rows rank_rows finds for (run, rank), as their v values, into got[]; their count. */
static size_t found(const struct table *t, const struct rank_rows *rr, const char *run, int64_t rank, int64_t *got)
{
	const struct rank_row_at *f;
	size_t n = rank_rows_find(rr, run, rank, &f);
	CHECK(n ? f != NULL : f == NULL);
	for (size_t i = 0; i < n; i++) {
		CHECK(!strcmp(f[i].run, run) && f[i].rank == rank);
		got[i] = table_cell(t, f[i].row, 2)->v.i;
	}
	return n;
}

static void hand_cases(void)
{
	struct table *t = table_new("t", "t", "run:text,rank:int,v:int");
	add(t, "b", 3, 0);
	add(t, "a", 1, 1);
	add(t, "b", 1, 2);
	add(t, NULL, 1, 3); /* no run: left out */
	add(t, "a", -1, 4); /* no rank: left out */
	add(t, "b", 3, 5);  /* b 3 again: after row 0 */
	add(t, "a", 0, 6);
	add(t, "ab", 1, 7);
	struct rank_rows rr;
	rank_rows_init(&rr, t, 0, 1);
	CHECK(rr.n == 6);
	int64_t got[8];
	CHECK(found(t, &rr, "b", 3, got) == 2 && got[0] == 0 && got[1] == 5);
	CHECK(found(t, &rr, "a", 1, got) == 1 && got[0] == 1);
	CHECK(found(t, &rr, "b", 1, got) == 1 && got[0] == 2);
	CHECK(found(t, &rr, "a", 0, got) == 1 && got[0] == 6);
	CHECK(found(t, &rr, "ab", 1, got) == 1 && got[0] == 7);
	CHECK(found(t, &rr, "a", 3, got) == 0);  /* a rank of another run */
	CHECK(found(t, &rr, "c", 0, got) == 0);  /* after every run */
	CHECK(found(t, &rr, "", 1, got) == 0);   /* before every run */
	CHECK(found(t, &rr, "b", 2, got) == 0);  /* between two ranks */
	CHECK(found(t, &rr, "b", -1, got) == 0); /* the empty rank is not -1 */
	/* a look-up reads no cell of the table */
	long long cells = work_count[WORK_CELLS];
	const struct rank_row_at *f;
	CHECK(rank_rows_find(&rr, "b", 3, &f) == 2);
	CHECK(work_count[WORK_CELLS] == cells);
	rank_rows_release(&rr);
	CHECK(rr.v == NULL && rr.n == 0);
	/* no table, no column, no row: nothing found */
	rank_rows_init(&rr, NULL, 0, 1);
	CHECK(rr.n == 0 && found(t, &rr, "a", 1, got) == 0);
	rank_rows_init(&rr, t, -1, 1);
	CHECK(rr.n == 0);
	table_free(t);
	t = table_new("t", "t", "run:text,rank:int,v:int");
	rank_rows_init(&rr, t, 0, 1);
	CHECK(rr.n == 0 && found(t, &rr, "a", 1, got) == 0);
	table_free(t);
}

/* Many runs and ranks, rows in a scrambled order, each (run, rank) on 3 or 4 rows: the rows a scan finds. */
static void against_scan(void)
{
	static const char *const runs[] = {"r0", "r1", "r10", "r2"};
	struct table *t = table_new("t", "t", "run:text,rank:int,v:int");
	size_t nrows = 0;
	for (int64_t i = 0; i < 3000; i++) {
		int64_t k = (i * 7919) % 3000; /* a permutation of 0 .. 2999 */
		add(t, runs[k % 4], (k / 4) % 200, i);
		nrows++;
	}
	long long cells = work_count[WORK_CELLS];
	struct rank_rows rr;
	rank_rows_init(&rr, t, 0, 1);
	CHECK(work_count[WORK_CELLS] - cells == 2 * (long long)nrows); /* run and rank of each row, once */
	CHECK(rr.n == nrows);
	int64_t got[16];
	for (size_t u = 0; u < 4; u++)
		for (int64_t rank = -1; rank <= 201; rank++) {
			size_t n = found(t, &rr, runs[u], rank, got), k = 0;
			int same = 1;
			for (size_t r = 0; r < t->nrows; r++)
				if (!strcmp(table_cell(t, r, 0)->v.text, runs[u]) && table_cell(t, r, 1)->v.i == rank)
					same &= k < n && got[k++] == table_cell(t, r, 2)->v.i;
			CHECK(same && k == n);
		}
	rank_rows_release(&rr);
	table_free(t);
}

int main(void)
{
	hand_cases();
	against_scan();
	return check_result("rankrows");
}
