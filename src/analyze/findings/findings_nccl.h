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
#include "analyze/replay/replay_nccl_path.h"

typedef void (*nccl_finding_fn)(void *ctx, const char *run, int rank, double value, double saving_us,
				const char *evidence, const char *rule, const char *text);
/*
 * Calls emit (run -1: the run) where run's bus bandwidth is under
 * NCCL_PATH_SHARE of its NVLinks', with the replay's price of the path
 * (replay_fixes.csv nccl_path, NAN where not stated).
 */
void findings_nccl(const struct analysis_result *res, const struct manifest *mf, const char *run,
		   nccl_finding_fn emit, void *ctx);
#endif
