/*
 * replay_nccl_path.h: whether a run's collectives took a path slower than its
 * GPUs' NVLinks (replay_nccl_path.c): the nccl-path finding's test
 * (findings_nccl.c) and the replay's nccl_path fix (replay.c) share it.
 */
#ifndef PERFSTUDY_REPLAY_NCCL_PATH_H
#define PERFSTUDY_REPLAY_NCCL_PATH_H

#include "analyze/analysis.h"

/*
 * NCCL_PATH_SHARE: a run's bus bandwidth below this share of its NVLinks'
 * is not NVLink's. NCCL over NVLink reaches 31-62 % of the links in the
 * bundled runs (the lowest: a small GPT-2's AllReduce on 4 x H100, 139 of
 * 450 GB/s); through host memory (NCCL_P2P_DISABLE=1, SHM) 6 %, over
 * sockets 1.4-1.8 %; PCIe Gen5 x16 (64 GB/s per direction) is 14 % of
 * H100's NVLink, so one eighth tells NVLink from every other path.
 */
#define NCCL_PATH_SHARE 0.125

/*
 * The share of its NVLinks' bandwidth NCCL's bus bandwidth reaches over
 * NVLink where the experiment has no run that measures it, from a bundled
 * run on the same GPU (a reference on another GPU is not one):
 *   H200: the tp2-p2p run's AllReduce (experiments/h200x4-parallel, 2 x
 *         H200, NV18, 50 MiB messages), 268 of 450 GB/s;
 *   H100: the gpt2-2gpu-ddp run's AllReduce (experiments/h100x4-papers,
 *         2 x H100, NV18, DDP's 25 MB buckets), 141 of 450 GB/s.
 * Other GPUs have none: the path is not priced.
 */
#define NCCL_NVLINK_REACH 0.59
#define NCCL_NVLINK_REACH_H100 0.31

/* A run's NCCL path against its NVLinks (nccl_path_of). */
struct nccl_path {
	double measured;      /* GB/s: collective_busbw.csv busbw_gb_per_s of coll */
	double links;         /* GB/s per direction: nv x per_link */
	double per_link;
	int nv;
	const char *gpu, *coll;
	/*
	 * GB/s NCCL reaches over those NVLinks: the largest busbw_gb_per_s of
	 * coll among the experiment's runs over NVLink (at least
	 * NCCL_PATH_SHARE of the links), reach_run naming it; else the
	 * bundled run's share of the same GPU x links, reach_run NULL and
	 * reach_share, reach_bundled its share and words; else 0 (no
	 * reference on this GPU: not priced)
	 */
	double reach, reach_share;
	const char *reach_run, *reach_bundled;
};
/*
 * 1 where run's collectives are off its NVLinks (the nccl-path rule:
 * measured under NCCL_PATH_SHARE of links), with *p filled; else 0.
 */
int nccl_path_of(const struct analysis_result *res, const char *run, struct nccl_path *p);

#endif
