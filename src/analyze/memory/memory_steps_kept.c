/*
 * memory_steps_kept.c: memory_kept.csv, what a rank keeps from step to step and
 * which host operator allocated it (see memory_steps_kept.h).
 *
 * A kept allocation is memory_ranks.csv's (memory_steps.c): made in a
 * profiled step before the last, its address freed by no later event of
 * the trace. Its operators are those of the store's memory_ops (every host
 * operator, at any depth, around a GPU allocation on its thread) that hold
 * its time, start <= ts <= start + dur, outermost first:
 *
 *   op      the innermost of them that is not the allocator's own (a name
 *           in allocators[]: aten::empty, aten::empty_strided, ...), so
 *           aten::mm rather than the aten::empty it calls; the innermost
 *           when all are; empty when none holds the allocation
 *   parent  the operator around op; when op is the outermost or there is
 *           none, the innermost host range (record_function, user
 *           annotation; not ProfilerStep#N) holding the allocation on its
 *           thread; else empty
 *   shape   the allocation's shape and dtype, where the recorded inputs of
 *   dtype   the operators holding it (record_shapes=True) give them
 *           (alloc_shape): the innermost, when it is the allocator's own
 *           call (aten::empty, aten::empty_strided, aten::new_empty,
 *           aten::new_empty_strided, as under aten::ones), by the size and
 *           the c10::ScalarType its "Concrete Inputs" give (a new_empty*
 *           without one: its tensor's "Input type"); else op, for the
 *           operators whose output shape follows from their inputs' alone
 *           (out_shape: aten::mm, aten::addmm, aten::bmm, aten::linear,
 *           aten::matmul), by its "Input Dims" and its first matrix's
 *           "Input type" (addmm's second input, the others' first). Either
 *           holds only when bytes is the shape's elements times the dtype's
 *           size, as is or rounded up to the caching allocator's 512-byte
 *           blocks; without a recorded dtype, when exactly one element size
 *           of 1, 2, 4 or 8 bytes fits so (dtype then empty). element_bytes
 *           that size. Both empty otherwise: the shape is not recorded.
 *           dtype is a short name (dtypes[]: bf16, fp16, fp32, int64, ...).
 *
 * Rows group the kept allocations by (op, parent, shape, bytes): how many,
 * per_step = allocations / rate_steps, in how many of the rate_steps steps
 * (every_step = 1 when all: a leak that repeats each step), and
 * kept_bytes_per_step = bytes x allocations / rate_steps; a rank's rows by
 * kept_bytes_per_step, largest first.
 */
#include "analyze/memory/memory_steps_kept.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/lib/rankdata.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/table.h"
#include "util/xalloc.h"

/* A host range (an operator or an annotation) on a thread, its texts owned by the caller's list. */
struct range {
	int64_t tid, start, end;
	char *name, *dims, *types, *concrete; /* dims, types ("Input type"), concrete ("Concrete Inputs"): NULL when none */
};

struct range_list {
	struct range *v;
	size_t n, cap;
};

/* One kept allocation, named: pointers into the range lists (dtype: into dtypes[]), shape text owned. */
struct named {
	const char *op, *parent, *dtype;
	char *shape;
	int64_t esize, bytes, step;
};

static const char *const allocators[] = {"aten::empty", "aten::empty_strided", "aten::empty_like", "aten::new_empty",
					 "aten::new_empty_strided", "aten::resize_", "aten::_empty_affine_quantized"};

static int is_allocator(const char *name)
{
	for (size_t i = 0; i < sizeof(allocators) / sizeof(allocators[0]); i++)
		if (!strcmp(name, allocators[i]))
			return 1;
	return 0;
}

static void list_free(struct range_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].dims);
		free(l->v[i].types);
		free(l->v[i].concrete);
	}
	free(l->v);
}

/* The rank's ranges of sql (?1 run, ?2 rank; columns tid, start, dur, name, dims, types, concrete), in order of thread and start. */
static int load(struct store *s, const struct rank_key *k, const char *what, const char *sql, struct range_list *l)
{
	struct store_stmt *st;
	st = rank_query(s, what, sql, k);
	if (!st)
		return -1;
	int rc;
	while ((rc = store_next(st)) > 0) {
		l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
		struct range *r = &l->v[l->n++];
		r->tid = store_column_type(st, 0) == STORE_NULL ? -1 : store_column_int64(st, 0);
		r->start = store_column_int64(st, 1);
		r->end = r->start + store_column_int64(st, 2); /* within int64: the store refused any other */
		const unsigned char *n = store_column_text(st, 3);
		r->name = xstrdup(n ? (const char *)n : "");
		char **texts[] = {&r->dims, &r->types, &r->concrete};
		for (int c = 0; c < 3; c++) {
			const unsigned char *t = store_column_text(st, 4 + c);
			*texts[c] = t ? xstrdup((const char *)t) : NULL;
		}
	}
	store_finalize(st);
	return rc < 0 ? -1 : 0;
}

static int cmp_kept(const void *pa, const void *pb)
{
	const struct kept_alloc *a = pa, *b = pb;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

/*
 * For each point (sorted by thread and time), through one sweep with a
 * stack: the innermost range of l that holds it and is not the allocator's
 * own (the innermost when all are), the range around that one, and the
 * innermost of all; fn gets them (NULL: none). The stack is kept a chain, each range holding the
 * next: one that ends before a later one ends is closed when that one
 * opens (an ended one; or one overlapping it without holding it, which
 * Kineto never writes), so all that stay open at a point hold it, and
 * na[p], the innermost position at or below p that is not the allocator's,
 * answers in one step however deep the nesting.
 */
typedef void (*hold_fn)(void *arg, size_t point, const struct range *op, const struct range *parent,
			const struct range *inner);
static void sweep(const struct range_list *l, const struct kept_alloc *p, size_t np, hold_fn fn, void *arg)
{
	const struct range **stack = xmalloc((l->n ? l->n : 1) * sizeof(*stack));
	long *na = xmalloc((l->n ? l->n : 1) * sizeof(*na));
	size_t depth = 0, i = 0;
	int64_t tid = INT64_MIN;
	for (size_t a = 0; a < np; a++) {
		if (p[a].tid != tid) {
			tid = p[a].tid;
			depth = 0;
			while (i < l->n && l->v[i].tid < tid)
				i++;
		}
		for (; i < l->n && l->v[i].tid == tid && l->v[i].start <= p[a].ts; i++) {
			while (depth && stack[depth - 1]->end < l->v[i].end)
				depth--;
			na[depth] = !is_allocator(l->v[i].name) ? (long)depth : depth ? na[depth - 1] : -1;
			stack[depth++] = &l->v[i];
		}
		while (depth && stack[depth - 1]->end < p[a].ts)
			depth--;
		if (!depth) {
			fn(arg, a, NULL, NULL, NULL);
			continue;
		}
		size_t j = na[depth - 1] >= 0 ? (size_t)na[depth - 1] : depth - 1;
		fn(arg, a, stack[j], j ? stack[j - 1] : NULL, stack[depth - 1]);
	}
	free(na);
	free(stack);
}

/* Up to 4 inputs' dims of "[8192,768],[768,50257]"; returns how many inputs were read, -1 when unreadable. */
#define MAXDIMS 8
/* The longest input of a compact list read (the store cuts the lists at 256 bytes) */
#define KEPT_INPUT_MAX 260
static int parse_dims(const char *s, int64_t d[4][MAXDIMS], int nd[4])
{
	int n = 0;
	while (*s && n < 4) {
		if (*s == ',')
			s++;
		if (*s != '[')
			return n; /* "...": cut */
		s++;
		nd[n] = 0;
		while (*s && *s != ']') {
			char *e;
			long long v = strtoll(s, &e, 10);
			if (e == s || v < 0 || nd[n] == MAXDIMS)
				return -1;
			d[n][nd[n]++] = v;
			s = *e == ',' ? e + 1 : e;
		}
		if (*s != ']')
			return -1;
		s++;
		n++;
	}
	return n;
}

/* The output shape of op from its inputs' dims into out (*nout dims); 0, or -1 when it does not follow. */
static int out_shape(const char *op, const char *dims, int64_t out[MAXDIMS], int *nout)
{
	int64_t d[4][MAXDIMS];
	int nd[4] = {0};
	int n = dims ? parse_dims(dims, d, nd) : -1;
	int a = 0;
	if (!strcmp(op, "aten::addmm"))
		a = 1; /* (bias, mat1, mat2) */
	else if (strcmp(op, "aten::mm") && strcmp(op, "aten::bmm") && strcmp(op, "aten::linear") &&
		 strcmp(op, "aten::matmul"))
		return -1;
	if (n < a + 2)
		return -1;
	const int64_t *x = d[a], *w = d[a + 1];
	int nx = nd[a], nw = nd[a + 1];
	if (!strcmp(op, "aten::linear")) {
		/* input [..., k], weight [n, k] */
		if (nx < 1 || nw != 2 || x[nx - 1] != w[1])
			return -1;
		memcpy(out, x, (size_t)(nx - 1) * sizeof(*out));
		out[nx - 1] = w[0];
		*nout = nx;
		return 0;
	}
	if (!strcmp(op, "aten::bmm")) {
		if (nx != 3 || nw != 3 || x[0] != w[0] || x[2] != w[1])
			return -1;
		out[0] = x[0], out[1] = x[1], out[2] = w[2];
		*nout = 3;
		return 0;
	}
	/* mm, addmm: [m, k] x [k, n]; matmul: [..., m, k] x [k, n] */
	if (nw != 2 || nx < 2 || x[nx - 1] != w[0] || (nx != 2 && strcmp(op, "aten::matmul")))
		return -1;
	memcpy(out, x, (size_t)(nx - 1) * sizeof(*out));
	out[nx - 1] = w[1];
	*nout = nx;
	return 0;
}

/*
 * The dtypes by Kineto's "Input type" name and by c10::ScalarType number (an
 * allocator's "Concrete Inputs"): the short name memory_kept.csv gives, and
 * the bytes an element.
 */
static const struct dtype {
	const char *type;
	int code;
	const char *name;
	int64_t size;
} dtypes[] = {
	{"unsigned char", 0, "uint8", 1},      {"signed char", 1, "int8", 1},
	{"short int", 2, "int16", 2},          {"int", 3, "int32", 4},
	{"long int", 4, "int64", 8},           {"c10::Half", 5, "fp16", 2},
	{"float", 6, "fp32", 4},               {"double", 7, "fp64", 8},
	{"c10::complex<float>", 9, "complex64", 8}, {"c10::complex<double>", 10, "complex128", 16},
	{"bool", 11, "bool", 1},               {"c10::BFloat16", 15, "bf16", 2},
	{"c10::Float8_e5m2", 23, "fp8_e5m2", 1}, {"c10::Float8_e4m3fn", 24, "fp8_e4m3fn", 1},
};

/* The dtype of an "Input type" name, or of a ScalarType number's text ("15"); NULL when none. */
static const struct dtype *dtype_of(const char *s, int by_code)
{
	char *e;
	long code = by_code ? strtol(s, &e, 10) : -1;
	if (by_code && (e == s || *e))
		return NULL;
	for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (by_code ? dtypes[i].code == code : !strcmp(dtypes[i].type, s))
			return &dtypes[i];
	return NULL;
}

/*
 * Input n (from 0) of a compact list of the store ("[8388608],15,,False":
 * split at the commas outside brackets) into out; 0, or -1 when the list or
 * the input is absent, or the input longer than cap - 1.
 */
static int nth_input(const char *list, int n, char *out, size_t cap)
{
	if (!list)
		return -1;
	const char *p = list;
	for (int i = 0; i <= n; i++) {
		size_t len = 0;
		int depth = 0;
		for (; p[len] && (p[len] != ',' || depth); len++)
			depth += p[len] == '[' ? 1 : p[len] == ']' ? -1 : 0;
		if (i == n) {
			if (len >= cap)
				return -1;
			memcpy(out, p, len);
			out[len] = 0;
			return 0;
		}
		if (!p[len])
			return -1;
		p += len + 1;
	}
	return -1;
}

/* A shape and, where recorded, its dtype. */
struct shape {
	int64_t d[MAXDIMS];
	int n;
	const struct dtype *dt;
};

/* The allocator's own calls whose "Concrete Inputs" give the size and the ScalarType, and the tensor input whose dtype a missing one is (-1: none). */
static const struct {
	const char *name;
	int size, dtype, self;
} alloc_inputs[] = {
	{"aten::empty", 0, 1, -1},
	{"aten::empty_strided", 0, 2, -1},
	{"aten::new_empty", 1, 2, 0},
	{"aten::new_empty_strided", 1, 3, 0},
};

/* The shape and dtype an allocator's call r gives; 0, or -1 when r is none or they are not recorded. */
static int alloc_shape(const struct range *r, struct shape *sh)
{
	char v[KEPT_INPUT_MAX];
	int64_t d[4][MAXDIMS];
	int nd[4] = {0};
	for (size_t i = 0; i < sizeof(alloc_inputs) / sizeof(alloc_inputs[0]); i++) {
		if (strcmp(r->name, alloc_inputs[i].name))
			continue;
		if (nth_input(r->concrete, alloc_inputs[i].size, v, sizeof(v)) < 0 || parse_dims(v, d, nd) != 1)
			return -1;
		memcpy(sh->d, d[0], (size_t)nd[0] * sizeof(*sh->d));
		sh->n = nd[0];
		sh->dt = NULL;
		if (nth_input(r->concrete, alloc_inputs[i].dtype, v, sizeof(v)) == 0 && *v)
			sh->dt = dtype_of(v, 1);
		else if (alloc_inputs[i].self >= 0 && nth_input(r->types, alloc_inputs[i].self, v, sizeof(v)) == 0)
			sh->dt = dtype_of(v, 0);
		return 0;
	}
	return -1;
}

/* The output shape and dtype of an operator r of out_shape's; 0, or -1 when they do not follow. */
static int op_shape(const struct range *r, struct shape *sh)
{
	char v[KEPT_INPUT_MAX];
	if (out_shape(r->name, r->dims, sh->d, &sh->n) < 0)
		return -1;
	sh->dt = NULL;
	if (nth_input(r->types, !strcmp(r->name, "aten::addmm") ? 1 : 0, v, sizeof(v)) == 0)
		sh->dt = dtype_of(v, 0);
	return 0;
}

/* Whether bytes holds elems elements of size bytes, as is or rounded up to the allocator's 512-byte blocks. */
static int fits(int64_t elems, int64_t size, int64_t bytes)
{
	int64_t b;
	if (__builtin_mul_overflow(elems, size, &b) || b > ((int64_t)1 << 60))
		return 0;
	return b == bytes || (b + 511) / 512 * 512 == bytes;
}

/*
 * The shape text ("8192x50257") of sh, its element size and its dtype's
 * short name (NULL when not recorded) when bytes fits the dtype's size, or,
 * without one, exactly one size; NULL otherwise.
 */
static char *shape_text(const struct shape *sh, int64_t bytes, int64_t *esize, const char **dtype)
{
	int64_t elems = 1;
	if (sh->n < 1)
		return NULL;
	for (int i = 0; i < sh->n; i++)
		if (__builtin_mul_overflow(elems, sh->d[i], &elems) || elems > ((int64_t)1 << 50))
			return NULL;
	int64_t found = 0;
	if (sh->dt) {
		if (!fits(elems, sh->dt->size, bytes))
			return NULL;
		found = sh->dt->size;
	}
	for (int64_t e = 1; !sh->dt && e <= 8; e *= 2) {
		if (fits(elems, e, bytes)) {
			if (found)
				return NULL; /* two sizes fit: not determined */
			found = e;
		}
	}
	if (!found)
		return NULL;
	*esize = found;
	*dtype = sh->dt ? sh->dt->name : NULL;
	struct buf b;
	buf_init(&b);
	for (int i = 0; i < sh->n; i++)
		buf_printf(&b, "%s%lld", i ? "x" : "", (long long)sh->d[i]);
	return b.data; /* the buffer's storage, handed over */
}

/* The shape of an allocation held by op (not the allocator's) and, innermost, inner (see the file's comment). */
static char *shape_of(const struct range *op, const struct range *inner, int64_t bytes, int64_t *esize,
		      const char **dtype)
{
	struct shape sh;
	char *t = NULL;
	if (inner && alloc_shape(inner, &sh) == 0)
		t = shape_text(&sh, bytes, esize, dtype);
	if (!t && op && op_shape(op, &sh) == 0)
		t = shape_text(&sh, bytes, esize, dtype);
	return t;
}

struct name_walk {
	struct named *out;
	const struct kept_alloc *v;
};

static void name_op(void *arg, size_t a, const struct range *op, const struct range *parent, const struct range *inner)
{
	struct name_walk *w = arg;
	struct named *o = &w->out[a];
	o->bytes = w->v[a].bytes;
	o->step = w->v[a].step;
	if (!op)
		return;
	o->op = op->name;
	o->parent = parent ? parent->name : NULL;
	o->shape = shape_of(op, inner, o->bytes, &o->esize, &o->dtype);
}

/* The host range around an allocation: its parent where no operator is around its operator. */
static void name_range(void *arg, size_t a, const struct range *inner, const struct range *around,
		       const struct range *innermost)
{
	struct name_walk *w = arg;
	(void)around;
	(void)innermost;
	if (inner && !w->out[a].parent)
		w->out[a].parent = inner->name;
}

static int strcmp0(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_named(const void *pa, const void *pb)
{
	const struct named *a = pa, *b = pb;
	int c;
	if ((c = strcmp0(a->op, b->op)) || (c = strcmp0(a->parent, b->parent)) || (c = strcmp0(a->shape, b->shape)) ||
	    (c = strcmp0(a->dtype, b->dtype)))
		return c;
	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? -1 : 1;
	return a->step < b->step ? -1 : a->step > b->step;
}

static int same_group(const struct named *a, const struct named *b)
{
	return !strcmp0(a->op, b->op) && !strcmp0(a->parent, b->parent) && !strcmp0(a->shape, b->shape) &&
	       !strcmp0(a->dtype, b->dtype) && a->bytes == b->bytes;
}

struct group {
	const struct named *first;
	int64_t count, steps, kept;
};

static int cmp_group(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;
	if (a->kept != b->kept)
		return a->kept > b->kept ? -1 : 1;
	return cmp_named(a->first, b->first);
}

struct table *memory_kept_table(void)
{
	return table_new("memory_kept", "GPU memory kept from step to step, by the host operator that allocated it",
			 TABLE_SCHEMA(MEMORY_KEPT_COLUMNS));
}

int memory_kept_rank(struct store *s, const struct rank_key *k, struct kept_alloc *v, size_t n, int64_t rate_steps,
		     struct table *t)
{
	if (!n || rate_steps < 1)
		return 0;
	struct range_list ops = {0}, ranges = {0};
	int ret = -1;
	struct named *nm = xcalloc(n, sizeof(*nm));
	struct group *g = NULL;
	size_t ng = 0, capg = 0;
	if (load(s, k, "memory: the operators around allocations",
		 "SELECT x.tid, x.start_ns, x.dur_ns, n.name, d.name, ty.name, co.name FROM traces rt CROSS JOIN memory_ops x"
		 " ON x.trace_id = rt.id CROSS JOIN names n ON n.id = x.name_id LEFT JOIN names d ON d.id = x.dims_id"
		 " LEFT JOIN names ty ON ty.id = x.types_id LEFT JOIN names co ON co.id = x.concrete_id"
		 " WHERE rt.run_id = ?1 AND rt.rank = ?2 ORDER BY x.tid, x.start_ns, x.dur_ns DESC, x.rowid", &ops) < 0 ||
	    load(s, k, "memory: the host ranges around allocations",
		 "SELECT x.tid, x.start_ns, x.dur_ns, n.name, NULL, NULL, NULL FROM traces rt CROSS JOIN annotations x"
		 " ON x.trace_id = rt.id CROSS JOIN names n ON n.id = x.name_id"
		 " WHERE rt.run_id = ?1 AND rt.rank = ?2 AND x.on_gpu = 0 AND n.name NOT GLOB 'ProfilerStep#[0-9]*'"
		 " ORDER BY x.tid, x.start_ns, x.dur_ns DESC, x.rowid", &ranges) < 0)
		goto out;
	qsort(v, n, sizeof(*v), cmp_kept);
	struct name_walk w = {nm, v};
	sweep(&ops, v, n, name_op, &w);
	sweep(&ranges, v, n, name_range, &w);
	qsort(nm, n, sizeof(*nm), cmp_named);
	for (size_t i = 0; i < n; i++) {
		int same = i && same_group(&nm[i], &nm[i - 1]);
		if (!same) {
			g = xgrow(g, &capg, ng + 1, sizeof(*g));
			g[ng++] = (struct group){&nm[i], 0, 0, 0};
		}
		struct group *c = &g[ng - 1];
		if (!c->count || nm[i].step != nm[i - 1].step)
			c->steps++;
		c->count++;
	}
	for (size_t i = 0; i < ng; i++) {
		int64_t b;
		g[i].kept = __builtin_mul_overflow(g[i].first->bytes, g[i].count, &b) ? INT64_MAX : b / rate_steps;
	}
	if (ng > 1)
		qsort(g, ng, sizeof(*g), cmp_group);
	for (size_t i = 0; i < ng; i++) {
		const struct named *f = g[i].first;
		size_t r = table_add_row(t);
		table_set_text(t, r, MK_RUN, k->run);
		table_set_int(t, r, MK_RANK, k->rank);
		table_set_text(t, r, MK_OP, f->op ? f->op : "");
		table_set_text(t, r, MK_PARENT, f->parent ? f->parent : "");
		table_set_text(t, r, MK_SHAPE, f->shape ? f->shape : "");
		table_set_text(t, r, MK_DTYPE, f->dtype ? f->dtype : "");
		if (f->shape)
			table_set_int(t, r, MK_ELEMENT_BYTES, f->esize);
		table_set_int(t, r, MK_BYTES, f->bytes);
		table_set_int(t, r, MK_ALLOCATIONS, g[i].count);
		table_set_real(t, r, MK_PER_STEP, (double)g[i].count / (double)rate_steps);
		table_set_int(t, r, MK_STEPS_SEEN, g[i].steps);
		table_set_int(t, r, MK_RATE_STEPS, rate_steps);
		table_set_int(t, r, MK_KEPT_BYTES_PER_STEP, g[i].kept);
		table_set_int(t, r, MK_EVERY_STEP, g[i].steps == rate_steps);
	}
	ret = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(nm[i].shape);
	free(nm);
	free(g);
	list_free(&ops);
	list_free(&ranges);
	return ret;
}

const char *memory_kept_method(void)
{
	return "Per run and rank, the allocations memory_ranks.csv counts as kept (made in a profiled step before the "
	       "last, their address freed by no later event of the trace), by the host operator that made them. The "
	       "operators around an allocation are those of its thread whose time holds it (every depth: the store "
	       "keeps the operators around each GPU allocation that no later event frees). op: the innermost of them "
	       "that is not the allocator's "
	       "own (aten::empty, aten::empty_strided, aten::empty_like, aten::new_empty, aten::new_empty_strided, "
	       "aten::resize_, aten::_empty_affine_quantized), so the aten::mm rather than the aten::empty it calls; "
	       "empty when no operator holds it. parent: the operator around op, or, when op is the outermost or "
	       "empty, the innermost host range (record_function, not ProfilerStep#N) holding the allocation. shape and "
	       "dtype: where the operators' recorded inputs (record_shapes=True) give them; from the innermost operator "
	       "when it is the allocator's own call (aten::empty, aten::empty_strided, aten::new_empty, "
	       "aten::new_empty_strided, as under aten::ones), the size and c10::ScalarType in its \"Concrete Inputs\"; "
	       "else the output shape of op from its \"Input Dims\" where the inputs alone give it (aten::mm, "
	       "aten::addmm: [m,k] x [k,n] -> m x n; aten::bmm; aten::linear: [...,k] and weight [n,k] -> ... x n; "
	       "aten::matmul with a 2-D second input) and the dtype from the \"Input type\" of its first matrix. They "
	       "hold only when bytes is the shape's elements times the dtype's size (element_bytes), as is or rounded "
	       "up to the allocator's 512-byte blocks; where no dtype is recorded, when exactly one of 1, 2, 4 or 8 "
	       "bytes fits so (dtype then empty); both empty otherwise (not recorded). dtype is a short name (bf16, "
	       "fp16, fp32, fp64, int64, int32, int16, int8, uint8, bool, fp8_e4m3fn, fp8_e5m2, complex64). "
	       "Rows group the allocations by op, parent, shape and bytes: allocations, per_step = allocations / "
	       "rate_steps (the profiled steps but the last), steps_seen (of those steps, how many kept one), "
	       "every_step = 1 when all did (a leak repeats every step), kept_bytes_per_step = bytes x allocations / "
	       "rate_steps; largest first.";
}

int memory_kept_words(const struct table *t, const char *run, long rank, struct buf *out)
{
	long best = -1;
	for (size_t r = 0; t && r < t->nrows; r++) {
		const char *rr = table_text(t, r, MK_RUN);
		if (!rr || strcmp(rr, run) || table_num(t, r, MK_RANK) != (double)rank)
			continue;
		if (best < 0)
			best = (long)r; /* the largest: rows come largest first */
		if (table_num(t, r, MK_EVERY_STEP) == 1) {
			best = (long)r;
			break;
		}
	}
	if (best < 0)
		return 0;
	size_t r = (size_t)best;
	double per = table_num(t, r, MK_PER_STEP), bytes = table_num(t, r, MK_BYTES);
	double seen = table_num(t, r, MK_STEPS_SEEN), steps = table_num(t, r, MK_RATE_STEPS);
	const char *op = table_text(t, r, MK_OP), *parent = table_text(t, r, MK_PARENT), *shape = table_text(t, r, MK_SHAPE);
	const char *dtype = table_text(t, r, MK_DTYPE);
	if (per == 1)
		buf_adds(out, "1 allocation");
	else
		buf_printf(out, "%.3g allocations", per);
	buf_printf(out, " of %.1f MiB (%.0f bytes) a step", bytes / (1024.0 * 1024.0), bytes);
	if (op && *op)
		buf_printf(out, " by %s%s%s", op, parent && *parent ? " under " : "", parent && *parent ? parent : "");
	else
		buf_printf(out, " outside every recorded host operator%s%s", parent && *parent ? ", in " : "",
			   parent && *parent ? parent : "");
	if (shape && *shape && dtype && *dtype)
		buf_printf(out, " (%s %s)", shape, dtype);
	else if (shape && *shape)
		buf_printf(out, " (%s, %.0f-byte elements)", shape, table_num(t, r, MK_ELEMENT_BYTES));
	else
		buf_adds(out, " (shape not recorded)");
	if (seen != steps)
		buf_printf(out, ", in %.0f of %.0f steps", seen, steps);
	return 1;
}
