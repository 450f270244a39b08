/*
 * test_util.c: SHA-256 against the FIPS 180-4 / NIST test vectors, the
 * growable buffer, microsecond text to integer nanoseconds, tables, the
 * escaping of control characters in diagnostics, the one JSON string
 * writer, figure names from ids, and fs_commit_tmp.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/table.h"
#include "check.h"
#include "ingest/ingest.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/fs.h"
#include "util/intmap.h"
#include "util/buf.h"
#include "util/sha256.h"
#include "util/xalloc.h"

static void sha(const void *p, size_t n, char out[65])
{
	struct sha256 s;
	sha256_init(&s);
	sha256_update(&s, p, n);
	sha256_final_hex(&s, out);
}

static void test_sha256(void)
{
	char h[65];
	sha("", 0, h);
	CHECK_STR(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha("abc", 3, h);
	CHECK_STR(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	sha(m, strlen(m), h);
	CHECK_STR(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* One million 'a', fed in uneven pieces to exercise the block buffer. */
	char *a = xmalloc(1000000);
	memset(a, 'a', 1000000);
	struct sha256 s;
	sha256_init(&s);
	size_t off = 0, step = 1;
	while (off < 1000000) {
		size_t n = step < 1000000 - off ? step : 1000000 - off;
		sha256_update(&s, a + off, n);
		off += n;
		step = step * 3 % 997 + 1;
	}
	sha256_final_hex(&s, h);
	CHECK_STR(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
	/* 100003 bytes that differ from block to block (the top byte of each
	 * step of the LCG x = 1103515245 x + 12345 mod 2^32 from x = 1), whose
	 * digest is Python's hashlib.sha256 of the same bytes; with the CPU's
	 * SHA extensions where it has them, and with the portable C. */
	unsigned char *v = xmalloc(100003);
	uint32_t x = 1;
	for (size_t i = 0; i < 100003; i++) {
		x = x * 1103515245u + 12345u;
		v[i] = (unsigned char)(x >> 24);
	}
	for (int ext = 1; ext >= 0; ext--) {
		int was = sha256_use_cpu_extensions(ext);
		sha(v, 100003, h);
		CHECK_STR(h, "107b0ff39484c5e0d7af7710a57dfe8318ad9e22cc9bcb93dea5b38511e80fac");
		sha("abc", 3, h);
		CHECK_STR(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
		sha256_use_cpu_extensions(was);
	}
	free(v);
}

static void test_buf(void)
{
	struct buf b;
	buf_init(&b);
	for (int i = 0; i < 1000; i++)
		buf_printf(&b, "%d,", i);
	CHECK_INT(b.len, 3890);
	CHECK(!strncmp(b.data, "0,1,2,", 6));
	char *p = buf_detach(&b);
	CHECK(b.data == NULL);
	buf_release(&b);
	free(p);
}

static void test_us_to_ns(void)
{
	static const struct {
		const char *text;
		int ok;
		int64_t ns;
	} cases[] = {
		{"4443677150109.176", 1, 4443677150109176},
		{"1712195495505582.988", 1, 1712195495505582988},
		{"0", 1, 0},
		{"10.5", 1, 10500},
		{"3.3335", 1, 3334},  /* 3333.5 ns rounds half up */
		{"2.9995", 1, 3000},
		{"0.0005", 1, 1},
		{"0.0004999", 1, 0},
		{"-1.5", 1, -1500},
		{"-0.0005", 1, -1},   /* half away from zero */
		{"1e1", 1, 10000},
		{"1.5E+3", 1, 1500000},
		{"25e-4", 1, 3},      /* 2.5 ns */
		{"9223372036854775.807", 1, INT64_MAX},
		{"9223372036854775.808", 0, 0},
		{"1e300", 0, 0},
		{"", 0, 0},
		{"-", 0, 0},
		{"1.2.3", 0, 0},
		{"12a", 0, 0},
		{"1e", 0, 0},
		{".", 0, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t ns = -42;
		int r = parse_us_to_ns(cases[i].text, strlen(cases[i].text), &ns);
		if (cases[i].ok) {
			CHECK_INT(r, 0);
			CHECK_INT(ns, cases[i].ns);
		} else {
			CHECK_INT(r, -1);
		}
	}
}

static void test_table(void)
{
	struct table *t = table_new("t", "title", "name:text,n:int,time_us:us,f:frac");
	CHECK_INT(t->ncols, 4);
	CHECK_INT(t->cols[2].type, COL_US);
	size_t r = table_add_row(t);
	table_set_text(t, r, 0, "x");
	table_set_int(t, r, 1, -7);
	table_set_ns(t, r, 2, -1234567);
	struct buf b;
	buf_init(&b);
	table_format_cell(t, r, 2, &b);
	CHECK_STR(b.data, "-1234.567");
	buf_reset(&b);
	table_format_cell(t, r, 3, &b);
	CHECK_STR(b.data, ""); /* null cell */
	buf_reset(&b);
	format_ns_as_us(5, &b);
	CHECK_STR(b.data, "0.005");
	buf_release(&b);
	CHECK_INT(table_col_index(t, "f"), 3);
	CHECK_INT(table_col_index(t, "nope"), -1);
	/* texts are kept once a table: equal cells share one copy, through the pool's growth; overwriting works */
	char name[32];
	for (int i = 0; i < 1000; i++) {
		size_t row = table_add_row(t);
		snprintf(name, sizeof(name), "rank %d", i % 50);
		table_set_text(t, row, 0, name);
	}
	CHECK_STR(table_cell(t, 1, 0)->v.text, "rank 0");
	CHECK(table_cell(t, 1, 0)->v.text == table_cell(t, 51, 0)->v.text);
	CHECK_STR(table_cell(t, 1000, 0)->v.text, "rank 49");
	CHECK_INT(t->npool, 51); /* "x" and 50 names */
	table_set_text(t, 1, 0, "other");
	CHECK_STR(table_cell(t, 1, 0)->v.text, "other");
	CHECK_STR(table_cell(t, 51, 0)->v.text, "rank 0");
	table_free(t);
}

/* What diag prints for a name: never a raw control character, a forged line or a bad byte. */
/*
 * A long table: rows beyond TABLE_WINDOW_ROWS go to the scratch file and
 * come back the same, read in order, at random, and changed after they left
 * memory (write-back of a block when it is reused). Each value is a function
 * of its row, so the expected value is computed here, not read back.
 */
static void test_table_spill(void)
{
	struct table *t = table_new("long", "title", "run:text,row:int,t_us:us,f:real");
	size_t n = 5 * TABLE_WINDOW_ROWS + 123;
	char name[32];
	for (size_t i = 0; i < n; i++) {
		size_t r = table_add_row(t);
		CHECK(r == i);
		snprintf(name, sizeof(name), "run %zu", i % 7);
		table_set_text(t, r, 0, name);
		table_set_int(t, r, 1, (int64_t)i);
		if (i % 3)
			table_set_ns(t, r, 2, (int64_t)i * 1000 - 5);
		table_set_real(t, r, 3, (double)i / 8);
	}
	CHECK_INT(t->nrows, n);
	CHECK(t->first > 0 && t->first % TABLE_BLOCK_ROWS == 0); /* rows did leave memory */
	CHECK(t->nrows - t->first <= TABLE_WINDOW_ROWS);
	size_t bad = 0;
	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "run %zu", i % 7);
		const struct cell *c0 = table_cell(t, i, 0), *c1 = table_cell(t, i, 1), *c2 = table_cell(t, i, 2);
		const struct cell *c3 = table_cell(t, i, 3);
		bad += strcmp(c0->v.text, name) != 0 || c1->v.i != (int64_t)i || c3->v.f != (double)i / 8;
		bad += (i % 3) ? (c2->null || c2->v.i != (int64_t)i * 1000 - 5) : !c2->null;
	}
	CHECK_INT(bad, 0);
	/* change every 97th row, then read in a scattered order that reuses every block buffer */
	for (size_t i = 0; i < n; i += 97)
		table_set_int(t, i, 1, -(int64_t)i);
	bad = 0;
	for (size_t k = 0; k < n; k++) {
		size_t i = (k * 7919) % n;
		int64_t want = i % 97 ? (int64_t)i : -(int64_t)i;
		bad += table_cell(t, i, 1)->v.i != want;
	}
	CHECK_INT(bad, 0);
	/* a pointer into a spilled row stays valid for TABLE_CELL_RING - 1 more calls */
	const struct cell *keep = table_cell(t, 5, 1);
	for (int k = 0; k < TABLE_CELL_RING - 1; k++)
		(void)table_cell(t, (size_t)(k * 2000) % n, 2);
	CHECK_INT(keep->v.i, 5);
	struct buf b;
	buf_init(&b);
	table_format_cell(t, 4, 2, &b);
	CHECK_STR(b.data, "3.995");
	buf_release(&b);
	CHECK_INT(t->npool, 7);
	table_free(t);
}

static void test_escape(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{"gemm_fp16", "gemm_fp16"},
		{"k\nperfstudy: wrote site/index.html", "k\\nperfstudy: wrote site/index.html"},
		{"a\rb\tc", "a\\rb\\tc"},
		{"\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"},
		{"del\x7f", "del\\x7f"},
		{"back\\slash", "back\\slash"},
		{"caf\xc3\xa9 \xe2\x90\x80 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x90\x80 \xf0\x9f\x98\x80"}, /* UTF-8 kept */
		{"c1 \xc2\x9b", "c1 \\u009b"},              /* U+009B, CSI */
		{"lone \x9b", "lone \\x9b"},                 /* not UTF-8 */
		{"overlong \xc0\xaf", "overlong \\xc0\\xaf"},
		{"surrogate \xed\xa0\x80", "surrogate \\xed\\xa0\\x80"},
		{"cut \xe2\x90", "cut \\xe2\\x90"},       /* a sequence cut short (%.80s) */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = diag_escape(cases[i].in);
		CHECK_STR(got, cases[i].want);
		free(got);
	}
}

/* util/buf.h json_add_*: every byte string becomes a JSON string; bytes that are not UTF-8 as \ufffd, one each. */
static void test_json_str(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{"run", "\"run\""},
		{"q\"b\\", "\"q\\\"b\\\\\""},
		{"a\nb\tc\rd", "\"a\\nb\\tc\\rd\""},
		{"\x1b[2J\x7f", "\"\\u001b[2J\\u007f\""},
		{"run\xff", "\"run\\ufffd\""},
		{"caf\xc3\xa9 \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xf0\x9f\x98\x80\""}, /* UTF-8 kept */
		{"overlong \xc0\xaf", "\"overlong \\ufffd\\ufffd\""},
		{"surrogate \xed\xa0\x80", "\"surrogate \\ufffd\\ufffd\\ufffd\""},
		{"cut \xe2\x90", "\"cut \\ufffd\\ufffd\""},
		{"ls \xe2\x80\xa8", "\"ls \\u2028\""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf b;
		buf_init(&b);
		json_add_str(&b, cases[i].in);
		buf_addc(&b, '\0');
		CHECK_STR(b.data, cases[i].want);
		buf_release(&b);
	}
	struct buf b;
	buf_init(&b);
	json_add_escaped(&b, "a\0b", 3); /* a NUL inside */
	buf_addc(&b, '\0');
	CHECK_STR(b.data, "a\\u0000b");
	buf_release(&b);
	struct buf n;
	buf_init(&n);
	json_add_str(&n, NULL);
	buf_addc(&n, '\0');
	CHECK_STR(n.data, "\"\"");
	buf_release(&n);
}

/* fs_figure_name: prefix, the id's stem, suffix; ids that differ in case or punctuation get different names. */
static void test_figure_name(void)
{
	static const char *const ids[] = {"UP", "up", "a.b", "a_b", "a b", "a-b"};
	char *names[sizeof(ids) / sizeof(ids[0])];
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		names[i] = fs_figure_name("memory_timeline_", ids[i], NULL);
		CHECK(!strncmp(names[i], "memory_timeline_", 16));
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(names[i], names[j]) != 0);
	}
	CHECK_STR(names[1], "memory_timeline_up");
	CHECK_STR(names[5], "memory_timeline_a-b");
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		free(names[i]);
	char *k = fs_figure_name("top_kernels_", "up", "_r3");
	CHECK_STR(k, "top_kernels_up_r3");
	free(k);
	char id[301];
	memset(id, 'x', 300);
	id[300] = '\0';
	char *l = fs_figure_name("step_timeline_", id, NULL);
	CHECK(strlen(l) == 14 + 64 + 17); /* 64 bytes of the id, '_' and 16 hex digits: a file name under 255 */
	free(l);
}

/* intmap: indexes in order of first sight, through growth, negative and 64-bit keys, absent keys. */
static void test_intmap(void)
{
	struct intmap m = {0};
	CHECK(intmap_get(&m, 5) == SIZE_MAX);
	size_t n = 0;
	/* 5000 keys, a stride that collides in the low bits, each seen twice */
	for (int pass = 0; pass < 2; pass++)
		for (int64_t i = 0; i < 5000; i++) {
			int64_t key = (i - 2500) * 4096;
			size_t got = intmap_index(&m, key, n);
			if (pass == 0) {
				CHECK_INT(got, n);
				n++;
			} else {
				CHECK_INT(got, i);
			}
		}
	CHECK_INT(m.n, 5000);
	CHECK_INT(intmap_get(&m, -2500 * 4096), 0);
	CHECK_INT(intmap_get(&m, 2499 * 4096), 4999);
	CHECK(intmap_get(&m, 1) == SIZE_MAX);
	CHECK_INT(intmap_index(&m, INT64_MAX, n), 5000);
	CHECK_INT(intmap_index(&m, INT64_MIN, n + 1), 5001);
	CHECK_INT(intmap_get(&m, INT64_MAX), 5000);
	intmap_free(&m);
	CHECK(m.cap == 0 && intmap_get(&m, 0) == SIZE_MAX);
}

/* The contents of path (at most 63 bytes), "" when it cannot be read. */
static const char *slurp(const char *path, char out[64])
{
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(out, 1, 63, f) : 0;
	if (f)
		fclose(f);
	out[n] = 0;
	return out;
}

static void test_commit_tmp(void)
{
	/*
	 * A write that went well lands at path and leaves no tmp; one that
	 * failed (err ENOSPC) leaves the previous file at path, no tmp, and
	 * says "<tmp>: cannot write: No space left on device".
	 */
	char dir[] = "/tmp/test_util.XXXXXX", got[64];
	CHECK(mkdtemp(dir) != NULL);
	char *path = xasprintf("%s/f", dir), *tmp = xasprintf("%s/f.tmp", dir);
	FILE *f = fopen(tmp, "wb");
	CHECK(f != NULL);
	fputs("one", f);
	CHECK_INT(fs_commit_tmp(f, tmp, path, 0), 0);
	CHECK_STR(slurp(path, got), "one");
	CHECK(access(tmp, F_OK) != 0);
	f = fopen(tmp, "wb");
	fputs("two", f);
	fprintf(stderr, "test_util: one error expected below\n");
	CHECK_INT(fs_commit_tmp(f, tmp, path, ENOSPC), -1);
	CHECK_STR(slurp(path, got), "one");
	CHECK(access(tmp, F_OK) != 0);
	diag_reset();
	unlink(path);
	rmdir(dir);
	free(path);
	free(tmp);
}

int main(void)
{
	test_sha256();
	test_buf();
	test_us_to_ns();
	test_table();
	test_table_spill();
	test_escape();
	test_json_str();
	test_figure_name();
	test_intmap();
	test_commit_tmp();
	return check_result("test_util");
}
