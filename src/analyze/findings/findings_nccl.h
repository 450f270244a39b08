/*
 * findings_nccl.h: the nccl-path rule of findings.csv (findings_nccl.c,
 * issue 57 item 10): a multi-GPU run whose GPUs nvidia-smi topo -m links
 * by NVLink but whose collectives' bus bandwidth is far below what those
 * links allow, with the transport NCCL's log says it took.
 */
#ifndef PERFSTUDY_FINDINGS_NCCL_H
#define PERFSTUDY_FINDINGS_NCCL_H
#include "analyze/analysis.h"
#include "analyze/findings/findings_memory.h"

/*
 * NCCL_PATH_SHARE: a run's bus bandwidth below this share of its NVLinks'
 * is not NVLink's. NCCL over NVLink reaches 31-62 % of the links in the
 * bundled runs (the lowest: a small GPT-2's AllReduce on 4 x H100, 139 of
 * 450 GB/s); through host memory (NCCL_P2P_DISABLE=1, SHM) 6 %, over
 * sockets 1.4-1.8 %; PCIe Gen5 x16 (64 GB/s per direction) is 14 % of
 * H100's NVLink, so one eighth tells NVLink from every other path.
 */
#define NCCL_PATH_SHARE 0.125

/* Calls emit (run -1: the run) where run's bus bandwidth is under NCCL_PATH_SHARE of its NVLinks'. */
void findings_nccl(const struct analysis_result *res, const struct manifest *mf, const char *run,
		   memory_finding_fn emit, void *ctx);
#endif
