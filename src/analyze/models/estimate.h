/*
 * estimate.h: analytical estimates of transformer training, as pure functions.
 *
 * From a model description (layers l, hidden d, heads a, ffn f, seq s,
 * vocab V), a per-GPU batch b and a GPU count p, these compute what theory
 * predicts: parameters, FLOPs per step, activation memory, model-state
 * memory under ZeRO, communication volume per GPU, and the peak FLOP/s of
 * common GPUs. Nothing here reads the store or allocates; every function is
 * unit-tested against values worked out by hand (tests/unit/test_estimate.c).
 * Each formula's source is named at its function and in the report's Methods.
 *
 * Counts that can exceed 2^53 are not expected (a 1T-parameter model has
 * 10^12 parameters; a step of it ~10^19 FLOPs loses only the last digits),
 * so FLOPs and bytes are doubles; parameters are exact integers.
 */
#ifndef PERFSTUDY_ESTIMATE_H
#define PERFSTUDY_ESTIMATE_H

#include <stdint.h>

enum est_arch {
	ARCH_GPT = 0,  /* decoder: token + learned position embeddings, final LayerNorm */
	ARCH_BERT = 1, /* encoder: token + position + 2 token-type embeddings, embedding LayerNorm, pooler */
	/*
	 * PyTorch's word_language_model TransformerModel (paper 001): token
	 * embedding, sinusoidal positions (no parameters), nn.TransformerEncoder
	 * with a final LayerNorm, an untied Linear decoder d x V + V.
	 */
	ARCH_ENCODER_LM = 2,
};

/* Whose parameter count est_params_as() gives (the manifest's model 'framework'). */
enum est_framework {
	FW_FORMULA = 0,     /* perfstudy's general form, est_params() */
	FW_HUGGINGFACE = 1, /* Hugging Face transformers' modules, as sum(p.numel()) counts them */
	FW_MEGATRON = 2,    /* Megatron-LM: padded vocabulary, one count per model-parallel rank, summed */
};

/* BERT's training heads (the manifest's model 'objective'); GPT's LM head is tied and adds nothing. */
enum est_objective {
	OBJ_DEFAULT = 0, /* the framework's usual: none for Hugging Face and the formula, mlm+nsp for Megatron */
	OBJ_NONE = 1,    /* the encoder and pooler only (Hugging Face BertModel) */
	OBJ_MLM = 2,     /* masked-LM head, no pooler (Hugging Face BertForMaskedLM) */
	OBJ_MLM_NSP = 3, /* pooler, masked-LM and next-sentence heads (BertForPreTraining, Megatron's BERT) */
};

/* A model; 0 means not given. ffn 0 means 4 * hidden. */
struct est_model {
	int64_t layers, hidden, heads, ffn, seq, vocab;
	enum est_arch arch;
	enum est_framework framework;
	enum est_objective objective;
	int64_t vocab_multiple; /* Megatron's --make-vocab-size-divisible-by; 0: 128 */
};

/* Activation recomputation (Korthikanti et al., 2022). */
enum est_recompute { RECOMP_NONE = 0, RECOMP_SELECTIVE = 1, RECOMP_FULL = 2 };

/* Precision of the math, for peak FLOP/s. */
enum est_precision { PREC_UNKNOWN = 0, PREC_FP64, PREC_FP32, PREC_TF32, PREC_FP16, PREC_BF16, PREC_FP8 };

/* The ffn size in use: ffn, or 4 * hidden when not given. */
int64_t est_ffn(const struct est_model *m);

/*
 * Parameters, general form: per layer 4d^2 + 4d (Q, K, V and output
 * projections with biases) + 2df + f + d (two MLP matrices with biases) + 4d
 * (two LayerNorms); embeddings V*d + s*d; GPT adds a final LayerNorm (2d),
 * BERT two token-type rows, an embedding LayerNorm and a pooler (2d + 2d +
 * d^2 + d); the encoder LM (ARCH_ENCODER_LM) has no position parameters and
 * adds a final LayerNorm (2d) and an untied decoder (dV + V). With f = 4d the
 * layer is 12d^2 + 13d. Returns 0 when l, d, V or s is missing.
 */
int64_t est_params(const struct est_model *m);
/* 12 * l * d^2: the layers' weight matrices only (Cheng et al., 2024, Table "Estimation"). */
int64_t est_params_simple(const struct est_model *m);
/* One layer's parameters, 4d^2 + 4d + 2df + f + d + 4d (no embeddings; needs no vocab). */
int64_t est_layer_params(const struct est_model *m);

/*
 * The vocabulary the framework builds its embedding with: Megatron-LM pads
 * V up to a multiple of vocab_multiple (128 when 0) x tp so that every
 * model-parallel rank holds an equal slice that is a multiple of 128;
 * everyone else uses V.
 */
int64_t est_vocab_padded(const struct est_model *m, int tp);

/*
 * Parameters as m->framework counts them on tp model-parallel ranks (tp < 1
 * means 1); 0 when l, d, V or s is missing.
 *  FW_FORMULA: est_params().
 *  FW_HUGGINGFACE: GPT2LMHeadModel is est_params() (its LM head is the tied
 *   token embedding); BERT: BertModel (OBJ_NONE) is est_params(), OBJ_MLM
 *   drops the pooler (d^2 + d) and adds the masked-LM head (dense d^2 + d,
 *   LayerNorm 2d, output bias V; the decoder weight is tied), OBJ_MLM_NSP
 *   keeps the pooler and adds the MLM head and the next-sentence head
 *   (2d + 2).
 *  FW_MEGATRON: Megatron-LM prints the parameters of one model-parallel
 *   rank and studies report that times tp, so what every rank holds a copy
 *   of is counted tp times: per layer 4d^2 + 3d + 2df + f are split and 6d
 *   (the two LayerNorms, the biases of the two row-parallel layers) are
 *   copies; the padded vocabulary's embedding is split, the position
 *   embedding (s d) and the final LayerNorm (2d) are copies. BERT has no
 *   embedding LayerNorm and adds, as copies, 2 token types (2d), the pooler
 *   (d^2 + d), the MLM head's dense and LayerNorm (d^2 + 3d) and, with
 *   OBJ_MLM_NSP (its default), the next-sentence head (2d + 2); the MLM
 *   output bias (padded V) is split. With tp 1 and V a multiple of 128, GPT is est_params().
 */
int64_t est_params_as(const struct est_model *m, int tp);

/* Forward FLOPs of one layer: 2bs(4d^2 + 2df) (projections) + 4bs^2d (attention scores and values). */
double est_layer_fwd_flops(const struct est_model *m, double b);
/* Forward FLOPs of the logit layer: 2bsdV. */
double est_logit_fwd_flops(const struct est_model *m, double b);
/*
 * Training FLOPs of one step for batch B (all GPUs together): the layers'
 * forward once, backward twice the forward, one more forward with full or
 * selective recomputation, plus forward and backward of the logit layer:
 * (3 + r) * l * layer_fwd + 3 * logit_fwd. With f = 4d and no recomputation
 * this is Megatron's 72Bsld^2 (1 + s/(6d) + V/(12ld)) (Narayanan et al.,
 * 2021). with_logits 0 gives Cheng et al.'s b(72sd^2 + 12s^2d)l.
 */
double est_train_flops(const struct est_model *m, double B, enum est_recompute r, int with_logits);
/*
 * The pen-and-paper estimate of "Performance Study of Transformers" (paper
 * 001, Table 1): 7 multiply-accumulates of b x s x d^2 per layer (two
 * linear layers, three LayerNorms and the multi-head attention counted as
 * one each), l x 7bsd^2 MACs, a MAC being two FLOPs. It ignores the
 * feed-forward width, the heads and the s^2 attention terms: an
 * approximation, not a count.
 */
double est_paper001_macs(const struct est_model *m, double b);

/* Megatron's formula literally: 72Bsld^2 (1 + s/(6d) + V/(12ld)); 96 with recomputation. */
double est_megatron_flops(const struct est_model *m, double B, int recompute);

/*
 * Activation bytes per GPU for per-GPU batch b with tensor parallel size t
 * (1 without), Korthikanti et al. (2022), 16-bit activations:
 * none: l * sbd (10 + 24/t + 5as/(dt)); selective: l * sbd (10 + 24/t);
 * full: l * 2sbd (only each layer's input is kept). With t = 1 and none this
 * is b(34sd + 5as^2)l (Cheng et al.). Returns 0 when a is missing for none.
 */
double est_activation_bytes(const struct est_model *m, double b, int t, enum est_recompute r);

/*
 * Model-state bytes per GPU for P parameters trained with mixed-precision
 * Adam (16 bytes per parameter: 2 fp16 weights, 2 fp16 gradients, 12 fp32
 * master weights, momentum and variance; Rajbhandari et al., 2020) over p
 * data-parallel GPUs: ZeRO-0 16P, ZeRO-1 4P + 12P/p, ZeRO-2 2P + 14P/p,
 * ZeRO-3 16P/p.
 */
double est_model_state_bytes(double P, int zero_stage, int p);

/*
 * Communication bytes sent per GPU per step by data parallelism over p GPUs
 * for P parameters whose gradients are g bytes each (2 for fp16/bf16), per
 * collective type, as Cheng et al. (2024) count them (one AllReduce sends
 * 2(1 - 1/p) g P, one AllGather, ReduceScatter, Reduce or Broadcast of all
 * P (1 - 1/p) g P): ZeRO-0 one AllReduce of the gradients; ZeRO-1 that
 * AllReduce and an AllGather of the updated parameter shards (the paper's
 * Fig. "AllReduce and AllGather operations in ZeRO-1"); ZeRO-2 a
 * ReduceScatter of the gradients and an AllGather; ZeRO-3 a ReduceScatter
 * and two AllGathers (forward and backward). out[] is indexed by enum
 * est_coll; 0 for p 1.
 */
enum est_coll { COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER, COLL_REDUCE, COLL_BROADCAST, COLL_SENDRECV, NCOLL };
extern const char *const est_coll_names[NCOLL]; /* "AllReduce", ... as collectives.csv names them */
void est_comm_dp(double P, int zero_stage, int p, int g, double out[NCOLL]);
/* The sum of est_comm_dp: 2(1 - 1/p) g P for ZeRO-0, 3(1 - 1/p) g P for ZeRO-1 and ZeRO-3, 2(...) for ZeRO-2. */
double est_comm_bytes(double P, int zero_stage, int p, int g);
/*
 * AllReduce bytes sent per GPU per step by tensor parallelism over t GPUs
 * (Megatron-LM, Shoeybi et al. 2019): each layer AllReduces the b x s x d
 * activations (a bytes each) twice in the forward and twice in the
 * backward pass, twice more when full recomputation repeats the forward:
 * 2(1 - 1/t) b s d a x l x (4, or 6 with full recomputation). 0 for t 1.
 */
double est_comm_tp(const struct est_model *m, double b, int t, int a, enum est_recompute r);
/*
 * Send/Recv bytes per GPU per step of a middle pipeline stage (pp > 1):
 * the b x s x d activations (a bytes each) of its micro-batches forward and
 * their gradients backward, 2 b s d a for the b samples of a step. 0 for pp 1.
 */
double est_comm_pp(const struct est_model *m, double b, int pp, int a);

/*
 * Dense peak TFLOP/s of one GPU whose name contains a known model (V100,
 * A100, H100, H200, B200, ...; first match in the table, case-insensitive)
 * at precision prec; 0 when unknown. *matched (may be NULL) is set to the
 * table's name for the GPU.
 */
double est_peak_tflops(const char *gpu_name, enum est_precision prec, const char **matched);

/* "fp32" -> PREC_FP32 ...; PREC_UNKNOWN for anything else. */
enum est_precision est_precision_parse(const char *s);
const char *est_precision_name(enum est_precision p);

/*
 * Least-squares line y = slope x + intercept over n points, and R^2 (1 -
 * SSres/SStot). Returns 0, or -1 when n < 2 or all x are equal.
 */
int est_fit_line(const double *x, const double *y, int n, double *slope, double *intercept, double *r2);

#endif
