/*
 * test_formats_nvidia.c: the pieces of the nsys, nvprof and .nvvp readers
 * that can be checked without a file: decimal text in any unit to integer
 * ns, CUPTI's enumerations, Kineto-style copy names, detection. Expected
 * values worked out by hand.
 */
#include <stdlib.h>

#include "check.h"
#include "ingest/demangle.h"
#include "ingest/ingest.h"
#include "ingest/sqlitedb.h"
#include "util/buf.h"

static void test_parse_scaled(void)
{
	static const struct {
		const char *text;
		int scale;
		int ret;
		int64_t want;
	} cases[] = {
		{"1.183779", 9, 0, 1183779000},      /* nvprof Start in s */
		{"0.000992", 6, 0, 992},             /* Duration in ms */
		{"3.0005", 3, 0, 3001},              /* us, half a ns rounds away from zero */
		{"-3.0005", 3, 0, -3001},
		{"268.352834", 6, 0, 268352834},     /* summary Time in ms */
		{"500", 0, 0, 500},                  /* ns */
		{"1500", -3, 0, 2},                  /* ns to us: 1.5 rounds to 2 */
		{"1.5", -3, 0, 0},                   /* 0.0015 rounds to 0 */
		{"0.000019", 6, 0, 19},              /* MB text in millionths */
		{"9223372036.854775807", 9, 0, INT64_MAX},
		{"9223372036.854775808", 9, -1, 0},  /* one past int64 */
		{"1e3", 0, 0, 1000},
		{"", 9, -1, 0},
		{"1.2.3", 9, -1, 0},
		{"12ms", 6, -1, 0},                  /* the unit lives in the units row, never in the cell */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t v = 0;
		int r = parse_decimal_scaled(cases[i].text, strlen(cases[i].text), cases[i].scale, &v);
		CHECK_INT(r, cases[i].ret);
		if (!r)
			CHECK_INT(v, cases[i].want);
	}
}

static void test_cupti_names(void)
{
	CHECK_STR(cupti_copy_kind(1), "HtoD");
	CHECK_STR(cupti_copy_kind(2), "DtoH");
	CHECK_STR(cupti_copy_kind(8), "DtoD");
	CHECK_STR(cupti_copy_kind(10), "PtoP");
	CHECK(cupti_copy_kind(0) == NULL);
	CHECK(cupti_copy_kind(11) == NULL);
	CHECK(cupti_copy_kind(-1) == NULL);
	struct buf b;
	buf_init(&b);
	cupti_memcpy_name(&b, "HtoD", 1, 3);
	CHECK_STR(b.data, "Memcpy HtoD (Pageable -> Device)"); /* as Kineto names it */
	buf_reset(&b);
	cupti_memcpy_name(&b, "DtoH", 3, 2);
	CHECK_STR(b.data, "Memcpy DtoH (Device -> Pinned)");
	buf_reset(&b);
	cupti_memcpy_name(&b, NULL, -1, -1);
	CHECK_STR(b.data, "Memcpy Unknown");
	buf_reset(&b);
	cupti_memset_name(&b, 3);
	CHECK_STR(b.data, "Memset (Device)");
	buf_reset(&b);
	cupti_memset_name(&b, -1);
	CHECK_STR(b.data, "Memset");
	buf_release(&b);
}

static void test_demangle(void)
{
	char *d = demangle("_Z11gemm_kernelIfEvPfi");
	CHECK_STR(d, "void gemm_kernel<float>(float*, int)");
	free(d);
	CHECK(demangle("gemm_kernel") == NULL);
	CHECK(demangle("_Zgarbage") == NULL);
	CHECK(demangle("") == NULL);
}

static void test_detect(void)
{
	size_t n;
	const struct reader *const *rd = ingest_readers(&n);
	const struct reader *nvprof = NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rd[i]->name, "nvprof"))
			nvprof = rd[i];
	CHECK(nvprof != NULL);
	if (!nvprof)
		return;
	static const struct {
		const char *head;
		int want;
	} cases[] = {
		{"==1== NVPROF is profiling process 1\n==1== Profiling result:\n\"Start\",\"Duration\",\"Grid X\"\n", 1},
		{"\"Type\",\"Time(%)\",\"Time\",\"Calls\"\n", 1},
		{"==1== Profiling result:\r\n\"Time(%)\",\"Time\",\"Calls\"\r\n", 1},
		{"==PROF== Connected to process 1\n\"ID\",\"Process ID\"\n", 0}, /* Nsight Compute */
		{"{\"traceEvents\": []}", 0},
		{"==1== only a preamble\n", 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_INT(nvprof->detect(cases[i].head, strlen(cases[i].head)), cases[i].want);
	CHECK(sdb_magic("SQLite format 3\0xyz", 19));
	CHECK(!sdb_magic("SQLite format 3", 15));
}

int main(void)
{
	test_parse_scaled();
	test_cupti_names();
	test_demangle();
	test_detect();
	return check_result("test_formats_nvidia");
}
