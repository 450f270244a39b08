/*
 * straggler_causes.c: what a rank that makes the others wait does more
 * than they do, named down to the region and the operator or kernel
 * (straggler_causes.csv).
 *
 * Who. The ranks of a multi-rank run that caused waiting
 * (straggler_ranks.csv caused_wait_us > 0: some other rank waited inside
 * a matched collective for it to arrive), most waiting first.
 *
 * What. Per rank, four kinds of time, each summed over the whole trace
 * and divided by the rank's ProfilerStep count (per step, in us):
 *   host region  the host time of a step phase (phases.c's rule: the
 *                innermost annotation named like a phase owns an
 *                instant; the union over threads), name empty;
 *   host op      per region and operator name, the summed duration of the
 *                outermost operators of each thread (cpu_ops: the store
 *                keeps only those, and enumerate(DataLoader)... at any
 *                depth), a call nested in one of the same name on the
 *                same thread left out; region: the phase holding the
 *                call's start;
 *   host gap     per region, the host time of the rank's steps (ProfilerStep
 *                ranges) that no operator and no CUDA runtime or driver
 *                call covers on any thread: a sleep, Python between
 *                operators, I/O, a lock; split by the phases' host time,
 *                the rest outside phases; name "(outside operators)";
 *   gpu region   the union of the GPU activities other than
 *                communication kernels (kernels, memcpys, memsets) whose
 *                launching runtime call starts in the phase, name empty;
 *   gpu kernel   per region and activity name, the summed duration of
 *                those activities.
 * GPU items also sum the bytes their copies moved (bytes_per_step).
 * Communication kernels are left out of the GPU rows: their duration
 * includes the wait for the other ranks, the effect and not the cause.
 * Time outside every phase is region "(outside phases)".
 *
 * excess_us_per_step = this rank's time per step - the median of the other
 * ranks' (a rank without the item counts 0; an even count of others: the
 * mean of the two middle values). calls: this rank's count over the trace,
 * other_calls the median of the others'. Rows with a positive excess are
 * kept, at most CAUSES_TOP of each kind per rank, largest excess first;
 * at most CAUSES_RANKS ranks per run, those that caused the most waiting
 * (a note says so when a run has more).
 *
 * Which side first. A straggler's rows are ordered by the side that made
 * it late, then by excess: its GPU's extra busy time (straggler_ranks.csv
 * compute_per_step_us, this rank minus the others' median) against its
 * GPU's extra idle time (ranks.csv idle_us, mean per step, likewise). Where
 * the GPU computed longer the gpu rows come first; where it sat idle
 * longer (waiting for its host) the host rows do. Extra GPU work on a rank
 * whose GPU still idles more than the others hid behind its host.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/intervals.h"
#include "analyze/ranks/causes_inputs.h"
#include "analyze/ranks/straggler_causes.h"
#include "analyze/time/phases.h"
#include "analyze/lib/rankdata.h"
#include "analyze/lib/stats.h"
#include "util/buf.h"
#include "util/intmap.h"
#include "util/xalloc.h"
#include "analyze/ranks/ranks_tables.h"

/*
 * Mechanism: why the rank spends the excess, one word of a fixed vocabulary
 * per rank (the run's finding says it with the fix to try) and per row:
 *   pageable_copy     copies from pageable (unpinned) host memory: a GPU
 *                     activity named "... (Pageable -> ...)" holds at least
 *                     MECH_SHARE of the rank's largest excess;
 *   copy              other copies (pinned, device) likewise;
 *   host_sync         the host waits for the GPU: synchronising operators
 *                     and calls (aten::item, aten::_local_scalar_dense,
 *                     cudaStreamSynchronize, ...) hold at least MECH_SHARE
 *                     of the largest host excess;
 *   host_outside_ops  host time outside any operator or CUDA call (gap
 *                     rows) holds at least MECH_SHARE of the largest excess
 *                     and of the rank's whole host excess (its regions' and
 *                     its gaps outside every region): a host slower
 *                     throughout also has longer gaps, in proportion (a
 *                     clean 2-GPU ZeRO-2 run: gaps 4.3 of 15.6 ms, every
 *                     operator 1.3-1.6x), and is slower_host;
 *   uneven_data       the kernels the rank shares with the others (same
 *                     name, same calls) take at least UNEVEN_RATIO times
 *                     the others' in forward and backward, but less than
 *                     SAME_RATIO in optimizer_step: the work that scales with
 *                     the samples grew, the work that scales with the
 *                     parameters did not, so the rank's inputs are larger;
 *   slower_gpu        those kernels are slower in the optimizer step too:
 *                     the GPU itself is slower (clocks, power, another job);
 *   extra_work        the largest GPU (or host) excess is an activity or
 *                     operator no other rank runs ("runs only on");
 *   more_calls        the largest named excess is more calls of what the
 *                     others also run;
 *   slower_host       none of these, on the host side; slower_kernels on
 *                     the GPU side.
 * Rows: copies, synchronising operators and gaps get their own word; a
 * kernel only this rank runs is different_kernel on a rank with uneven data
 * (the same operators on other shapes: cuBLAS picked another kernel), else
 * extra_work; more calls than the others' median, more_calls; every other
 * row the rank's word.
 */
#define MECH_SHARE 0.5
#define UNEVEN_RATIO 1.10
#define SAME_RATIO 1.05

/* The rows kept per rank and kind. */
#define CAUSES_TOP 10
/* The ranks described per run: those that caused the most waiting (a run of 1024 ranks may have 1000). */
#define CAUSES_RANKS 16

enum cause_kind { K_HOST_REGION, K_HOST_OP, K_HOST_GAP, K_GPU_REGION, K_GPU_NAME, NK };

/* The name of the gap rows. */
#define GAP_NAME "(outside operators)"

/* One item of one rank: its kind, region (phase index, -1 outside) and name id (-1 the whole region). */
struct item {
	int kind, region;
	int64_t name;
	int64_t ns, calls, bytes; /* bytes: copied by the item's activities (GPU items), 0 else */
};

struct rank_prof {
	int rank;
	int64_t nsteps;
	size_t n;
	struct item *v; /* sorted by (kind, region, name), unique */
};

static int cmp_item(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->region != b->region)
		return a->region < b->region ? -1 : 1;
	return a->name < b->name ? -1 : a->name > b->name;
}

static void push(struct item **v, size_t *n, size_t *cap, struct item it)
{
	*v = xgrow(*v, cap, *n + 1, sizeof(**v));
	(*v)[(*n)++] = it;
}

/* Sorts v and sums the items of equal key (calls and ns; the region item's own sums stay). */
static size_t merge_items(struct item *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_item);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && !cmp_item(&v[k - 1], &v[i])) {
			v[k - 1].ns += v[i].ns;
			v[k - 1].calls += v[i].calls;
			v[k - 1].bytes += v[i].bytes;
		} else {
			v[k++] = v[i];
		}
	}
	return k;
}

/* Operator indices in order of (thread, start, longest first), for the same-name nesting test. */
static const struct rank_data *sort_d;
static int cmp_op(const void *pa, const void *pb)
{
	const struct rk_range *a = &sort_d->cpu_ops[*(const size_t *)pa], *b = &sort_d->cpu_ops[*(const size_t *)pb];
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end > b->end ? -1 : a->end < b->end;
}

/* The items of one rank (see the file's comment). host: nph scratch sets. */
static void profile_rank(struct store *s, struct phase_names *nm, const struct phase *ph, size_t nph,
			 const struct rank_data *d, struct ivset *host, int64_t *calls, struct rank_prof *rp)
{
	struct item *v = NULL;
	size_t n = 0, cap = 0;
	phase_host_time(s, nm, ph, nph, d, host, calls);
	for (size_t p = 0; p < nph; p++)
		push(&v, &n, &cap, (struct item){K_HOST_REGION, (int)p, -1, ivset_measure(&host[p]), calls[p], 0});

	/* host operators: calls nested in a call of the same name on the same thread are inside that one */
	size_t *ord = xmalloc((d->ncpu_ops ? d->ncpu_ops : 1) * sizeof(*ord));
	const struct rk_range **open = xmalloc((d->ncpu_ops ? d->ncpu_ops : 1) * sizeof(*open));
	for (size_t i = 0; i < d->ncpu_ops; i++)
		ord[i] = i;
	sort_d = d;
	if (d->ncpu_ops > 1)
		qsort(ord, d->ncpu_ops, sizeof(*ord), cmp_op);
	size_t depth = 0;
	for (size_t j = 0; j < d->ncpu_ops; j++) {
		const struct rk_range *o = &d->cpu_ops[ord[j]];
		if (j && o->tid != d->cpu_ops[ord[j - 1]].tid)
			depth = 0;
		while (depth && open[depth - 1]->end <= o->start)
			depth--;
		int nested = 0;
		for (size_t k = 0; k < depth && !nested; k++)
			nested = open[k]->key == o->key;
		open[depth++] = o;
		if (!nested)
			push(&v, &n, &cap, (struct item){K_HOST_OP, phase_at(host, nph, o->start), o->key, o->end - o->start, 1, 0});
	}
	free(ord);
	free(open);

	/* host gaps: the steps' host time no operator and no runtime or driver call covers, on any thread */
	struct ivset busy, stepset, gaps;
	ivset_init(&busy);
	ivset_init(&stepset);
	ivset_init(&gaps);
	for (size_t i = 0; i < d->ncpu_ops; i++)
		ivset_add(&busy, d->cpu_ops[i].start, d->cpu_ops[i].end);
	for (size_t i = 0; i < d->nlaunches; i++)
		ivset_add(&busy, d->launches[i].start, d->launches[i].end);
	for (size_t i = 0; i < d->nsteps; i++)
		ivset_add(&stepset, d->steps[i].start, d->steps[i].end);
	ivset_normalize(&busy);
	ivset_normalize(&stepset);
	ivset_subtract(&stepset, &busy, &gaps);
	int64_t gap_left = ivset_measure(&gaps);
	for (size_t p = 0; p < nph; p++) { /* the phases' host times are disjoint */
		struct ivset in;
		ivset_init(&in);
		ivset_intersect(&gaps, &host[p], &in);
		int64_t m = ivset_measure(&in);
		ivset_release(&in);
		if (m > 0)
			push(&v, &n, &cap, (struct item){K_HOST_GAP, (int)p, -1, m, 1, 0});
		gap_left -= m;
	}
	if (gap_left > 0)
		push(&v, &n, &cap, (struct item){K_HOST_GAP, -1, -1, gap_left, 1, 0});
	ivset_release(&busy);
	ivset_release(&stepset);
	ivset_release(&gaps);

	/* GPU activities by the phase of their launch, communication kernels left out */
	struct ivset *gpu = xcalloc(nph + 1, sizeof(*gpu));
	int64_t *gcount = xcalloc(nph + 1, sizeof(*gcount));
	for (size_t p = 0; p <= nph; p++)
		ivset_init(&gpu[p]);
	struct launch_index *idx = rank_launch_index(d);
	for (size_t i = 0; i < d->nacts; i++) {
		const struct rk_act *a = &d->acts[i];
		if (a->kind == ACT_KERNEL && a->cls == RK_COMM)
			continue;
		const struct rk_range *l = rank_launch_of(d, idx, a->corr);
		if (!l)
			continue; /* no launch: no phase to put it in */
		int p = phase_at(host, nph, l->start);
		size_t pi = p < 0 ? nph : (size_t)p;
		ivset_add(&gpu[pi], a->start, a->end);
		gcount[pi]++;
		push(&v, &n, &cap, (struct item){K_GPU_NAME, p, a->name_id, a->end - a->start, 1, a->bytes > 0 ? a->bytes : 0});
	}
	rank_launch_index_release(d, idx);
	for (size_t p = 0; p <= nph; p++) {
		ivset_normalize(&gpu[p]);
		push(&v, &n, &cap, (struct item){K_GPU_REGION, p < nph ? (int)p : -1, -1, ivset_measure(&gpu[p]), gcount[p], 0});
		ivset_release(&gpu[p]);
	}
	free(gpu);
	free(gcount);
	rp->nsteps = (int64_t)d->nsteps;
	rp->n = merge_items(v, n);
	/* Only the merged items are kept, for every rank of the run: one per kernel was 67 MB at 2048 ranks. */
	rp->v = rp->n ? xrealloc(v, rp->n * sizeof(*v)) : v;
}

static const struct item *find_item(const struct rank_prof *rp, const struct item *key)
{
	return rp->n ? bsearch(key, rp->v, rp->n, sizeof(*rp->v), cmp_item) : NULL;
}

/* A row before its output. */
struct cause {
	int kind, region;
	int64_t name;
	double excess, mine, others, calls, other_calls, bytes; /* ns per step; counts; bytes per step */
	double order; /* the excess it is ordered by: a gap row's at most its region row's */
	int first;    /* 1: on the side that made the rank late */
};

/* The synchronising host operators and CUDA calls (host_sync): each makes the host wait for the GPU. */
static int is_sync(const char *n)
{
	static const char *const sync[] = {"aten::item", "aten::_local_scalar_dense", "aten::nonzero",
					   "aten::is_nonzero", "aten::equal", "aten::cpu", "cudaStreamSynchronize",
					   "cudaDeviceSynchronize", "cudaEventSynchronize", NULL};
	for (size_t i = 0; sync[i]; i++)
		if (!strcmp(n, sync[i]))
			return 1;
	return 0;
}

/* A copy's name (the profilers' "Memcpy HtoD (Pageable -> Device)", ...): 2 pageable, 1 another copy, 0 none. */
static int copy_of(const char *n)
{
	if (strncmp(n, "Memcpy", 6) && !strstr(n, "memcpy"))
		return 0;
	return strstr(n, "Pageable") ? 2 : 1;
}

/* A region that does parameter-sized work (the optimizer step), by its phase name. */
static int is_optimizer_region(const struct phase *ph, int region)
{
	return region >= 0 && strstr(ph[region].name, "optim") != NULL;
}

/*
 * straggler_causes.csv's mechanism codes, the one table of them (enum
 * straggler_mech: straggler_causes.h): each with its words in short, which
 * What to fix first shows (report_top.c, through
 * straggler_mechanism_words); the finding says them in full with the
 * numbers and the fix (findings_why.c). Readers of the column compare
 * straggler_mechanism(code) with the enum, never the code's text.
 */
static const struct {
	const char *code, *words;
} mechanisms[NSMECH] = {
	[SM_PAGEABLE_COPY] = {"pageable_copy", "pageable-memory copy"},
	[SM_COPY] = {"copy", "copies"},
	[SM_HOST_SYNC] = {"host_sync", "host synchronisation"},
	[SM_HOST_OUTSIDE_OPS] = {"host_outside_ops", "host time outside any operator"},
	[SM_UNEVEN_DATA] = {"uneven_data", "uneven data across ranks"},
	[SM_SLOWER_GPU] = {"slower_gpu", "slower GPU"},
	[SM_EXTRA_WORK] = {"extra_work", "extra work no other rank runs"},
	[SM_MORE_CALLS] = {"more_calls", "more calls than the other ranks"},
	[SM_DIFFERENT_KERNEL] = {"different_kernel", "a different kernel"},
	[SM_SLOWER_KERNELS] = {"slower_kernels", "slower GPU work throughout"},
	[SM_SLOWER_HOST] = {"slower_host", "slower host work throughout"},
};

enum straggler_mech straggler_mechanism(const char *code)
{
	for (size_t i = 0; code && i < NSMECH; i++)
		if (!strcmp(mechanisms[i].code, code))
			return (enum straggler_mech)i;
	return NSMECH;
}

const char *straggler_mechanism_words(const char *code)
{
	enum straggler_mech m = straggler_mechanism(code);
	return m < NSMECH ? mechanisms[m].words : NULL;
}

/*
 * The rank's mechanism (see MECH_SHARE above) from its rows c[0 .. nc),
 * with their names (NULL for region rows and names not looked up), and the
 * ratios of its shared kernels' time to the others' in sample-sized (fb)
 * and parameter-sized (opt) regions (NAN when none).
 */
static const char *rank_mechanism(const struct cause *c, size_t nc, char *const *names, double fb, double opt,
				  int gpu_first)
{
	double top = 0, pageable = 0, copies = 0, sync = 0, gap = 0, host = 0;
	long named = -1;
	for (size_t i = 0; i < nc; i++) {
		if (c[i].excess > top)
			top = c[i].excess;
		if (c[i].kind == K_HOST_GAP)
			gap += c[i].excess;
		/* the rank's whole host excess: its regions, and its gaps outside every region */
		if (c[i].excess > 0 && (c[i].kind == K_HOST_REGION || (c[i].kind == K_HOST_GAP && c[i].region < 0)))
			host += c[i].excess;
		if (!names[i])
			continue;
		if (c[i].kind == K_GPU_NAME && copy_of(names[i]))
			*(copy_of(names[i]) == 2 ? &pageable : &copies) += c[i].excess;
		if (c[i].kind == K_HOST_OP && is_sync(names[i]))
			sync += c[i].excess;
		if ((c[i].kind == K_GPU_NAME || c[i].kind == K_HOST_OP) && (named < 0 || c[i].excess > c[named].excess))
			named = (long)i;
	}
	if (top <= 0)
		return gpu_first ? mechanisms[SM_SLOWER_KERNELS].code : mechanisms[SM_SLOWER_HOST].code;
	if (pageable >= MECH_SHARE * top)
		return mechanisms[SM_PAGEABLE_COPY].code;
	if (copies >= MECH_SHARE * top)
		return mechanisms[SM_COPY].code;
	if (sync >= MECH_SHARE * top)
		return mechanisms[SM_HOST_SYNC].code;
	if (gap >= MECH_SHARE * top && gap >= MECH_SHARE * host)
		return mechanisms[SM_HOST_OUTSIDE_OPS].code;
	if (!isnan(fb) && fb >= UNEVEN_RATIO)
		return isnan(opt) || opt < SAME_RATIO ? mechanisms[SM_UNEVEN_DATA].code : mechanisms[SM_SLOWER_GPU].code;
	if (named >= 0 && c[named].excess >= MECH_SHARE * top) {
		if (c[named].other_calls == 0)
			return mechanisms[SM_EXTRA_WORK].code;
		if (c[named].calls > c[named].other_calls)
			return mechanisms[SM_MORE_CALLS].code;
	}
	return gpu_first ? mechanisms[SM_SLOWER_KERNELS].code : mechanisms[SM_SLOWER_HOST].code;
}

/* A row's own mechanism word, given its name (NULL: a region row) and the rank's. */
static const char *row_mechanism(const struct cause *c, const char *name, const char *rank_mech)
{
	if (c->kind == K_HOST_GAP)
		return mechanisms[SM_HOST_OUTSIDE_OPS].code;
	if (!name)
		return rank_mech;
	if (c->kind == K_GPU_NAME && copy_of(name))
		return copy_of(name) == 2 ? mechanisms[SM_PAGEABLE_COPY].code : mechanisms[SM_COPY].code;
	if (c->kind == K_HOST_OP && is_sync(name))
		return mechanisms[SM_HOST_SYNC].code;
	if (c->other_calls == 0)
		return c->kind == K_GPU_NAME && !strcmp(rank_mech, mechanisms[SM_UNEVEN_DATA].code)
			       ? mechanisms[SM_DIFFERENT_KERNEL].code
			       : mechanisms[SM_EXTRA_WORK].code;
	if (c->calls > c->other_calls)
		return mechanisms[SM_MORE_CALLS].code;
	return rank_mech;
}

static int cmp_cause(const void *pa, const void *pb)
{
	const struct cause *a = pa, *b = pb;
	if (a->first != b->first)
		return a->first ? -1 : 1;
	if (a->order != b->order)
		return a->order > b->order ? -1 : 1;
	if (a->kind != b->kind) /* ties: regions before what is in them */
		return a->kind < b->kind ? -1 : 1;
	return cmp_item(&(struct item){a->kind, a->region, a->name, 0, 0, 0},
			&(struct item){b->kind, b->region, b->name, 0, 0, 0});
}

/* The rows of straggler s (index into rp[0 .. nr)), appended to t. */
static void rank_rows(struct store *st, const char *run, int64_t run_db_id, const struct rank_prof *rp, size_t nr,
		      size_t s, const struct phase *ph, int gpu_first, const char *shapes, struct table *t)
{
	struct cause *c = NULL;
	size_t nc = 0, cap = 0;
	double *o = xmalloc(nr * sizeof(*o)), *oc = xmalloc(nr * sizeof(*oc));
	/* the shared kernels (same name and calls as the others' median) in sample- and parameter-sized regions */
	double fb_m = 0, fb_o = 0, opt_m = 0, opt_o = 0;
	/* every item some rank has: this rank's, and the others' it lacks (excess negative: never kept) */
	for (size_t i = 0; i < rp[s].n; i++) {
		const struct item *it = &rp[s].v[i];
		size_t no = 0;
		for (size_t r = 0; r < nr; r++) {
			if (r == s)
				continue;
			const struct item *x = find_item(&rp[r], it);
			double steps = rp[r].nsteps > 0 ? (double)rp[r].nsteps : 1;
			o[no] = x ? (double)x->ns / steps : 0;
			oc[no] = x ? (double)x->calls : 0;
			no++;
		}
		double steps = rp[s].nsteps > 0 ? (double)rp[s].nsteps : 1;
		double mine = (double)it->ns / steps, others = stats_median_double(o, no), other_calls = stats_median_double(oc, no);
		if (it->kind == K_GPU_NAME && it->region >= 0 && others > 0 && other_calls == (double)it->calls) {
			int opt = is_optimizer_region(ph, it->region);
			*(opt ? &opt_m : &fb_m) += mine;
			*(opt ? &opt_o : &fb_o) += others;
		}
		if (mine - others <= 0)
			continue;
		c = xgrow(c, &cap, nc + 1, sizeof(*c));
		c[nc++] = (struct cause){it->kind, it->region, it->name, mine - others, mine, others, (double)it->calls,
					 other_calls, (double)it->bytes / steps, mine - others, (it->kind >= K_GPU_REGION) == gpu_first};
	}
	/* a gap row after its region's row: the region's time holds it; the mechanism says the gap */
	for (size_t i = 0; i < nc; i++)
		for (size_t j = 0; c[i].kind == K_HOST_GAP && c[i].region >= 0 && j < nc; j++)
			if (c[j].kind == K_HOST_REGION && c[j].region == c[i].region && c[i].order >= c[j].order)
				c[i].order = c[j].order;
	if (nc > 1)
		qsort(c, nc, sizeof(*c), cmp_cause);
	/* names: of the rows kept and of every named row large enough to weigh in the rank's mechanism */
	double top = 0;
	for (size_t i = 0; i < nc; i++)
		top = c[i].excess > top ? c[i].excess : top;
	char **names = xcalloc(nc ? nc : 1, sizeof(*names));
	size_t kept[NK] = {0};
	for (size_t i = 0; i < nc; i++)
		if (c[i].name >= 0 && (kept[c[i].kind]++ < CAUSES_TOP || c[i].excess >= 0.01 * top))
			names[i] = rank_name(st, c[i].name);
	const char *mech = rank_mechanism(c, nc, names, fb_o > 0 ? fb_m / fb_o : NAN, opt_o > 0 ? opt_m / opt_o : NAN,
					  gpu_first);
	memset(kept, 0, sizeof(kept));
	for (size_t i = 0; i < nc; i++) {
		if (kept[c[i].kind]++ >= CAUSES_TOP)
			continue;
		size_t row = table_add_row(t), col = 0;
		table_set_text(t, row, col++, run);
		table_set_int(t, row, col++, rp[s].rank);
		table_set_text(t, row, col++, c[i].kind < K_GPU_REGION ? "host" : "gpu");
		table_set_text(t, row, col++, c[i].region >= 0 ? ph[c[i].region].name : "(outside phases)");
		const char *name = c[i].kind == K_HOST_GAP ? GAP_NAME : names[i];
		table_set_text(t, row, col++, name ? name : "");
		table_set_ns(t, row, col++, (int64_t)(c[i].excess + 0.5));
		table_set_int(t, row, col++, (int64_t)c[i].calls);
		table_set_real(t, row, col++, c[i].other_calls);
		table_set_ns(t, row, col++, (int64_t)(c[i].mine + 0.5));
		table_set_ns(t, row, col++, (int64_t)(c[i].others + 0.5));
		const char *rm = row_mechanism(&c[i], c[i].kind == K_HOST_GAP ? NULL : names[i], mech);
		table_set_text(t, row, col++, rm);
		if (c[i].kind == K_GPU_NAME && c[i].bytes > 0)
			table_set_int(t, row, col, (int64_t)(c[i].bytes + 0.5));
		col++;
		if (c[i].kind == K_GPU_NAME && c[i].bytes > 0 && c[i].mine > 0)
			table_set_real(t, row, col, c[i].bytes / c[i].mine); /* bytes per ns = GB/s */
		col++;
		double pg = !strcmp(rm, "pageable_copy") && names[i] ? causes_pinned_gbps(st, run_db_id, names[i]) : NAN;
		if (!isnan(pg))
			table_set_real(t, row, col, pg);
		col++;
		/* the rank's shapes on the rows whose excess they explain */
		if (*shapes &&
		    (!strcmp(rm, mechanisms[SM_UNEVEN_DATA].code) || !strcmp(rm, mechanisms[SM_DIFFERENT_KERNEL].code)))
			table_set_text(t, row, col, shapes);
		col++;
	}
	for (size_t i = 0; i < nc; i++)
		free(names[i]);
	free(names);
	free(c);
	free(o);
	free(oc);
}

/*
 * The caused_wait_us of straggler_ranks.csv (ns) of each of the n ranks
 * of run in keys, into w (0 where a rank has no row; its first row where
 * it has several), in one pass over the table.
 */
static void caused_waits(const struct table *sr, const char *run, const struct rank_key *keys, size_t n, int64_t *w)
{
	int crun = SR_RUN, crank = SR_RANK,
	    cw = SR_CAUSED_WAIT_US;
	struct intmap m = {0};
	unsigned char *set = xcalloc(n ? n : 1, 1);
	for (size_t i = 0; i < n; i++) {
		w[i] = 0;
		intmap_index(&m, keys[i].rank, i);
	}
	for (size_t r = 0; crun >= 0 && crank >= 0 && cw >= 0 && r < sr->nrows; r++) {
		const struct cell *a = table_cell(sr, r, (size_t)crun), *b = table_cell(sr, r, (size_t)crank),
				  *c = table_cell(sr, r, (size_t)cw);
		if (a->null || strcmp(a->v.text, run) || b->null || c->null)
			continue;
		size_t i = intmap_get(&m, b->v.i);
		if (i != SIZE_MAX && !set[i]) {
			w[i] = c->v.i;
			set[i] = 1;
		}
	}
	free(set);
	intmap_free(&m);
}

struct strag {
	size_t ri;
	int64_t caused;
};

static int cmp_strag(const void *pa, const void *pb)
{
	const struct strag *a = pa, *b = pb;
	if (a->caused != b->caused)
		return a->caused > b->caused ? -1 : 1;
	return a->ri < b->ri ? -1 : a->ri > b->ri;
}

static int analysis_straggler_causes(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	const struct table *sr = result_table(out, "straggler_ranks");
	if (!sr)
		return 0; /* no multi-rank run with matched collectives: nobody waited for anybody */
	struct rank_key *keys;
	size_t nkeys, nph;
	if (rank_keys(ctx->store, ctx->experiment, &keys, &nkeys) < 0)
		return -1;
	struct phase *ph = phase_list(ctx->manifest, &nph);
	struct classifier *cls = classifier_preset("default");
	struct phase_names nm = {0};
	struct table *t = table_new("straggler_causes",
				    "What each rank that made the others wait did more than they did, per step",
				    TABLE_SCHEMA(STRAGGLER_CAUSES_COLUMNS));
	struct ivset *host = xcalloc(nph ? nph : 1, sizeof(*host));
	int64_t *calls = xcalloc(nph ? nph : 1, sizeof(*calls));
	for (size_t p = 0; p < nph; p++)
		ivset_init(&host[p]);
	int ret = -1;
	for (size_t k = 0; k < nkeys;) {
		size_t e = k + 1;
		while (e < nkeys && !strcmp(keys[e].run, keys[k].run))
			e++;
		size_t nr = e - k, nstrag = 0;
		struct strag *sg = xcalloc(nr, sizeof(*sg));
		int64_t *cw = xcalloc(nr, sizeof(*cw));
		if (nr >= 2)
			caused_waits(sr, keys[k].run, &keys[k], nr, cw);
		for (size_t i = 0; nr >= 2 && i < nr; i++)
			if (cw[i] > 0)
				sg[nstrag++] = (struct strag){i, cw[i]};
		free(cw);
		if (!nstrag) {
			free(sg);
			k = e;
			continue;
		}
		struct rank_prof *rp = xcalloc(nr, sizeof(*rp));
		struct op_dims **od = xcalloc(nr, sizeof(*od));
		size_t *nod = xcalloc(nr, sizeof(*nod));
		int failed = 0;
		for (size_t i = 0; i < nr && !failed; i++) {
			struct rank_data d;
			long nd = causes_rank_op_dims(ctx->store, &keys[k + i], &od[i]);
			if (nd < 0 || rank_data_load(ctx->store, &keys[k + i], cls, &d) < 0) {
				failed = 1;
				break;
			}
			nod[i] = (size_t)nd;
			rp[i].rank = keys[k + i].rank;
			profile_rank(ctx->store, &nm, ph, nph, &d, host, calls, &rp[i]);
			rank_data_release(&d);
		}
		if (!failed) {
			if (nstrag) /* qsort's array may not be NULL, even when empty */
				qsort(sg, nstrag, sizeof(*sg), cmp_strag);
			if (nstrag > CAUSES_RANKS) {
				result_add_note(out, "straggler_causes.csv: in run %s %zu ranks made the others wait; the %d "
						"that made them wait longest are described", keys[k].run, nstrag, CAUSES_RANKS);
				nstrag = CAUSES_RANKS;
			}
			for (size_t i = 0; i < nstrag; i++) {
				double busy, idle;
				straggler_side(out, keys[k].run, rp[sg[i].ri].rank, &busy, &idle);
				int gpu_first = !isnan(busy) && (isnan(idle) || busy > idle);
				struct buf shapes;
				buf_init(&shapes);
				causes_rank_shapes(ctx->store, od, nod, nr, sg[i].ri, &shapes);
				rank_rows(ctx->store, keys[k].run, keys[k].run_db_id, rp, nr, sg[i].ri, ph, gpu_first,
					  shapes.data, t);
				buf_release(&shapes);
			}
		}
		for (size_t i = 0; i < nr; i++) {
			free(rp[i].v);
			free(od[i]);
		}
		free(od);
		free(nod);
		free(rp);
		free(sg);
		if (failed)
			goto out;
		k = e;
	}
	if (t->nrows) {
		result_add_table(out, t);
		t = NULL;
		result_add_method(
			out, "straggler_causes.csv",
			"Per multi-rank run, for each rank that made the others wait (straggler_ranks.csv caused_wait_us "
			"> 0; most waiting first), what it spends more time on than the other ranks, per step. Four kinds "
			"of time, each summed over the rank's trace and divided by its ProfilerStep count: host regions "
			"(where host, name empty: the host time of a step phase as phases.csv defines it, the innermost "
			"annotation named like a phase owning each instant, the union over threads); host operators "
			"(where host: per region and operator name, the summed duration of the outermost operators of "
			"each thread, as the store keeps them, a call nested in one of the same name on the same thread "
			"left out; the region is the phase holding the call's start); host time outside operators (where "
			"host, name '(outside operators)': the host time of the rank's ProfilerStep ranges that no "
			"operator and no CUDA runtime or driver call covers on any thread, split by the phases' host "
			"time, the rest outside phases: a sleep, Python, I/O, a lock; calls 1); GPU "
			"regions (where gpu, name empty: the union of the kernels, memcpys and memsets launched (runtime "
			"call with the same correlation id) while the host was in the phase); and per region the GPU "
			"activities by name (summed durations). Communication kernels are left out of the GPU rows: their "
			"time includes the wait for the other ranks, the effect rather than the cause. Time outside every "
			"phase is region '(outside phases)'. us_per_step: this rank's time per step; other_us_per_step: "
			"the median of the other ranks' (0 for a rank without the item; an even count: the mean of the "
			"two middle values); excess_us_per_step = us_per_step - other_us_per_step; calls: this rank's "
			"count over the trace, other_calls the median of the others' (0: run only on this rank). "
			"bytes_per_step and gb_per_s: what a GPU row's copies moved per step, and at what rate over their "
			"own time (bytes per ns). mechanism, why the rank spends the excess, one word per rank (on its "
			"region rows) and per row: pageable_copy (copies from pageable host memory, activities named "
			"'(Pageable -> ...)', hold at least half of the rank's largest excess), copy (other copies "
			"likewise), host_sync (synchronising operators and calls: aten::item, aten::_local_scalar_dense, "
			"aten::nonzero, aten::is_nonzero, aten::equal, aten::cpu, cudaStreamSynchronize, "
			"cudaDeviceSynchronize, cudaEventSynchronize, at least half), host_outside_ops (host time outside "
			"operators, at least half of the largest excess and of the rank's whole host excess, its regions' "
			"and its time outside every region: a host slower throughout has longer gaps too, in proportion), "
			"uneven_data (the kernels the rank shares with the others, same name "
			"and calls, take at least 1.10x the others' in the regions other than the optimizer step but "
			"less than 1.05x in it: the work that grows with the samples grew, the work that grows with the "
			"parameters did not, so its inputs are larger), slower_gpu (at least 1.10x there and 1.05x in the "
			"optimizer step: the GPU itself is slower), extra_work (the largest named excess, at least half of "
			"the largest, is something no other rank runs), more_calls (it is more calls of what the others "
			"run), else slower_kernels (GPU side first) or slower_host; per row, copies, synchronising "
			"operators and gaps get their own word, a kernel no other rank runs is different_kernel on a rank "
			"with uneven data (the same operators on larger shapes: the library picked another kernel) and "
			"extra_work elsewhere, a row with more calls than the others' median more_calls, every other row "
			"the rank's word. pinned_gb_per_s (pageable_copy rows): the rate the run's copies in the same "
			"direction from or to pinned memory reach (the row's name with Pageable read as Pinned, e.g. "
			"'Memcpy HtoD (Pinned -> Device)', every rank of the run: their bytes summed over their time "
			"summed), empty when the run has none. shapes (uneven_data and different_kernel rows, where the "
			"traces recorded input shapes, record_shapes=True): per operator name, the rank's first call "
			"with 'Input Dims' among the operators the store keeps (the outermost of each thread) is matched "
			"with the other ranks' first call of that name, their dims those most of them have (ties: the "
			"lowest rank's); where they differ, the first input whose dims differ gives the two shapes and "
			"the ratio of their element counts, this rank's over the others'; of the operators that differ, "
			"the one with the largest ratio is stated (ties: the one this rank called first), as "
			"'[12,1024] vs [8,1024] (1.50x)'; empty when no trace recorded shapes or none differ. Rows "
			"with a positive excess, at most 10 of each kind per rank, largest excess first; at most 16 ranks "
			"per run, those that caused the most waiting. "
			"Order: per rank, first the rows of the side that made it late, then the others, each by excess: "
			"the gpu rows first where its GPU's extra busy time (straggler_ranks.csv compute_per_step_us, this "
			"rank minus the others' median) exceeds its GPU's extra idle time (ranks.csv idle_us, mean per "
			"step, likewise), else the host rows (its GPU sat idle waiting for its host; extra GPU work then "
			"hid behind the host).");
	}
	ret = 0;
out:
	for (size_t p = 0; p < nph; p++)
		ivset_release(&host[p]);
	free(host);
	free(calls);
	phase_names_release(&nm);
	free(ph);
	table_free(t);
	classifier_free(cls);
	rank_keys_free(keys, nkeys);
	return ret;
}

const struct analysis_def analysis_def_straggler_causes = {
	.name = "straggler_causes",
	.run = analysis_straggler_causes,
	.needs = ANALYSIS_TABLES("straggler_ranks", "ranks"),
	.makes = ANALYSIS_TABLES("straggler_causes"),
};
