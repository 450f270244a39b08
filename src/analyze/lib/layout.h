/*
 * layout.h: a run's parallel layout and strategy as the manifest gives
 * them (layout.c), and the vocabulary its traces show (trace_vocab.c):
 * what the models, the ranks, the pipeline and the time families all ask
 * of a run.
 */
#ifndef PERFSTUDY_LAYOUT_H
#define PERFSTUDY_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "manifest/manifest.h"
#include "store/store.h"

/* A run's ZeRO stage: the manifest's zero, else from the strategy's name (zero1..3, fsdp = 3), else 0. */
int layout_zero_stage(const struct manifest_run *r);
/*
 * A run's strategy as every figure names it, into buf: "ZeRO-n" for a ZeRO
 * stage n >= 1 (layout_zero_stage, else the stage strategy's own name says
 * where r gives no zero; r may be NULL), "DDP" for ddp, "tensor
 * parallel" for tp, "pipeline parallel" for pp, else strategy as written
 * (NULL: r's, else ""): a key's abbreviation never titles a figure.
 */
void layout_strategy_shown(const struct manifest_run *r, const char *strategy, char *buf, size_t n);
/*
 * The ranks of one model replica, tensor_parallel x pipeline_parallel (each
 * 1 when unset): gpus over it is the data-parallel degree, the replicas
 * that take samples of their own, and each of its ranks holds about
 * 1 / replica of the parameters (a pipeline's stages are not exactly equal:
 * the first holds the embedding, the last the head).
 */
int layout_replica_ranks(const struct manifest_run *r);
/* A run's tensor-parallel degree: the manifest's, else 1. */
int layout_tp(const struct manifest_run *r);
/*
 * The vocabulary of a run's traces (lib/trace_vocab.c): the widest aten::linear
 * weight [n, d] over an input of width d (hidden) with n > 3d and n > f
 * (ffn), the logit layer's; *rank the lowest rank that runs it. 0: none
 * (or d unknown); -1 after diag.
 */
int64_t layout_trace_vocab(struct store *s, const char *exp, const char *run, int64_t d, int64_t f, int *rank);

#endif
