/*
 * test_lowerbound.c: lower_bound (util/search.h) against hand-worked
 * cases, both strict ("elem < key": the first not less) and non-strict
 * ("elem <= key": the first greater) predicates, on duplicates, an empty
 * array, keys below and above everything, and a struct searched through
 * an index array as the critical path search does; then
 * against a linear scan for every key of small arrays.
 */
#include <stdint.h>
#include <stdlib.h>

#include "util/search.h"
#include "check.h"

static int less(const void *elem, const void *key)
{
	return *(const int64_t *)elem < *(const int64_t *)key;
}

static int less_eq(const void *elem, const void *key)
{
	return *(const int64_t *)elem <= *(const int64_t *)key;
}

static size_t lb(const int64_t *v, size_t n, int64_t key)
{
	return lower_bound(v, n, sizeof(*v), &key, less);
}

static size_t ub(const int64_t *v, size_t n, int64_t key)
{
	return lower_bound(v, n, sizeof(*v), &key, less_eq);
}

/* A row found through an index: the key carries the rows, as rank_launch_of's does. */
struct row {
	int64_t corr;
	const char *name;
};

struct by_index {
	const struct row *rows;
	int64_t corr;
};

static int row_before(const void *elem, const void *key)
{
	const struct by_index *k = key;
	return k->rows[*(const int64_t *)elem].corr < k->corr;
}

static void hand_cases(void)
{
	/* indices:           0  1  2  3  4  5  6 */
	const int64_t v[] = {1, 3, 3, 3, 5, 8, 8};
	size_t n = sizeof(v) / sizeof(v[0]);

	/* duplicates: strict lands on the first 3 (index 1), non-strict after the last (index 4) */
	CHECK_INT(lb(v, n, 3), 1);
	CHECK_INT(ub(v, n, 3), 4);
	CHECK_INT(lb(v, n, 8), 5);
	CHECK_INT(ub(v, n, 8), 7);
	/* a key between elements: both give the first greater one */
	CHECK_INT(lb(v, n, 4), 4);
	CHECK_INT(ub(v, n, 4), 4);
	CHECK_INT(lb(v, n, 6), 5);
	CHECK_INT(ub(v, n, 6), 5);
	/* a key below everything (every element greater): 0 */
	CHECK_INT(lb(v, n, 0), 0);
	CHECK_INT(ub(v, n, 0), 0);
	CHECK_INT(lb(v, n, 1), 0);
	CHECK_INT(ub(v, n, 1), 1);
	/* a key above everything (every element less): n */
	CHECK_INT(lb(v, n, 9), 7);
	CHECK_INT(ub(v, n, 9), 7);
	CHECK_INT(lb(v, n, INT64_MAX), 7);
	/* empty array, even at NULL: 0 */
	CHECK_INT(lb(NULL, 0, 3), 0);
	CHECK_INT(ub(NULL, 0, 3), 0);
	CHECK_INT(lb(v, 0, 3), 0);
	/* one element */
	CHECK_INT(lb(v, 1, 1), 0);
	CHECK_INT(ub(v, 1, 1), 1);
	/* all equal */
	const int64_t same[] = {2, 2, 2, 2};
	CHECK_INT(lb(same, 4, 2), 0);
	CHECK_INT(ub(same, 4, 2), 4);

	/* rows unsorted, idx orders them by corr: 10 (row 2), 20 (row 0), 20 (row 3), 30 (row 1) */
	const struct row rows[] = {{20, "b"}, {30, "d"}, {10, "a"}, {20, "c"}};
	const int64_t idx[] = {2, 0, 3, 1};
	struct by_index k = {rows, 20};
	size_t at = lower_bound(idx, 4, sizeof(*idx), &k, row_before);
	CHECK_INT(at, 1);
	CHECK_STR(rows[idx[at]].name, "b");
	k.corr = 25;
	CHECK_INT(lower_bound(idx, 4, sizeof(*idx), &k, row_before), 3);
	k.corr = 31;
	CHECK_INT(lower_bound(idx, 4, sizeof(*idx), &k, row_before), 4);
}

/* Every key from below to above small sorted arrays with many duplicates, against a scan. */
static void against_scan(void)
{
	srand(38);
	for (int round = 0; round < 200; round++) {
		size_t n = (size_t)(rand() % 12);
		int64_t v[12];
		for (size_t i = 0; i < n; i++)
			v[i] = (i ? v[i - 1] : 0) + rand() % 3;
		for (int64_t key = -1; key <= 25; key++) {
			size_t l = 0, u = 0;
			while (l < n && v[l] < key)
				l++;
			while (u < n && v[u] <= key)
				u++;
			CHECK_INT(lb(v, n, key), l);
			CHECK_INT(ub(v, n, key), u);
		}
	}
}

int main(void)
{
	hand_cases();
	against_scan();
	return check_result("lowerbound");
}
