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
	int least = 0;
	for (size_t r = 0; r < ic->nrows; r++) {
		const char *a = table_text(ic, r, IC_A), *b = table_text(ic, r, IC_B), *l = table_text(ic, r, IC_LINK);
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

/* The bundled reference of p->gpu (replay_nccl_path.h) into p->reach, reach_share and reach_bundled; 0: none. */
static void bundled_reach(struct nccl_path *p)
{
	static const struct {
		const char *part;
		double share;
		const char *run;
	} ref[] = {{"H200", NCCL_NVLINK_REACH, "the bundled tp2-p2p run (2 x H200, NV18)"},
		   {"H100", NCCL_NVLINK_REACH_H100, "the bundled gpt2-2gpu-ddp run of h100x4-papers (2 x H100, NV18)"}};
	p->reach = p->reach_share = 0;
	p->reach_bundled = NULL;
	for (size_t i = 0; p->gpu && i < sizeof(ref) / sizeof(ref[0]); i++)
		if (strstr(p->gpu, ref[i].part)) {
			p->reach_share = ref[i].share;
			p->reach = ref[i].share * p->links;
			p->reach_bundled = ref[i].run;
			return;
		}
}

static const char *gpu_model(const struct table *sys)
{
	for (size_t r = 0; r < sys->nrows; r++) {
		const char *i = table_text(sys, r, SYS_ITEM);
		if (i && !strcmp(i, "GPU model"))
			return table_text(sys, r, SYS_VALUE);
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
	/* the tables are there (above): their contracts' columns (a table short of them reads NAN or NULL) */
	const int crun = CBW_RUN, cg = CBW_GPUS, cc = CBW_COLLECTIVE, cb = CBW_BYTES, cbw = CBW_BUSBW_GB_PER_S;
	long pick = -1;
	for (size_t r = 0; r < bw->nrows; r++) {
		const char *rr = table_text(bw, r, crun), *c = table_text(bw, r, cc);
		if (!rr || strcmp(rr, run) || !(table_num(bw, r, cg) > 1) || isnan(table_num(bw, r, cbw)))
			continue;
		if (c && !strcmp(c, "AllReduce")) {
			pick = (long)r;
			break;
		}
		if (pick < 0 || table_num(bw, r, cb) > table_num(bw, (size_t)pick, cb))
			pick = (long)r;
	}
	if (pick < 0)
		return 0;
	p->measured = table_num(bw, (size_t)pick, cbw);
	p->links = p->nv * p->per_link;
	p->coll = table_text(bw, (size_t)pick, cc);
	if (!(p->measured < NCCL_PATH_SHARE * p->links))
		return 0;
	/* what the same collective reaches over NVLink in another run of the experiment, else a bundled run's on this GPU */
	bundled_reach(p);
	for (size_t r = 0; p->coll && r < bw->nrows; r++) {
		const char *rr = table_text(bw, r, crun), *c = table_text(bw, r, cc);
		double v = table_num(bw, r, cbw);
		if (rr && strcmp(rr, run) && c && !strcmp(c, p->coll) && table_num(bw, r, cg) > 1 &&
		    v >= NCCL_PATH_SHARE * p->links && (!p->reach_run || v > p->reach)) {
			p->reach = v;
			p->reach_run = rr;
		}
	}
	return 1;
}

