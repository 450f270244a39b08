/*
 * kineto_coalesced.h: what a coalesced NCCL point-to-point kernel sends or
 * receives, from the ops of its batch (kineto.c's join, for kernels that
 * name nothing themselves).
 *
 * PyTorch (2.11, NCCL 2.28) runs a batch_isend_irecv, the call
 * torch.distributed.pipelining makes for every transfer between stages, as
 * one NCCL group: each op of the batch is a record_param_comms cpu_op
 * ("Collective name" send or recv, "Dst Rank" or "Src Rank", "In msg
 * nelems", "dtype"; no Seq), then a user_annotation "nccl:coalesced" on the
 * same thread launches one kernel for the whole batch,
 * ncclDevKernel_SendRecv, which carries no "Collective name", no External
 * id and no peer, and lies inside a gpu_user_annotation "nccl:coalesced"
 * with the host annotation's External id
 * (experiments/h200x4-parallel/probe/ holds such a trace).
 *
 * The batch of a kernel: the gpu_user_annotation "nccl:coalesced" on the
 * kernel's stream that starts last at or before the kernel (up to 1 ns
 * after it: rounding) and reaches the kernel's start; the host annotation
 * of its External id; and the send/recv record_param_comms ops on that
 * annotation's thread that start from the end of the thread's previous
 * "nccl:coalesced" annotation up to this one's start, leaving out ops
 * whose External id a kernel of its own carries (an uncoalesced send or
 * recv). When all ops of the batch talk to one peer, the kernel takes that
 * peer, and the dtype and process group where the ops agree, and: when
 * they all send, or all receive, it is that send or recv, its in and out
 * counts the ops' summed In msg nelems; when some send and some receive
 * (Schedule1F1B fuses a forward's send with the next backward's recv,
 * "fwd_send_bwd_recv", and a backward's send with the next forward's
 * recv), it is a "sendrecv", its in count what the sends carry and its out
 * count what the recvs do. A batch with several peers leaves the kernel
 * as it was.
 *
 * Everything is kept until the file ends, since the events may come in any
 * order: per p2p op about 80 bytes, per annotation 32.
 */
#ifndef PERFSTUDY_KINETO_COALESCED_H
#define PERFSTUDY_KINETO_COALESCED_H

#include <stdint.h>

#include "ingest/ingest.h"

struct coalesced;

struct coalesced *coalesced_new(void);
void coalesced_free(struct coalesced *c);

/* A send or recv record_param_comms op (peer -1: none recorded; nelems 0: unknown; strings copied). */
void coalesced_op(struct coalesced *c, int64_t tid, int64_t ts, int64_t external_id, int send, int64_t peer,
		  int64_t nelems, const char *dtype, const char *process_group);
/* An External id that a communication kernel carries: its op is no member of a batch. */
void coalesced_claim(struct coalesced *c, int64_t external_id);
/* A "nccl:coalesced" annotation: on_gpu 0 on host thread tid, 1 on stream tid. */
void coalesced_annotation(struct coalesced *c, int on_gpu, int64_t tid, int64_t ts, int64_t dur,
			  int64_t external_id);

/* Whether kernel a may be a coalesced batch's: an NCCL 2.19+ SendRecv kernel naming no collective. */
int coalesced_candidate(const struct gpu_activity *a);
/*
 * Fills a (a coalesced_candidate) from its batch when the batch has one
 * direction and one peer; its strings point into c. Returns 1 when filled.
 */
int coalesced_fill(struct coalesced *c, struct gpu_activity *a);

#endif
