/*
 * findings_nccl.c: the nccl-path rule of findings.csv (issue 57 item 10).
 *
 * Definition. For a run of more than one GPU (collective_busbw.csv gpus):
 *   links_gb_per_s  NV# x the per-link NVLink bandwidth of the GPU
 *                   (system.csv "GPU model"), in GB/s per direction, NV#
 *                   the smallest bonded-link count over the pairs of GPUs
 *                   in interconnect.csv (nvidia-smi topo -m); only where
 *                   every pair of GPUs there is NV#, and the GPU is one of
 *                   the table below (else: nothing said);
 *   measured        collective_busbw.csv busbw_gb_per_s of the run's
 *                   AllReduce, else of its collective type with the most
 *                   bytes (the first of equals): the nccl-tests bus
 *                   bandwidth, GB/s, which on a path of links with B GB/s
 *                   per direction is at most B;
 *   finding         measured < NCCL_PATH_SHARE x links_gb_per_s.
 * Where a run input is NCCL's log (NCCL_DEBUG=INFO: lines "NCCL INFO
 * Channel ... via T"), the finding says each transport T (its first two
 * '/'-separated parts: NET/Socket, SHM/direct, P2P/CUMEM) and the number
 * of channel lines naming it.
 *
 * Per-link NVLink bandwidth, per direction, NVIDIA's published figures:
 * V100 SXM2 NVLink 2: 6 links, 300 GB/s in all both directions (Tesla V100
 * datasheet); A100 SXM4 NVLink 3: 12 links, 600 GB/s (A100 datasheet);
 * H100 and H200 SXM NVLink 4: 18 links, 900 GB/s (H100 and H200
 * datasheets): 25 GB/s per link per direction each; B200 NVLink 5: 18
 * links, 1.8 TB/s (DGX B200 datasheet): 50 GB/s per link per direction.
 */
#include "analyze/findings/findings_nccl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/findings/cells.h"
#include "analyze/findings/findings_tables.h"
#include "analyze/ranks/ranks_tables.h"
#include "analyze/replay/replay.h"
#include "util/buf.h"
#include "util/diag.h"

/* GB/s per NVLink per direction of a GPU model's name; 0: not known. */
static double link_gb_per_s(const char *gpu)
{
	static const struct {
		const char *part;
		double gbs;
	} nvlink[] = {{"V100", 25}, {"A100", 25}, {"H100", 25}, {"H200", 25}, {"B200", 50}};
	for (size_t i = 0; gpu && i < sizeof(nvlink) / sizeof(nvlink[0]); i++)
		if (strstr(gpu, nvlink[i].part))
			return nvlink[i].gbs;
	return 0;
}

/* The smallest NV# between two GPUs of interconnect.csv; 0 where a pair of GPUs is not NVLink or none is. */
static int nvlinks(const struct table *ic)
{
	int ca = col(ic, IC_A), cb = col(ic, IC_B), cl = col(ic, IC_LINK), least = 0;
	for (size_t r = 0; ca >= 0 && cb >= 0 && cl >= 0 && r < ic->nrows; r++) {
		const char *a = text(ic, r, ca), *b = text(ic, r, cb), *l = text(ic, r, cl);
		if (!a || !b || strncmp(a, "GPU", 3) || strncmp(b, "GPU", 3))
			continue;
		int n = l && !strncmp(l, "NV", 2) ? atoi(l + 2) : 0;
		if (n <= 0)
			return 0;
		if (!least || n < least)
			least = n;
	}
	return least;
}

static const char *gpu_model(const struct table *sys)
{
	int ci = col(sys, SYS_ITEM), cv = col(sys, SYS_VALUE);
	for (size_t r = 0; ci >= 0 && cv >= 0 && r < sys->nrows; r++) {
		const char *i = text(sys, r, ci);
		if (i && !strcmp(i, "GPU model"))
			return text(sys, r, cv);
	}
	return NULL;
}

struct transport {
	char name[48];
	int channels;
};

/*
 * Counts the "NCCL INFO Channel ... via T" lines of path per transport
 * (at most n kinds); returns the number of kinds. Only [A-Za-z0-9_-] and
 * one '/' of T are kept: the text goes into the page.
 */
static size_t nccl_transports(const char *path, struct transport *t, size_t n)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		diag_warning(path, "cannot read it for NCCL's transports (nccl-path finding)");
		return 0;
	}
	char line[4096];
	size_t k = 0;
	while (fgets(line, sizeof(line), f)) {
		const char *v = strstr(line, " via ");
		if (!v || !strstr(line, "NCCL INFO Channel"))
			continue;
		v += 5;
		char name[48];
		size_t m = 0;
		int slashes = 0;
		for (; *v && m + 1 < sizeof(name); v++) {
			if (*v == '/' && ++slashes == 2)
				break;
			if (!(*v == '/' || *v == '_' || *v == '-' || (*v >= 'A' && *v <= 'Z') || (*v >= 'a' && *v <= 'z') ||
			      (*v >= '0' && *v <= '9')))
				break;
			name[m++] = *v;
		}
		name[m] = '\0';
		if (!m)
			continue;
		size_t i = 0;
		while (i < k && strcmp(t[i].name, name))
			i++;
		if (i == k) {
			if (k == n)
				continue;
			snprintf(t[k].name, sizeof(t[k].name), "%s", name);
			t[k++].channels = 0;
		}
		t[i].channels++;
	}
	fclose(f);
	return k;
}

/* Appends what the run's NCCL logs (run inputs) say of its transports; 0 when none says. */
static int transport_words(struct buf *b, const struct manifest *mf, const char *run)
{
	for (size_t r = 0; mf && r < mf->nruns; r++) {
		const struct manifest_run *mr = &mf->runs[r];
		if (strcmp(mr->id, run))
			continue;
		for (size_t i = 0; i < mr->ninputs; i++) {
			struct transport t[8];
			size_t k = nccl_transports(mr->inputs[i], t, 8);
			if (!k)
				continue;
			const char *base = strrchr(mr->inputs[i], '/');
			buf_printf(b, "; NCCL's log (%s) says its channels ran via ", base ? base + 1 : mr->inputs[i]);
			for (size_t j = 0; j < k; j++)
				buf_printf(b, "%s%s (%d channel line%s)", j ? ", " : "", t[j].name, t[j].channels,
					   t[j].channels == 1 ? "" : "s");
			return 1;
		}
	}
	return 0;
}

int nccl_path_of(const struct analysis_result *res, const char *run, struct nccl_path *p)
{
	const struct table *bw = result_table(res, "collective_busbw");
	const struct table *ic = result_table(res, "interconnect"), *sys = result_table(res, "system");
	memset(p, 0, sizeof(*p));
	if (!bw || !ic || !sys)
		return 0;
	p->gpu = gpu_model(sys);
	p->per_link = link_gb_per_s(p->gpu);
	p->nv = nvlinks(ic);
	if (!p->per_link || !p->nv)
		return 0;
	int crun = col(bw, CBW_RUN), cg = col(bw, CBW_GPUS), cc = col(bw, CBW_COLLECTIVE), cb = col(bw, CBW_BYTES),
	    cbw = col(bw, CBW_BUSBW_GB_PER_S);
	if (crun < 0 || cg < 0 || cc < 0 || cb < 0 || cbw < 0)
		return 0;
	long pick = -1;
	for (size_t r = 0; r < bw->nrows; r++) {
		const char *rr = text(bw, r, crun), *c = text(bw, r, cc);
		if (!rr || strcmp(rr, run) || !(num(bw, r, cg) > 1) || isnan(num(bw, r, cbw)))
			continue;
		if (c && !strcmp(c, "AllReduce")) {
			pick = (long)r;
			break;
		}
		if (pick < 0 || num(bw, r, cb) > num(bw, (size_t)pick, cb))
			pick = (long)r;
	}
	if (pick < 0)
		return 0;
	p->measured = num(bw, (size_t)pick, cbw);
	p->links = p->nv * p->per_link;
	p->coll = text(bw, (size_t)pick, cc);
	if (!(p->measured < NCCL_PATH_SHARE * p->links))
		return 0;
	/* what the same collective reaches over NVLink in another run of the experiment */
	p->reach = NCCL_NVLINK_REACH * p->links;
	for (size_t r = 0; p->coll && r < bw->nrows; r++) {
		const char *rr = text(bw, r, crun), *c = text(bw, r, cc);
		double v = num(bw, r, cbw);
		if (rr && strcmp(rr, run) && c && !strcmp(c, p->coll) && num(bw, r, cg) > 1 &&
		    v >= NCCL_PATH_SHARE * p->links && (!p->reach_run || v > p->reach)) {
			p->reach = v;
			p->reach_run = rr;
		}
	}
	return 1;
}

/* The stated saving of replay_fixes.csv's nccl_path row of run into b; NAN where none is stated. */
static double replay_words(const struct analysis_result *res, const char *run, struct buf *b)
{
	const struct table *t = result_table(res, "replay_fixes");
	int crun = col(t, RF_RUN), cm = col(t, RF_MECHANISM), cs = col(t, RF_SAVING_US_PER_STEP), cst = col(t, RF_STATED),
	    cstep = col(t, RF_STEP_US), cw = col(t, RF_WHERE);
	for (size_t r = 0; t && crun >= 0 && cm >= 0 && r < t->nrows; r++) {
		const char *rr = text(t, r, crun), *m = text(t, r, cm), *w = text(t, r, cw);
		if (!rr || strcmp(rr, run) || !m || strcmp(m, "nccl_path"))
			continue;
		double save = num(t, r, cs), step = num(t, r, cstep);
		buf_adds(b, ". Replayed with every rank's collective kernels at that bus bandwidth (");
		buf_adds(b, w ? w : "");
		buf_printf(b, "), the step would take %.1f ms less than its %.1f ms (%.0f %%; replay_fixes.csv nccl_path)",
			   save / 1000, step / 1000, 100 * save / step);
		if (!(num(t, r, cst) > 0)) {
			buf_adds(b, ", within the replay's noise: not stated as a saving");
			return NAN;
		}
		return save;
	}
	return NAN;
}

void findings_nccl(const struct analysis_result *res, const struct manifest *mf, const char *run,
		   nccl_finding_fn emit, void *ctx)
{
	struct nccl_path p;
	if (!nccl_path_of(res, run, &p))
		return;
	double measured = p.measured, allow = p.links;
	struct buf b, rule;
	buf_init(&b);
	buf_init(&rule);
	buf_printf(&b, "NCCL is not using NVLink: the %s bus bandwidth is %.3g GB/s, %.1f %% of the %.0f GB/s per "
		       "direction the GPUs' NVLinks allow (nvidia-smi topo -m: NV%d, %d links x %.0f GB/s on %s)",
		   p.coll ? p.coll : "collectives'", measured, 100 * measured / allow, allow, p.nv, p.nv, p.per_link, p.gpu);
	if (!transport_words(&b, mf, run))
		buf_adds(&b, "; no NCCL log among the run's inputs says which transport it took (NCCL_DEBUG=INFO "
			     "prints it per channel)");
	double saving = replay_words(res, run, &b);
	buf_adds(&b, ". Unset NCCL_P2P_DISABLE, NCCL_SHM_DISABLE and NCCL_NET (and NCCL_P2P_LEVEL below NVL), "
		     "or check that the GPUs the job sees are the ones nvidia-smi topo -m links");
	buf_printf(&rule, "nccl-path (collectives off NVLink): collective_busbw.csv busbw_gb_per_s below %.3g of the "
			  "GPUs' NVLink bandwidth (interconnect.csv NV# x per-link GB/s of system.csv's GPU model); "
			  "priced by replay_fixes.csv nccl_path",
		   NCCL_PATH_SHARE);
	emit(ctx, run, -1, measured / allow, saving, "table-collective_busbw", rule.data, b.data);
	buf_release(&b);
	buf_release(&rule);
}
