/*
 * estimate.c: the analytical estimates of estimate.h.
 *
 * Pure arithmetic on a model description; each formula cites its source.
 * Integer parts are summed in int64 so parameter counts are exact.
 */
#include "analyze/models/estimate.h"

#include <math.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

int64_t est_ffn(const struct est_model *m)
{
	return m->ffn > 0 ? m->ffn : 4 * m->hidden;
}

int64_t est_params(const struct est_model *m)
{
	int64_t l = m->layers, d = m->hidden, f = est_ffn(m), V = m->vocab, s = m->seq;
	if (l <= 0 || d <= 0 || V <= 0 || s <= 0)
		return 0;
	/* Attention: Q, K, V, output (4d^2 + 4d); MLP: 2df + f + d; two LayerNorms: 4d. */
	int64_t layer = 4 * d * d + 4 * d + 2 * d * f + f + d + 4 * d;
	if (m->arch == ARCH_ENCODER_LM)
		return l * layer + V * d + 2 * d + d * V + V; /* embedding, final LayerNorm, untied decoder */
	int64_t p = l * layer + V * d + s * d;
	if (m->arch == ARCH_BERT)
		p += 2 * d + 2 * d + d * d + d; /* token types, embedding LayerNorm, pooler */
	else
		p += 2 * d; /* final LayerNorm */
	return p;
}

int64_t est_params_simple(const struct est_model *m)
{
	return 12 * m->layers * m->hidden * m->hidden;
}

int64_t est_layer_params(const struct est_model *m)
{
	int64_t d = m->hidden, f = est_ffn(m);
	return 4 * d * d + 4 * d + 2 * d * f + f + d + 4 * d;
}

int64_t est_vocab_padded(const struct est_model *m, int tp)
{
	if (m->framework != FW_MEGATRON || m->vocab <= 0)
		return m->vocab;
	int64_t k = (m->vocab_multiple > 0 ? m->vocab_multiple : 128) * (tp > 1 ? tp : 1);
	return (m->vocab + k - 1) / k * k;
}

static enum est_objective objective_of(const struct est_model *m)
{
	if (m->objective != OBJ_DEFAULT)
		return m->objective;
	return m->framework == FW_MEGATRON ? OBJ_MLM_NSP : OBJ_NONE;
}

/* Megatron-LM's count: one rank's parameters times tp (see estimate.h). */
static int64_t megatron_params(const struct est_model *m, int64_t tp)
{
	int64_t l = m->layers, d = m->hidden, f = est_ffn(m), s = m->seq, V = est_vocab_padded(m, (int)tp);
	int64_t split = l * (4 * d * d + 3 * d + 2 * d * f + f) + V * d;
	int64_t copies = l * 6 * d + s * d + 2 * d;
	if (m->arch == ARCH_BERT) {
		split += V; /* the MLM output bias, vocab-parallel */
		copies += 2 * d + d * d + d + d * d + 3 * d;
		if (objective_of(m) == OBJ_MLM_NSP)
			copies += 2 * d + 2; /* the next-sentence head */
	}
	return split + tp * copies;
}

int64_t est_params_as(const struct est_model *m, int tp)
{
	int64_t d = m->hidden, p = est_params(m);
	if (!p)
		return 0;
	if (m->framework == FW_MEGATRON)
		return megatron_params(m, tp > 1 ? tp : 1);
	if (m->framework == FW_FORMULA || m->arch != ARCH_BERT)
		return p;
	int64_t pooler = d * d + d, mlm = d * d + d + 2 * d + m->vocab;
	switch (objective_of(m)) {
	case OBJ_MLM:
		return p - pooler + mlm;
	case OBJ_MLM_NSP:
		return p + mlm + 2 * d + 2;
	default:
		return p;
	}
}

double est_paper001_macs(const struct est_model *m, double b)
{
	double d = (double)m->hidden;
	return (double)m->layers * 7.0 * b * (double)m->seq * d * d;
}

double est_layer_fwd_flops(const struct est_model *m, double b)
{
	double s = (double)m->seq, d = (double)m->hidden, f = (double)est_ffn(m);
	return 2.0 * b * s * (4.0 * d * d + 2.0 * d * f) + 4.0 * b * s * s * d;
}

double est_logit_fwd_flops(const struct est_model *m, double b)
{
	return 2.0 * b * (double)m->seq * (double)m->hidden * (double)m->vocab;
}

double est_train_flops(const struct est_model *m, double B, enum est_recompute r, int with_logits)
{
	double passes = r == RECOMP_NONE ? 3.0 : 4.0;
	double f = passes * (double)m->layers * est_layer_fwd_flops(m, B);
	if (with_logits)
		f += 3.0 * est_logit_fwd_flops(m, B);
	return f;
}

double est_megatron_flops(const struct est_model *m, double B, int recompute)
{
	double s = (double)m->seq, l = (double)m->layers, d = (double)m->hidden, V = (double)m->vocab;
	double k = recompute ? 96.0 : 72.0;
	return k * B * s * l * d * d * (1.0 + s / (6.0 * d) + V / (12.0 * l * d));
}

double est_activation_bytes(const struct est_model *m, double b, int t, enum est_recompute r)
{
	double s = (double)m->seq, d = (double)m->hidden, a = (double)m->heads, l = (double)m->layers;
	if (t < 1)
		t = 1;
	double sbd = s * b * d;
	switch (r) {
	case RECOMP_FULL:
		return l * 2.0 * sbd;
	case RECOMP_SELECTIVE:
		return l * sbd * (10.0 + 24.0 / t);
	default:
		if (m->heads <= 0)
			return 0;
		/* sbd (10 + 24/t) + 5as^2b/t: the second term written without dividing by d. */
		return l * (sbd * (10.0 + 24.0 / t) + 5.0 * a * s * s * b / t);
	}
}

double est_model_state_bytes(double P, int zero_stage, int p)
{
	if (p < 1)
		p = 1;
	switch (zero_stage) {
	case 1:
		return 4.0 * P + 12.0 * P / p;
	case 2:
		return 2.0 * P + 14.0 * P / p;
	case 3:
		return 16.0 * P / p;
	default:
		return 16.0 * P;
	}
}

const char *const est_coll_names[NCOLL] = {"AllReduce", "AllGather", "ReduceScatter", "Reduce", "Broadcast", "SendRecv"};

void est_comm_dp(double P, int zero_stage, int p, int g, double out[NCOLL])
{
	for (int i = 0; i < NCOLL; i++)
		out[i] = 0;
	if (p <= 1)
		return;
	double share = (1.0 - 1.0 / p) * g * P; /* one AllGather or ReduceScatter of all P */
	switch (zero_stage) {
	case 1:
		out[COLL_ALLREDUCE] = 2.0 * share;
		out[COLL_ALLGATHER] = share;
		break;
	case 2:
		out[COLL_REDUCESCATTER] = share;
		out[COLL_ALLGATHER] = share;
		break;
	case 3:
		out[COLL_REDUCESCATTER] = share;
		out[COLL_ALLGATHER] = 2.0 * share;
		break;
	default: /* AllReduce = ReduceScatter + AllGather */
		out[COLL_ALLREDUCE] = 2.0 * share;
	}
}

double est_comm_bytes(double P, int zero_stage, int p, int g)
{
	double v[NCOLL], sum = 0;
	est_comm_dp(P, zero_stage, p, g, v);
	for (int i = 0; i < NCOLL; i++)
		sum += v[i];
	return sum;
}

double est_comm_tp(const struct est_model *m, double b, int t, int a, enum est_recompute r)
{
	if (t <= 1)
		return 0;
	double per = 2.0 * (1.0 - 1.0 / t) * b * (double)m->seq * (double)m->hidden * a; /* one AllReduce */
	return per * (double)m->layers * (r == RECOMP_FULL ? 6.0 : 4.0);
}

double est_comm_pp(const struct est_model *m, double b, int pp, int a)
{
	if (pp <= 1)
		return 0;
	return 2.0 * b * (double)m->seq * (double)m->hidden * a;
}

/*
 * Dense (no sparsity) peak TFLOP/s from NVIDIA's and AMD's datasheets; 0 where the
 * GPU has no such math or the datasheet gives none. fp16 and bf16 are the
 * tensor-core rates; fp32 is the CUDA-core rate. Order matters: more
 * specific names first ("H100 PCIe" before "H100", "A100" before "A10").
 */
static const struct gpu_peak {
	const char *match, *name;
	double fp64, fp32, tf32, fp16, bf16, fp8;
} peaks[] = {
	{"H100 PCIe", "H100 PCIe", 26, 51, 378, 756, 756, 1513},
	{"H100 NVL", "H100 NVL", 30, 60, 417.5, 835.5, 835.5, 1670.5},
	{"H100", "H100 SXM", 34, 67, 494.5, 989.5, 989.5, 1979},
	{"H200", "H200", 34, 67, 494.5, 989.5, 989.5, 1979},
	{"B200", "B200", 0, 0, 1125, 2250, 2250, 4500},
	{"V100-PCIE", "V100 PCIe", 7, 14, 0, 112, 0, 0},
	{"V100 PCIe", "V100 PCIe", 7, 14, 0, 112, 0, 0},
	{"V100", "V100 SXM2", 7.8, 15.7, 0, 125, 0, 0},
	{"A100", "A100", 9.7, 19.5, 156, 312, 312, 0},
	{"A10", "A10", 0, 31.2, 62.5, 125, 125, 0},
	{"L40S", "L40S", 0, 91.6, 183, 362, 362, 733},
	{"L4", "L4", 0, 30.3, 60, 121, 121, 242},
	{"T4", "T4", 0, 8.1, 0, 65, 0, 0},
	/*
	 * AMD Instinct, dense: ROCm's GPU architecture pages
	 * (reference/gpu-arch/mi300, mi250: peak-performance tables) and AMD's
	 * product pages for MI325X and MI350X/MI355X; fp64 and fp32 the vector
	 * rates, fp16/bf16/fp8 and tf32 the Matrix Core rates (MI300X/MI325X:
	 * 81.7, 163.4, 653.7 tf32, 1307.4 fp16 and bf16, 2614.9 fp8; MI355X:
	 * 78.6, 157.3, no tf32 (CDNA 4 has none in hardware), 2516.6, 5033.2;
	 * MI250X: 47.9, 47.9, 383 fp16 and bf16). ROCm names
	 * them "AMD Instinct MI300X" (" VF" under virtualisation); older ROCm
	 * only "AMD Radeon Graphics", which matches nothing here.
	 */
	{"MI355X", "MI355X", 78.6, 157.3, 0, 2516.6, 2516.6, 5033.2},
	{"MI350X", "MI350X", 72.1, 144.2, 0, 2306.9, 2306.9, 4613.7},
	{"MI325X", "MI325X", 81.7, 163.4, 653.7, 1307.4, 1307.4, 2614.9},
	{"MI300X", "MI300X", 81.7, 163.4, 653.7, 1307.4, 1307.4, 2614.9},
	{"MI250X", "MI250X", 47.9, 47.9, 0, 383, 383, 0},
	{"MI250", "MI250", 45.3, 45.3, 0, 362.1, 362.1, 0},
	{"MI210", "MI210", 22.6, 22.6, 0, 181, 181, 0},
};

static int contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return 1;
	return 0;
}

double est_peak_tflops(const char *gpu_name, enum est_precision prec, const char **matched)
{
	if (matched)
		*matched = NULL;
	if (!gpu_name)
		return 0;
	for (size_t i = 0; i < sizeof(peaks) / sizeof(peaks[0]); i++) {
		const struct gpu_peak *g = &peaks[i];
		if (!contains_ci(gpu_name, g->match))
			continue;
		if (matched)
			*matched = g->name;
		switch (prec) {
		case PREC_FP64: return g->fp64;
		case PREC_FP32: return g->fp32;
		case PREC_TF32: return g->tf32;
		case PREC_FP16: return g->fp16;
		case PREC_BF16: return g->bf16;
		case PREC_FP8: return g->fp8;
		default: return 0;
		}
	}
	return 0;
}

static const char *const prec_names[] = {"", "fp64", "fp32", "tf32", "fp16", "bf16", "fp8"};

enum est_precision est_precision_parse(const char *s)
{
	for (int i = 1; i < (int)(sizeof(prec_names) / sizeof(prec_names[0])); i++)
		if (s && !strcasecmp(s, prec_names[i]))
			return (enum est_precision)i;
	return PREC_UNKNOWN;
}

const char *est_precision_name(enum est_precision p)
{
	return p > PREC_UNKNOWN && p <= PREC_FP8 ? prec_names[p] : "";
}

int est_fit_line(const double *x, const double *y, int n, double *slope, double *intercept, double *r2)
{
	if (n < 2)
		return -1;
	double mx = 0, my = 0;
	for (int i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= n;
	my /= n;
	double sxx = 0, sxy = 0, syy = 0;
	for (int i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
		syy += (y[i] - my) * (y[i] - my);
	}
	if (sxx == 0)
		return -1;
	*slope = sxy / sxx;
	*intercept = my - *slope * mx;
	double ssres = 0;
	for (int i = 0; i < n; i++) {
		double e = y[i] - (*slope * x[i] + *intercept);
		ssres += e * e;
	}
	*r2 = syy > 0 ? 1.0 - ssres / syy : 1.0;
	return 0;
}
