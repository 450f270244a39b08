/*
 * replay.h: a model of one rank's profiled steps that can be replayed, and
 * replayed again without a cause, so that a fix is priced by what the step
 * would take without it (issue #52).
 *
 * The graph (replay_model.c), per rank, over the window of its
 * ProfilerStep#N ranges:
 *   - the host: every CUDA runtime and driver call of each thread that
 *     launches GPU work, merged into one sequence in start order (the
 *     autograd engine's thread launches the backward pass while the main
 *     thread waits in backward()), with the host time between consecutive
 *     calls (the gap) as host work;
 *   - launch -> GPU activity by correlation id: the activity is ready when
 *     its launch call returns;
 *   - stream order: an activity starts after the one before it on its
 *     stream;
 *   - cross-stream waits, inferred: an activity that started well after
 *     both its launch and its stream predecessor waits for the activity of
 *     another stream that ended just before it (an event record -> stream
 *     wait pair, which Kineto does not link);
 *   - GPU -> host: a call that ended just after a GPU activity ended, and
 *     lasted long enough to have waited, waited for it (cudaDeviceSynchronize,
 *     cudaStreamSynchronize, cudaEventSynchronize, the blocking copy of
 *     `.item()`, a pageable copy): replayed, it returns when that activity
 *     ends, whatever it measured;
 *   - the launch queue: a launch blocks while RP_QUEUE_DEFAULT operations
 *     (or as many as the trace shows it blocking at) are pending on the device;
 *   - the backlog: activities that no call of the window launched keep their
 *     measured start as the earliest they can start.
 * What is left of each measured time after these (an activity's start past
 * every dependency, a call's own cost) is kept as a constant, so that the
 * replay of the unchanged graph gives the measured step.
 * Not modelled: host threads that wait for each other other than through
 * the merged sequence, the GPU's own contention (an activity's duration is
 * as measured whatever runs beside it), and other ranks (a collective's
 * kernel keeps its measured duration, its wait for other ranks included).
 */
#ifndef PERFSTUDY_REPLAY_H
#define PERFSTUDY_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/lib/rankdata.h"
#include "store/store.h"
#include "util/table.h"

/* Operations pending on a device at which CUDA blocks a launch, where the trace shows none blocking. */
#define RP_QUEUE_DEFAULT 1024

/* What an activity is, for the what-ifs. */
enum rp_op_kind { RP_OP_KERNEL, RP_OP_H2D_PAGEABLE, RP_OP_H2D, RP_OP_D2H, RP_OP_OTHER_COPY, RP_OP_SET };

struct rp_op {
	int64_t start, dur;  /* measured, ns */
	int64_t call;        /* the launching call (index into calls), -1: none in the window */
	int64_t prev;        /* the activity before it on its stream, -1 */
	int64_t dep;         /* the other stream's activity it waited for (inferred), -1 */
	int64_t extra;       /* measured start past every dependency (may be < 0: started before its launch returned) */
	int64_t bytes;
	int64_t name_id;
	/* small fields last, packed: a rank's model holds every activity of its window (72 bytes each) */
	int32_t peer;        /* a point-to-point kernel's peer, a global rank (collectives.peer), else -1 */
	unsigned char kind;  /* enum rp_op_kind */
	unsigned char comm;  /* a collective or point-to-point kernel (NCCL, RCCL) */
	unsigned char p2p;   /* a comm kernel's point-to-point kind with a recorded peer (RP_P2P_*), 0: none */
};

/* rp_op.p2p: a send, a recv, a fused batch that sends to and receives from one peer (collectives.collective) */
enum { RP_P2P_SEND = 1, RP_P2P_RECV, RP_P2P_SENDRECV };

struct rp_call {
	int64_t start, dur;  /* measured, ns */
	int64_t gap;         /* host time before it: its start - the previous call's end, the first's - the
	                        first step's start (< 0: overlaps the previous call) */
	int64_t gap_fixed;   /* the part of gap outside every recorded operator in stretches of RP_UNRECORDED_NS or more */
	int64_t cost;        /* its own cost when it does not wait */
	int64_t wait_op;     /* the activity it waited for (inferred), -1 */
	int64_t wake;        /* measured end - that activity's end */
	int64_t op;          /* the activity it launched, -1 */
	int64_t name_id;
	int64_t tid;
	int step;            /* index into steps of the step its start is in, -1 */
	int throttled;       /* a launch the full queue blocked, as measured */
	int sync;            /* a cuda*Synchronize call */
	int may_block;       /* a call that can wait for the GPU (a synchronize, copy, free, allocation) */
};

struct rp_step {
	int64_t number;      /* N of ProfilerStep#N */
	int64_t start, end;  /* host range, measured */
	int64_t first_op;    /* the first activity launched in it, -1 */
};

/* A host stretch of this length with no operator on any thread is not slowed by the profiler (a sleep, a wait). */
#define RP_UNRECORDED_NS 1000000

struct rp_model {
	struct rp_call *calls;
	size_t ncalls;
	struct rp_op *ops;
	size_t nops;
	struct rp_step *steps;
	size_t nsteps;
	int64_t queue;        /* the launch queue's depth used */
	int64_t origin;       /* the first step's host start, where the first call's gap begins */
	int rank;             /* the rank's global rank (its trace's), which rp_op.peer names */
};

/*
 * Builds the model of one rank (k) from the store: its launches with
 * names, activities, outermost host operators and ProfilerStep#N ranges.
 * A rank without ProfilerStep ranges or launches gives an empty model
 * (nsteps 0). Returns 0, or -1 after diag.
 */
int rp_model_load(struct store *s, const struct rank_key *k, struct rp_model *m);
void rp_model_release(struct rp_model *m);
/*
 * When the activity a call launches is ready, measured: when the call
 * returns, or for a call that waits (a pageable or blocking copy waits for
 * its own activity) once its own cost is spent.
 */
int64_t rp_call_ready(const struct rp_call *c);

/* A change to replay: NULL arrays change nothing. */
struct rp_change {
	double host_factor;             /* scales gaps (but gap_fixed) and call costs; 1: as profiled */
	const unsigned char *no_gap;    /* per call: its gap_fixed taken out */
	const unsigned char *no_wait;   /* per call: it returns without waiting */
	const unsigned char *drop_op;   /* per activity: removed (no time on its stream) */
	const double *op_scale;         /* per activity: its duration (joined: its transfer) times this */
	/*
	 * per call: host time taken out of its gap before the host factor
	 * scales what is left (the time in a region such as the DataLoader's:
	 * whatif.c); at most gap - gap_fixed, which it is clamped to
	 */
	const int64_t *gap_cut;
	/*
	 * Collectives joined across ranks (replay.c): per activity, the start
	 * of the last rank's kernel of its collective (RP_NO_JOIN: none); the
	 * activity then ends transfer[j] after the later of that and its own
	 * start. starts, when set, receives each activity's own replayed start.
	 */
	const int64_t *join;
	const int64_t *transfer;
	int64_t *starts;
	/* when set, receives each step's start (nsteps of them; -1 none) and then the last step's end */
	int64_t *bounds;
};

#define RP_NO_JOIN INT64_MIN
#define RP_JOIN_PENDING INT64_MAX /* a join not known yet (rp_sim_run stops there) */

/*
 * Replays the model under the change: per step k (m->nsteps of them),
 * step_ns[k] = the start of the first activity launched in step k + 1
 * minus that of step k (the last: to the end of the last activity launched
 * in it, or of its last call, whichever is later). Returns how many steps
 * have a time (those with a first activity).
 */
size_t rp_replay(const struct rp_model *m, const struct rp_change *c, int64_t *step_ns);
/*
 * rp_replay in parts, for ranks replayed side by side (replay_joint.c):
 * rp_sim_run replays until a joined activity whose join is
 * RP_JOIN_PENDING (its start is then in c->starts) and returns that
 * activity, or -1 when the replay is complete; called again once the join
 * is set, it goes on from there. rp_sim_end gives the steps as rp_replay
 * does and frees the replay.
 */
struct rp_sim;
struct rp_sim *rp_sim_new(const struct rp_model *m, const struct rp_change *c);
int64_t rp_sim_run(struct rp_sim *x);
size_t rp_sim_end(struct rp_sim *x, int64_t *step_ns);
/* The same definition on the measured times; bounds as rp_change.bounds (NULL: none). */
size_t rp_measured(const struct rp_model *m, int64_t *step_ns, int64_t *bounds);

/* A mechanism replay_fixes.csv prices: its words, in one table (replay.c). */
struct rp_mechanism {
	const char *id;      /* replay_fixes.csv mechanism */
	const char *words;   /* a few words, for "What to fix first" */
	const char *what;    /* what it is, in full */
	const char *removed; /* how the replay takes it out */
	const char *fix;     /* the fix to try */
};
/* The mechanism of that id, or NULL. */
const struct rp_mechanism *rp_mechanism(const char *id);

/* The reference run of each run of an experiment (replay_extra.c says which run that is). */
struct rp_ref {
	int64_t run_db_id;  /* a run of the experiment */
	int64_t ref_db_id;  /* its reference run, -1: none */
	char *ref_run;      /* the reference's id, NULL: none */
	int named;          /* named by the manifest's compare, else the configuration's fastest run */
	int unknown;        /* the two agree on a configuration value only in that neither gives it */
};
struct manifest;
struct analysis_result;
/*
 * The reference of every run of experiment exp (mf: its manifest, NULL for
 * a build from directories; res: profiler_overhead.csv's log medians; keys:
 * the experiment's ranks) into *out, one per run, owned by the caller
 * (rp_references_free). Returns 0, or -1 after diag.
 */
int rp_references(struct store *s, const char *exp, const struct manifest *mf, const struct analysis_result *res,
		  const struct rank_key *keys, size_t nkeys, struct rp_ref **out, size_t *nout);
void rp_references_free(struct rp_ref *v, size_t n);

/* What the extra GPU work is: its key that takes the most time (name ids, -1: none) and where it is. */
struct rp_extra_where {
	int64_t host, dims, kernel;
	int64_t t; /* the launch of its longest kernel */
};
/*
 * Marks in drop (one per activity of m, rank k) the kernels k launches per
 * profiled step beyond those of rank ref of its reference run, and fills
 * *w; returns how many it marked (0 also where ref cannot be read). With
 * contain set (a configuration the inputs do not give whole), none where
 * some profiled step of k lacks a call the reference makes per step.
 */
size_t rp_extra_pick(struct store *s, const struct rank_key *k, const struct rp_model *m, const struct rank_key *ref,
		     int contain, unsigned char *drop, struct rp_extra_where *w);
/* The key of w in words: "aten::mm [8192,8192],[8192,8192]", or the kernel's name; the caller frees it. */
char *rp_extra_words(struct store *s, const struct rp_extra_where *w);

/* The ranks of one run replayed together (replay_joint.c). */
struct rp_joint;
/*
 * The join of n ranks' models (kept, not copied): point-to-point kernels
 * by peer, the others by order (replay_joint.c); NULL where their
 * collectives or steps do not match.
 */
struct rp_joint *rp_joint_new(const struct rp_model *const *m, size_t n);
void rp_joint_free(struct rp_joint *x);
/* count[r]: at how many collectives rank r started last, as measured (the rank the others waited for). */
void rp_joint_latest(const struct rp_joint *x, size_t *count);
/*
 * Replays the ranks together, rank r under changes[r] (its join fields are
 * the joint's own); step_ns[k] = the job's step k: from the earliest start
 * of step k on any rank to the earliest start of step k + 1 (the last: to
 * the latest end of the last step on any rank). Returns 1 where the
 * ranks were replayed side by side in one pass; else the rounds it took
 * (replay_joint.c), or -1 when they did not settle.
 */
int rp_joint_replay(struct rp_joint *x, const struct rp_change *changes, int64_t *step_ns);
/*
 * Rank r's compute kernels at the median duration of the same kernel (name
 * and occurrence) on the other ranks; 0 for one that most other ranks do
 * not run: scale[j] per activity of rank r, for rp_change.op_scale.
 */
void rp_joint_median(const struct rp_joint *x, size_t r, double *scale);
/* The job's steps as rp_joint_replay defines them, on the measured times. */
void rp_joint_measured(const struct rp_joint *x, int64_t *step_ns);

/*
 * The calibration of the host factor (replay_calibrate.c; replay.c's
 * header says how), shared by the analysis and `perfstudy whatif`.
 */
#define RP_F_MIN 0.1       /* the smallest host factor tried */
#define RP_F_TOL 0.01      /* a replayed mean within this share of the log's median reproduces it */
#define RP_JOINT_MAX 64    /* ranks of a run replayed together; more: each alone */

/* What is replayed: one rank alone (n == 1), or the ranks of a run together (joint). */
struct rp_subject {
	const struct rp_model *const *m;
	size_t n;
	struct rp_joint *joint;
	const double *f;         /* each rank's host factor */
	struct rp_change *ch;    /* n changes, scratch */
};
/* Replays s with rank r under *cr (NULL: unchanged), every other rank unchanged at its f, into steps. */
void rp_subject_replay(struct rp_subject *s, size_t r, const struct rp_change *cr, int64_t *steps);
/* The mean replayed step of s with every rank's host factor f (NAN: no step); buf: m[0]->nsteps scratch. */
double rp_subject_mean(struct rp_subject *s, double f, int64_t *buf);
/*
 * The host factor that makes the mean replayed step of s the training
 * log's median target (ns): sets *lo, *hi to the range that reproduces
 * target within RP_F_TOL (both 0 when none does; *lo < 0: the range of
 * the GPU-bound floor [RP_F_MIN, -*lo]) and returns f, the top of that
 * range (the slowest host the log allows; 1 where none reproduces it).
 */
double rp_calibrate(struct rp_subject *s, double target, int64_t *buf, double *lo, double *hi);
/* The bottom of the range of host factors the log allows, from rp_calibrate's f, lo, hi: f where it allows no other. */
double rp_factor_lo(double f, double lo, double hi);

/*
 * replay_fixes.csv's columns, in order: its contract (util/table.h), by
 * which the findings and the report read it.
 */
#define REPLAY_FIXES_COLUMNS(X)                              \
	X(RF_RUN, "run", text)                               \
	X(RF_RANK, "rank", int)                              \
	X(RF_MECHANISM, "mechanism", text)                   \
	X(RF_WHERE, "where", text)                           \
	X(RF_PER_STEP, "per_step", real)                     \
	X(RF_STEP_US, "step_us", us)                         \
	X(RF_STEP_WITHOUT_US, "step_without_us", us)         \
	X(RF_SAVING_US_PER_STEP, "saving_us_per_step", us)   \
	X(RF_SAVING_MIN_US, "saving_min_us", us)             \
	X(RF_SAVING_MAX_US, "saving_max_us", us)             \
	X(RF_NOISE_US, "noise_us", us)                       \
	X(RF_STATED, "stated", int)                          \
	X(RF_REPLAYED, "replayed", text)                     \
	X(RF_SAVING_FAST_HOST_US, "saving_fast_host_us", us) \
	X(RF_SAVING_ALL_CAUSES_US, "saving_all_causes_us", us) \
	X(RF_SAVING_SAME_PLACE_US, "saving_same_place_us", us) \
	X(RF_GAP_US_PER_STEP, "gap_us_per_step", us)
enum replay_fixes_col { REPLAY_FIXES_COLUMNS(TABLE_COL_ENUM) RF_NCOLS };

/* replay_steps.csv's columns, in order (replay.c). */
#define REPLAY_STEPS_COLUMNS(X)               \
	X(RPS_RUN, "run", text)               \
	X(RPS_RANK, "rank", int)              \
	X(RPS_STEP, "step", int)              \
	X(RPS_MEASURED_US, "measured_us", us) \
	X(RPS_REPLAYED_US, "replayed_us", us) \
	X(RPS_ERROR, "error", real)
enum replay_steps_col { REPLAY_STEPS_COLUMNS(TABLE_COL_ENUM) RPS_NCOLS };

/* replay_calibration.csv's columns, in order (replay.c). */
#define REPLAY_CALIBRATION_COLUMNS(X)                           \
	X(RPC_RUN, "run", text)                                 \
	X(RPC_RANK, "rank", int)                                \
	X(RPC_STEPS, "steps", int)                              \
	X(RPC_REPLAYED_PROFILED_US, "replayed_profiled_us", us) \
	X(RPC_LOG_MEDIAN_US, "log_median_us", us)               \
	X(RPC_LOG_SAMPLES, "log_samples", int)                  \
	X(RPC_HOST_FACTOR, "host_factor", real)                 \
	X(RPC_HOST_FACTOR_LO, "host_factor_lo", real)           \
	X(RPC_HOST_FACTOR_HI, "host_factor_hi", real)           \
	X(RPC_REPLAYED_US, "replayed_us", us)                   \
	X(RPC_ERROR, "error", real)                             \
	X(RPC_BASIS, "basis", text)                             \
	X(RPC_LAUNCH_QUEUE, "launch_queue", int)
enum replay_calibration_col { REPLAY_CALIBRATION_COLUMNS(TABLE_COL_ENUM) RPC_NCOLS };

#endif
