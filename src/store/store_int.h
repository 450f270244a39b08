/*
 * store_int.h: the store's insides, shared by the files of src/store/ only.
 *
 *   schema.c  the schema, opening and closing, transactions, indexes
 *   query.c   the query API of store.h (prepare, step, exec), every failure through diag
 *   names.c   interning of names (kernel, operator, range names)
 *   rows.c    event rows batched ROWS_PER_INSERT to a statement
 *   write.c   experiments, runs and traces rows; splitting a file by device
 *   sink.c    the ingest_sink whose events become rows; host operators' nesting
 *
 * Nothing outside src/store/ includes this header.
 */
#ifndef PERFSTUDY_STORE_INT_H
#define PERFSTUDY_STORE_INT_H

#include <stdint.h>
#include <string.h>

#include <sqlite3.h>

#include "store/store.h"

/* memevents.c's coder state in a stream: the last event's time and totals, the last recorded address, reserve. */
struct mem_coder {
	int64_t ts, addr, tot, rsv;
};

struct name_slot {
	char *name;
	uint64_t hash;
	int64_t id;
	size_t len;
	unsigned flags; /* NAME_* of the name, worked out once when it is interned */
};

/* What sink_cpu_op asks of an operator's name, kept in its slot rather than found again per event. */
#define NAME_MODEL_OP 1u /* store_is_model_op */
#define NAME_LOADER 2u   /* an enumerate(DataLoader)... range, stored at any depth */


/* A host operator (cpu_op) held until its trace ends: see flush_cpu_ops. */
struct pending_op {
	int64_t start, dur, tid, external_id, name_id;
	int64_t dims_id; /* names id of its "Input Dims" text, -1 when absent */
	int64_t types_id, concrete_id; /* of its "Input type" and "Concrete Inputs" texts, -1 when absent */
	int keep; /* stored whatever its nesting: an enumerate(DataLoader)... range */
};
/* qsort order of pending_op (sink.c): by thread, start, longer first (an enclosing one before those it encloses), name. */
int store_cmp_op(const void *a, const void *b);
/* store_cmp_op's order on the four fields it reads, for memsites.c's operators of either kind. */
static inline int store_cmp_op_key(int64_t tid_a, int64_t start_a, int64_t dur_a, int64_t name_a, int64_t tid_b,
				   int64_t start_b, int64_t dur_b, int64_t name_b)
{
	if (tid_a != tid_b)
		return tid_a < tid_b ? -1 : 1;
	if (start_a != start_b)
		return start_a < start_b ? -1 : 1;
	if (dur_a != dur_b)
		return dur_a > dur_b ? -1 : 1;
	return name_a < name_b ? -1 : name_a > name_b;
}

/*
 * An operator cpu_ops leaves out, as memsites.c holds it to the trace's
 * end: 40 bytes, not pending_op's 72 (a trace's 700k of them took 50 MB).
 * The names ids are kept + 1 (0: absent) in 32 bits: ids are given one a
 * name, and the index of names (names.c) would need more than 100 GB before
 * one passed 2^32 - 2.
 */
struct inner_op {
	int64_t start, dur, tid;
	uint32_t name, dims, types, concrete;
};

/* A GPU allocation's thread and time, held until its trace ends (memsites.c). */
struct alloc_at {
	int64_t tid, ts;
};

/*
 * One thread's host operators while they come in order of start: the ops
 * of the latest start, not decided yet, and the end of the last stored one
 * (see sink_cpu_op).
 */
struct op_thread {
	int64_t tid;
	int used, have_end;
	int64_t group_start, end;
	struct pending_op *group;
	size_t ngroup, groupcap;
};

/*
 * Rows of one event table waiting to be inserted ROWS_PER_INSERT at a time
 * by one statement of that many rows (INSERT ... VALUES (...), (...), ...):
 * SQLite's cost per statement (step, reset, program start) is then paid once
 * for 32 rows; a standalone test of 120k rows went 0.53 -> 0.29 us a row
 * (bench/RESULTS.md). The rows keep their order, so the table's rowids are
 * the same as one insert a row; what is pending goes in (through the one-row
 * statement) at the end of each trace, before any statement reads the table
 * and at commit, and is dropped by a rollback.
 */
#define ROWS_PER_INSERT 32
#define ROW_MAX_COLS 10

enum cell_type { CELL_NULL, CELL_INT, CELL_TEXT, CELL_TEXT_PTR };

struct cell {
	int64_t v;
	enum cell_type type;
	union {
		char text[16];   /* CELL_TEXT: a short text (kind, copy kind), NUL-terminated */
		const char *ptr; /* CELL_TEXT_PTR: a longer one, valid until the flush that must follow */
	};
};

struct row_buf {
	sqlite3_stmt *one, *many; /* INSERT of one row, of ROWS_PER_INSERT rows */
	const char *what;         /* for messages: "insert activity" */
	int ncols, n;
	struct cell cells[ROWS_PER_INSERT * ROW_MAX_COLS];
	/*
	 * What many's parameters hold now (all NULL when prepared, as the
	 * zeroed store has it): a cell equal to its parameter's is not bound
	 * again (rows.c).
	 */
	struct cell bound[ROWS_PER_INSERT * ROW_MAX_COLS];
};

struct sink_ctx {
	struct store *s;
	int64_t trace_id;          /* 0: an experiment's own input (store_sink_experiment) */
	const char *experiment, *path;
};

/* The longest name stored (a kernel, an annotation, a phase): 16 MiB, as a Kineto event or a SQLite string. */
#define STORE_MAX_NAME (16 << 20)

struct store {
	sqlite3 *db;
	char *path;
	/*
	 * The input being stored, from store_add_trace to store_finish_trace: a
	 * name or value too large is its fault, and messages name it rather
	 * than the store (store_fail, store_name_id).
	 */
	char *reading;
	int guarded; /* bounded by store_guard: an interrupt is its step budget running out */
	sqlite3_stmt *ins_name, *ins_dev, *ins_sum;
	struct row_buf act, launch, annot, cpu; /* the event tables' rows, ROWS_PER_INSERT at a time */
	/* the trace's allocator events, stored at its end (memevents.c) */
	unsigned char *mevb;        /* held events, coded as a row is (memevents.c) */
	size_t mevlen, mevcap, nmev;
	struct mem_hrun *mruns;     /* the runs in order of time they make */
	size_t nmruns, mrunscap;
	struct mem_coder mcode; /* the last run's coder state */
	sqlite3_stmt *ins_mem;
	struct row_buf mops; /* model_ops rows (modelops.c) */
	struct row_buf memops; /* memory_ops rows (memsites.c) */
	struct name_slot *slots;
	size_t nslots, nnames;
	struct sink_ctx sink;
	sqlite3_stmt *ins_coll; /* prepared on first use */
	/* a trace's own statements (write.c, sink.c), prepared on its first use: not once a trace */
	sqlite3_stmt *ins_trace, *upd_trace, *upd_info, *upd_device;
	/* kept on first use: the site's files (cache.c), a shard's rows (shard.c) */
	sqlite3_stmt *ins_site, *shard_ins_batch, *shard_ins_trace, *shard_trace, *shard_batches;
	int64_t first_ns, last_ns;
	/* the current trace's activity devices, seen as they are stored (store_split_devices) */
	int64_t dev_first;
	int dev_seen; /* 0: none, 1: dev_first only, 2: several */
	int size_warned; /* the trace's sizes past the bounds said so far (sink.c size_known) */
	struct pending_op *ops; /* the trace's stored host operators, or all since they came out of order */
	size_t nops, opscap;
	int ops_sorted;         /* they came in order of start per thread so far: stored as they come */
	struct op_thread *threads; /* open addressing on tid; nthreads_cap a power of two */
	size_t nthreads, nthreads_cap;
	/* memsites.c: the trace's operators cpu_ops leaves out, and its GPU allocations */
	struct inner_op *inner;
	size_t ninner, innercap;
	int inner_over; /* more than memsites.c's INNER_MAX: none held */
	struct alloc_at *allocs;
	size_t nallocs, alloccap;
	int allocs_over; /* more than memsites.c's ALLOCS_MAX: the later ones left out */
	size_t names_at_begin; /* nnames at store_begin: a rollback forgets the names after it */
};

/* schema.c: the shard database's tables (file.c creates it). */
extern const char store_shard_schema[];
/* schema.c: the connection's TEMP views (run_traces); 0, or -1 after diag. */
int store_add_temp_views(struct store *s);
/* schema.c: 1 when sql is, byte for byte, the CREATE VIEW statement of view name that the schema writes. */
int store_own_view(const char *name, const char *sql);

/*
 * query.c: the store's own statements, SQLite's (the query API's struct
 * store_stmt is for code outside src/store/), with its messages:
 * store_sql_prepare, store_sql_step and store_sql_step_done as
 * store_prepare, store_step and store_step_done; store_sql_step_rebind runs st to its end with its
 * bindings kept (the per-event inserts bind every parameter);
 * store_sql_prepare_kept prepares sql into *slot the first time and keeps
 * it (store_close finalizes it), for a statement run once a trace. Each
 * returns 0, or -1 after diag.
 */
int store_sql_prepare(struct store *s, const char *what, const char *sql, sqlite3_stmt **st);
int store_sql_step(struct store *s, sqlite3_stmt *st, const char *what);
int store_sql_step_done(struct store *s, sqlite3_stmt *st, const char *what);
int store_sql_step_rebind(struct store *s, sqlite3_stmt *st, const char *what);
int store_sql_prepare_kept(struct store *s, const char *what, const char *sql, sqlite3_stmt **slot);
/* query.c: with PERFSTUDY_COUNTS, the connection's VM steps counted (util/timing.h's work_count). */
void store_count_work(sqlite3 *db);

/* names.c: the in-memory index of names; store_names_forget_after drops ids after last_id (rollback). */
void store_names_init(struct store *s);
void store_names_release(struct store *s);
void store_names_forget_after(struct store *s, size_t last_id);
/* names.c: store_name_id, with the name's NAME_* flags in *flags. */
int64_t store_name_id_flags(struct store *s, const char *name, unsigned *flags);

/* rows.c: the event tables' pending rows. */
int store_row_buf_open(struct store *s, struct row_buf *b, const char *table, int ncols, const char *what);
void store_row_buf_close(struct row_buf *b);
int store_row_buf_flush(struct store *s, struct row_buf *b);
/* Every event table's pending rows in (before a statement reads them, at commit); drop: a rollback. */
int store_rows_flush(struct store *s);
void store_rows_drop(struct store *s);

/* sink.c: host operators held for the current trace. */
void store_ops_reset(struct store *s);
struct memory_event;
struct mem_hrun;
/* memevents.c: a trace's allocator events, held (add), stored (flush), forgotten (reset) */
void store_mem_add(struct store *s, const struct memory_event *m);
int store_mem_flush(struct store *s, int64_t trace_id);
void store_mem_reset(struct store *s);
void store_mem_release(struct store *s);
void store_ops_release(struct store *s);
int store_flush_cpu_ops(struct store *s, int64_t trace_id);

/*
 * memsites.c: the operators around the trace's GPU allocations. inner: an
 * operator cpu_ops leaves out; alloc: a GPU allocation's thread and time;
 * flush (at the trace's end, before the held operators are forgotten): the
 * memory_ops rows, then forgets both (0, or -1 after diag; path names the
 * trace in a warning).
 */
void store_memsites_inner(struct store *s, const struct pending_op *o);
void store_memsites_alloc(struct store *s, int64_t tid, int64_t ts);
/* Keeps of the trace's GPU allocations those of the n in keep (a thread and a time), before flush. */
void store_memsites_keep(struct store *s, struct alloc_at *keep, size_t n);
int store_memsites_flush(struct store *s, int64_t trace_id, const char *path);
void store_memsites_reset(struct store *s);
void store_memsites_release(struct store *s);

/*
 * modelops.c: whether an operator's name is one the per-operator model
 * prices (1) or not (0); and its model_ops row (0, or -1 after diag).
 */
int store_is_model_op(const char *name);
int store_model_op_add(struct store *s, int64_t trace_id, const struct pending_op *o);

static inline void bind_opt(sqlite3_stmt *st, int i, int64_t v, int present)
{
	if (present)
		sqlite3_bind_int64(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

static inline void bind_text_opt(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}


/* The next pending row's cells, after making room. NULL when a flush failed. */
static inline struct cell *row_buf_add(struct store *s, struct row_buf *b)
{
	if (b->n == ROWS_PER_INSERT && store_row_buf_flush(s, b) < 0)
		return NULL;
	return &b->cells[b->n++ * b->ncols];
}

static inline void cell_int(struct cell *c, int64_t v)
{
	c->type = CELL_INT;
	c->v = v;
}

static inline void cell_opt(struct cell *c, int64_t v, int present)
{
	c->type = present ? CELL_INT : CELL_NULL;
	c->v = v;
}

/*
 * Host operator o of trace trace_id as a row of memory_ops or model_ops,
 * whose columns are the same: trace_id, tid, start_ns, dur_ns, name_id,
 * dims_id, types_id, concrete_id (absent ids NULL).
 */
static inline int op_row_add(struct store *s, struct row_buf *b, int64_t trace_id, const struct pending_op *o)
{
	struct cell *row = row_buf_add(s, b);
	if (!row)
		return -1;
	cell_int(&row[0], trace_id);
	cell_opt(&row[1], o->tid, o->tid >= 0);
	cell_int(&row[2], o->start);
	cell_int(&row[3], o->dur);
	cell_int(&row[4], o->name_id);
	cell_opt(&row[5], o->dims_id, o->dims_id >= 0);
	cell_opt(&row[6], o->types_id, o->types_id >= 0);
	cell_opt(&row[7], o->concrete_id, o->concrete_id >= 0);
	return 0;
}

/*
 * A text; NULL is SQL NULL. A short one is copied into the cell; a longer
 * one is only pointed to, and -1 says that the caller must flush before t
 * goes away.
 */
static inline int cell_text(struct cell *c, const char *t)
{
	if (!t) {
		c->type = CELL_NULL;
		return 0;
	}
	size_t n = strlen(t);
	if (n >= sizeof(c->text)) {
		c->type = CELL_TEXT_PTR;
		c->ptr = t;
		return -1;
	}
	c->type = CELL_TEXT;
	memcpy(c->text, t, n + 1);
	return 0;
}


#endif
