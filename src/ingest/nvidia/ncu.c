/*
 * ncu.c: Nsight Compute CSV (`ncu --csv`, details page) into kernel metrics.
 *
 * The details page has one row per kernel launch and metric: launch ID,
 * process, kernel name, (older ncu: "Kernel Time", a wall-clock date;
 * newer: "Block Size", "Grid Size", "Device", "CC"), section, metric name,
 * unit and value, and optional rule columns. The profiler's own lines
 * (==PROF==, ==WARNING==, ==ERROR==) may come before or between the rows.
 * Values carry thousands separators ("70,391,808") and units that ncu picks
 * per value (byte, Kbyte, Mbyte; ns, usecond, ...), or are "n/a".
 *
 * Per launch we keep what the FLOP and memory analyses need: FLOPs per
 * precision = add + mul + 2 * fma thread instructions executed (the
 * smsp__ or sm__ sass_thread_inst_executed_op_{f,h,d}{add,mul,fma}_pred_on.sum
 * metrics; an FMA is two floating-point operations), dram__bytes.sum and
 * gpu__time_duration.sum. Everything else is read and checked but not kept.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/csv_read.h"
#include "ingest/ingest.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

/* Skips the profiler's own lines; the header must follow. */
static int ncu_detect(const char *head, size_t n)
{
	size_t i = 0;
	while (i + 2 <= n && head[i] == '=' && head[i + 1] == '=') {
		while (i < n && head[i] != '\n')
			i++;
		i++;
	}
	static const char hdr[] = "\"ID\",\"Process ID\",";
	return i < n && n - i >= sizeof(hdr) - 1 && !memcmp(head + i, hdr, sizeof(hdr) - 1);
}

/* One launch being collected. */
struct launch {
	char *id_text, *pid_text;
	struct kernel_metrics m;
	char *name, *block, *grid;
	int64_t ops[3][3]; /* precision (h, f, d) x op (add, mul, fma) */
	int seen[3][3];
	int any;
};

static void launch_reset(struct launch *l)
{
	free(l->id_text);
	free(l->pid_text);
	free(l->name);
	free(l->block);
	free(l->grid);
	memset(l, 0, sizeof(*l));
	l->m.device = -1;
	l->m.dram_bytes = -1;
	l->m.dur_ns = -1;
}

/* FLOPs of one precision: add + mul + 2 fma, or -1 when none of them was measured. */
static int64_t flops_of(const struct launch *l, int p)
{
	if (!l->seen[p][0] && !l->seen[p][1] && !l->seen[p][2])
		return -1;
	return l->ops[p][0] + l->ops[p][1] + 2 * l->ops[p][2];
}

static int emit(struct launch *l, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	if (!l->any)
		return 0;
	l->m.name = l->name;
	l->m.block = l->block;
	l->m.grid = l->grid;
	l->m.fp16_flops = flops_of(l, 0);
	l->m.fp32_flops = flops_of(l, 1);
	l->m.fp64_flops = flops_of(l, 2);
	l->m.id = strtoll(l->id_text, NULL, 10);
	counts->metrics++;
	counts->events++;
	if (sink->metrics && sink->metrics(sink->ctx, &l->m) < 0)
		return -1;
	return 0;
}

/* Power of ten a unit scales its value by into bytes, ns or instructions; -99 when unknown. */
static int unit_scale(const char *unit, int *kind)
{
	static const struct {
		const char *name;
		int kind, scale; /* kind 1 bytes, 2 time, 3 count */
	} units[] = {
		{"byte", 1, 0}, {"Kbyte", 1, 3}, {"Mbyte", 1, 6}, {"Gbyte", 1, 9}, {"Tbyte", 1, 12},
		{"ns", 2, 0}, {"nsecond", 2, 0}, {"us", 2, 3}, {"usecond", 2, 3}, {"ms", 2, 6},
		{"msecond", 2, 6}, {"s", 2, 9}, {"second", 2, 9},
		{"inst", 3, 0}, {"Kinst", 3, 3}, {"Minst", 3, 6}, {"Ginst", 3, 9}, {"", 3, 0},
	};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].name)) {
			*kind = units[i].kind;
			return units[i].scale;
		}
	return -99;
}

/*
 * Parses a metric value: thousands separators dropped, scaled by 10^scale
 * and rounded to an integer. Returns 0, 1 for "n/a" (not measured), -1 when
 * not a number.
 */
static int parse_value(const char *v, int scale, int64_t *out)
{
	if (!strcmp(v, "n/a") || !strcmp(v, "N/A"))
		return 1;
	struct buf b;
	buf_init(&b);
	for (const char *p = v; *p; p++)
		if (*p != ',')
			buf_addc(&b, *p);
	int r = b.len && b.data[0] != '-' && parse_decimal_scaled(b.data, b.len, scale, out) == 0 ? 0 : -1;
	buf_release(&b);
	return r;
}

/* Which counter a FLOP metric name is: *prec 0 h, 1 f, 2 d; *op 0 add, 1 mul, 2 fma. */
static int flop_metric(const char *name, int *prec, int *op)
{
	static const char *const prefixes[] = {"smsp__sass_thread_inst_executed_op_",
					       "sm__sass_thread_inst_executed_op_"};
	for (size_t i = 0; i < 2; i++) {
		size_t pl = strlen(prefixes[i]);
		if (strncmp(name, prefixes[i], pl))
			continue;
		const char *p = name + pl;
		const char *precs = "hfd";
		const char *at = *p ? strchr(precs, *p) : NULL;
		if (!at)
			return 0;
		static const char *const ops[] = {"add", "mul", "fma"};
		for (int o = 0; o < 3; o++) {
			size_t ol = strlen(ops[o]);
			if (!strncmp(p + 1, ops[o], ol) && !strcmp(p + 1 + ol, "_pred_on.sum")) {
				*prec = (int)(at - precs);
				*op = o;
				return 1;
			}
		}
	}
	return 0;
}

static char *dup_or_null(const struct csv_record *r, int col)
{
	return col >= 0 && (size_t)col < r->n && r->fields[col][0] ? xstrdup(r->fields[col]) : NULL;
}

static int ncu_read(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	struct csv_reader rd;
	struct csv_record rec = {0};
	struct launch l = {0};
	int ret = -1, rc;
	csv_init(&rd, src->data, src->len, "==");
	launch_reset(&l);
	rc = csv_next(&rd, &rec);
	if (rc <= 0) {
		if (rc == 0)
			diag_error(src->path, "Nsight Compute CSV without a header row");
		goto bad_csv;
	}
	int c_id = csv_find(&rec, "ID"), c_pid = csv_find(&rec, "Process ID"),
	    c_name = csv_find(&rec, "Kernel Name"), c_metric = csv_find(&rec, "Metric Name"),
	    c_unit = csv_find(&rec, "Metric Unit"), c_value = csv_find(&rec, "Metric Value"),
	    c_dev = csv_find(&rec, "Device"), c_block = csv_find(&rec, "Block Size"),
	    c_grid = csv_find(&rec, "Grid Size");
	{
		const char *need[] = {"ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value"};
		int have[] = {c_id, c_name, c_metric, c_unit, c_value};
		for (size_t i = 0; i < 5; i++)
			if (have[i] < 0) {
				diag_error(src->path, "line %d: Nsight Compute CSV header has no '%s' column (only the "
					   "details page, ncu --csv --page details, is read)", rec.line, need[i]);
				goto out;
			}
	}
	/* Rows may stop before the optional rule columns, never before the ones read. */
	int last = c_id;
	int cols[] = {c_pid, c_name, c_metric, c_unit, c_value, c_dev, c_block, c_grid};
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		if (cols[i] > last)
			last = cols[i];
	while ((rc = csv_next(&rd, &rec)) > 0) {
		if (rec.n <= (size_t)last) {
			diag_error(src->path, "line %d: %zu fields, expected at least %d", rec.line, rec.n, last + 1);
			goto out;
		}
		const char *id = rec.fields[c_id], *pid = c_pid >= 0 ? rec.fields[c_pid] : "";
		const char *metric = rec.fields[c_metric];
		if (!l.id_text || strcmp(l.id_text, id) || strcmp(l.pid_text, pid)) {
			if (emit(&l, sink, counts) < 0)
				goto out;
			launch_reset(&l);
			char *end;
			strtoll(id, &end, 10);
			if (!id[0] || *end) {
				diag_error(src->path, "line %d: expected a launch ID, got '%.40s'", rec.line, id);
				goto out;
			}
			l.id_text = xstrdup(id);
			l.pid_text = xstrdup(pid);
			l.name = xstrdup(rec.fields[c_name]);
			l.block = dup_or_null(&rec, c_block);
			l.grid = dup_or_null(&rec, c_grid);
			if (c_dev >= 0 && rec.fields[c_dev][0])
				l.m.device = atoi(rec.fields[c_dev]);
			l.any = 1;
		}
		if (!metric[0])
			continue; /* a rule's row: no metric */
		int prec = 0, op = 0, kind = 0;
		int is_flop = flop_metric(metric, &prec, &op);
		int is_dram = !strcmp(metric, "dram__bytes.sum");
		int is_time = !strcmp(metric, "gpu__time_duration.sum");
		if (!is_flop && !is_dram && !is_time)
			continue;
		int scale = unit_scale(rec.fields[c_unit], &kind);
		int want = is_flop ? 3 : is_dram ? 1 : 2;
		if (scale == -99 || kind != want) {
			diag_error(src->path, "line %d: unknown unit '%.20s' for '%s' (expected %s)", rec.line,
				   rec.fields[c_unit], metric,
				   want == 1 ? "byte, Kbyte, Mbyte or Gbyte" : want == 2 ? "ns, us, ms or s (nsecond, ...)" : "inst");
			goto out;
		}
		int64_t v;
		int pr = parse_value(rec.fields[c_value], scale, &v);
		if (pr < 0) {
			diag_error(src->path, "line %d: expected a number for '%s', got '%.40s'", rec.line, metric,
				   rec.fields[c_value]);
			goto out;
		}
		if (pr > 0)
			continue; /* n/a: not measured */
		if (is_flop) {
			/* smsp__ and sm__ count the same instructions: the first one given is kept. */
			if (!l.seen[prec][op]) {
				l.seen[prec][op] = 1;
				l.ops[prec][op] = v;
			}
		} else if (is_dram) {
			l.m.dram_bytes = v;
		} else {
			l.m.dur_ns = v;
		}
	}
	if (rc < 0)
		goto bad_csv;
	if (emit(&l, sink, counts) < 0)
		goto out;
	ret = 0;
	goto out;
bad_csv:
	if (rc < 0) {
		char *where = xasprintf("%s:%d:%d", src->path, rd.err_line, rd.err_col);
		diag_error(where, "malformed CSV at byte %zu: %s", rd.err_offset, rd.err_msg);
		free(where);
	}
out:
	launch_reset(&l);
	csv_record_release(&rec);
	return ret;
}

const struct reader ncu_reader = {
	.name = "ncu",
	.detect = ncu_detect,
	.read = ncu_read,
};
