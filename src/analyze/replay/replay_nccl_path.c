/*
 * replay_nccl_path.c: a run's collectives against its NVLinks (replay_nccl_path.h).
 *
 * Definition. For a run of more than one GPU (collective_busbw.csv gpus):
 *   links_gb_per_s  NV# x the per-link NVLink bandwidth of the GPU
 *                   (system.csv "GPU model"), in GB/s per direction, NV#
 *                   the smallest bonded-link count over the pairs of GPUs
 *                   in interconnect.csv (nvidia-smi topo -m); only where
 *                   every pair of GPUs there is NV#, and the GPU is one of
 *                   the table below (else: not off NVLink);
 *   measured        collective_busbw.csv busbw_gb_per_s of the run's
 *                   AllReduce, else of its collective type with the most
 *                   bytes (the first of equals): the nccl-tests bus
 *                   bandwidth, GB/s, which on a path of links with B GB/s
 *                   per direction is at most B;
 *   off NVLink      measured < NCCL_PATH_SHARE x links_gb_per_s.
 *
 * Per-link NVLink bandwidth, per direction, NVIDIA's published figures:
 * V100 SXM2 NVLink 2: 6 links, 300 GB/s in all both directions (Tesla V100
 * datasheet); A100 SXM4 NVLink 3: 12 links, 600 GB/s (A100 datasheet);
 * H100 and H200 SXM NVLink 4: 18 links, 900 GB/s (H100 and H200
 * datasheets): 25 GB/s per link per direction each; B200 NVLink 5: 18
 * links, 1.8 TB/s (DGX B200 datasheet): 50 GB/s per link per direction.
 */
#include "analyze/replay/replay_nccl_path.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/inputs/inputs_tables.h"
#include "analyze/ranks/ranks_tables.h"

/* Column c of t, or -1 where t is absent: the contract's enum (util/table.h). */
static int col(const struct table *t, int c)
{
	return t ? c : -1;
}

static double num(const struct table *t, size_t row, int c)
{
	return table_num(t, row, c);
}

static const char *text(const struct table *t, size_t row, int c)
{
	return table_text(t, row, c);
}

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

