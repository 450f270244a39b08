/*
 * op_roofline_model.c: the FLOPs and bytes of one operator call from its
 * recorded shapes (model_ops' "Input Dims", "Input type", "Concrete
 * Inputs"), and the devices' dense peaks; op_roofline.c prices the calls.
 *
 * The formulas are TraceLens's perf model (AMD-AGI/TraceLens,
 * TraceLens/PerfModel/perf_model.py at 171dd74721ca1ec45709e5805b68ae1f65e27811),
 * so that the numbers can be checked against it (tests/golden/op_roofline):
 *
 *   GEMM (class GEMM, aten_mm, aten_addmm, aten_bmm, aten_baddbmm,
 *   aten_scaled_mm): A [M, K] x B [K, N] (bmm: B batches of it)
 *     flops = 2 M N K + (bias ? M N : 0)
 *     bytes = (M K + K N + M N + (bias ? N : 0)) x bytes per element
 *   with bias for addmm and baddbmm (the bias is taken as 1 x N whatever
 *   its shape, as TraceLens does), and the element size of A's type for
 *   every operand (_scaled_mm: an fp8 output counted as 2 bytes).
 *
 *   SDPA forward (class SDPA.flops_func, bytes_func; the flash-attention
 *   benchmark's count): Q [B, H, N, d], K and V [B, Hkv, Nkv, d(v)]
 *     flops = 4 B H N Nkv d          (QK^T and PV; softmax left out)
 *     bytes = (B N H d + B Nkv Hkv d + B Nkv Hkv dv + B N H dv) x size
 *   halved when causal (is_causal among the concrete inputs, N = Nkv).
 *
 *   SDPA backward (SDPA.flops_bwd_func, bytes_bwd_func): dV, dP, dQ, dK,
 *   four products of 2 B H N Nkv d each, plus the QK^T recomputed by the
 *   flash kernel (flash_impl), plus B Nkv d (H / Hkv - 1) for each of dV
 *   and dK under grouped-query attention; halved when causal. bytes: Q, K,
 *   V and dO read, dQ, dK, dV written. TraceLens prices a backward call
 *   through its forward event (linked by the autograd sequence number);
 *   here it is read from the backward call's own q, k, v shapes, the same
 *   numbers.
 *
 * Layer norm (LayerNorm, LayerNormBwd), unary elementwise operators
 * (UnaryElementwise), softmax (Softmax), convolution (CONV) and
 * embedding, the fused Adam and the _foreach_ operators (perfstudy's own:
 * TraceLens has no model of an optimizer): see layer_norm(), unary(),
 * softmax(), conv(), embedding(), fused_adam() and foreach_op() below.
 *
 * One difference, documented in the Methods: TraceLens takes 2 bytes per
 * element for attention whatever the dtype (SDPA.bytes' default); here it
 * is the element size of the query's type (the same for bf16 and fp16).
 */
#include "analyze/models/op_roofline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAXD 8

/* The i-th input of compact dims text d ("[36,1024],[50257,1024]") into v: its rank, -1 when absent. */
static int dims_at(const char *d, int i, int64_t v[MAXD])
{
	const char *p = d;
	for (int k = 0; p && *p; k++) {
		if (*p != '[')
			return -1;
		const char *e = strchr(p, ']');
		if (!e)
			return -1;
		if (k == i) {
			int n = 0;
			p++;
			while (p < e) {
				char *end;
				long long x = strtoll(p, &end, 10);
				if (end == p || n == MAXD)
					return -1;
				v[n++] = x;
				p = *end == ',' ? end + 1 : end;
			}
			return n;
		}
		p = e + 1;
		if (*p == ',')
			p++;
	}
	return -1;
}

/* The i-th comma-separated string of compact text s (brackets kept whole) into out; 0 when absent. */
static int field_at(const char *s, int i, char *out, size_t cap)
{
	if (!s)
		return 0;
	int k = 0, depth = 0;
	const char *start = s;
	for (const char *p = s;; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']')
			depth--;
		if (*p == '\0' || (*p == ',' && depth == 0)) {
			if (k == i) {
				size_t n = (size_t)(p - start);
				if (n >= cap)
					n = cap - 1;
				memcpy(out, start, n);
				out[n] = '\0';
				return 1;
			}
			if (*p == '\0')
				return 0;
			k++;
			start = p + 1;
		}
	}
}

/* Bytes per element of a type as the trace writes it (TraceLens utils.name2bpe); 0 when unknown. */
static int type_size(const char *t)
{
	static const struct {
		const char *name;
		int size;
	} sizes[] = {
		{"double", 8}, {"long int", 8}, {"float", 4}, {"scalar", 4}, {"int", 4},
		{"c10::half", 2}, {"c10::bfloat16", 2}, {"c10::float8_e4m3fnuz", 1}, {"c10::float8_e4m3fn", 1},
		{"c10::float8_e5m2", 1}, {"c10::float8_e8m0fnu", 1}, {"unsigned char", 1}, {"signed char", 1},
	};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (!strcasecmp(t, sizes[i].name))
			return sizes[i].size;
	return 0;
}

static const char *static_type(const char *t)
{
	static const char *const known[] = {"c10::BFloat16", "c10::Half", "float", "double", "c10::Float8_e4m3fn",
					    "c10::Float8_e5m2", "c10::Float8_e4m3fnuz"};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(t, known[i]))
			return known[i];
	return NULL;
}

/* A matrix product: a_at, b_at the inputs A and B; batched: 3-d inputs. */
static int gemm(const char *dims, const char *types, int a_at, int bias, int batched, int scaled, struct op_cost *c)
{
	int64_t a[MAXD], b[MAXD];
	int na = dims_at(dims, a_at, a), nb = dims_at(dims, a_at + 1, b);
	char t[64];
	if (na != 2 + batched || nb != 2 + batched || !field_at(types, a_at, t, sizeof(t)))
		return 0;
	double B = batched ? (double)a[0] : 1, M = (double)a[batched], K = (double)a[batched + 1],
	       N = (double)b[batched + 1];
	int size = type_size(t);
	if (!size)
		return 0;
	int out = scaled && size == 1 ? 2 : size;
	c->flops = B * (2 * M * N * K + (bias ? M * N : 0));
	c->bytes = B * ((M * K + K * N + (bias ? N : 0)) * size + M * N * out);
	c->family = "gemm";
	c->dtype = static_type(t);
	return 1;
}

/* SDPA: q_at the query's input; bhnd: 1 for [B, H, N, d], 0 for [B, N, H, d]; causal_at its concrete input. */
static int sdpa(const char *dims, const char *types, const char *concrete, int q_at, int bhnd, int causal_at,
		int bwd, int flash, struct op_cost *c)
{
	int64_t q[MAXD], k[MAXD], v[MAXD];
	char t[64], cz[16];
	if (dims_at(dims, q_at, q) != 4 || dims_at(dims, q_at + 1, k) != 4 || dims_at(dims, q_at + 2, v) != 4 ||
	    !field_at(types, q_at, t, sizeof(t)))
		return 0;
	int hi = bhnd ? 1 : 2, ni = bhnd ? 2 : 1;
	double B = (double)q[0], H = (double)q[hi], N = (double)q[ni], d = (double)q[3];
	double Hkv = (double)k[hi], Nkv = (double)k[ni], dv = (double)v[3];
	int causal = field_at(concrete, causal_at, cz, sizeof(cz)) && !strcasecmp(cz, "true");
	if (causal && N != Nkv)
		return 0;
	int size = type_size(t);
	if (!size)
		return 0;
	double qk = B * H * 2 * N * Nkv * d, pv = B * H * 2 * N * dv * Nkv;
	double flops, elems;
	if (!bwd) {
		flops = qk + pv;
		elems = B * N * H * d + B * Nkv * Hkv * d + B * Nkv * Hkv * dv + B * N * H * dv;
	} else {
		long rep = (long)(H / Hkv) - 1;
		flops = (flash ? qk : 0) + pv + B * Nkv * dv * (double)rep + pv + qk + qk + B * Nkv * d * (double)rep;
		elems = B * N * H * d + B * Nkv * Hkv * d + B * Nkv * Hkv * dv + B * N * H * dv + B * N * H * d +
			B * Nkv * Hkv * d + B * Nkv * Hkv * dv;
	}
	c->flops = causal ? flops / 2 : flops;
	c->bytes = elems * size;
	c->family = bwd ? "sdpa_bwd" : "sdpa_fwd";
	c->dtype = static_type(t);
	return 1;
}

/* The product of the integers of list text "[768]" or "[8, 768]"; 0 when it is not one. */
static double list_prod(const char *s)
{
	if (*s != '[')
		return 0;
	double p = 1;
	int n = 0;
	for (s++; *s && *s != ']';) {
		char *end;
		long long x = strtoll(s, &end, 10);
		if (end == s)
			return 0;
		p *= (double)x;
		n++;
		s = end;
		while (*s == ',' || *s == ' ')
			s++;
	}
	return n ? p : 0;
}

/* The i-th boolean of list text "[True, True, False]"; def when absent. */
static int list_bool(const char *s, int i, int def)
{
	for (int k = 0; *s; k++) {
		while (*s == '[' || *s == ',' || *s == ' ')
			s++;
		if (k == i)
			return !strncmp(s, "True", 4) ? 1 : !strncmp(s, "False", 5) ? 0 : def;
		while (*s && *s != ',' && *s != ']')
			s++;
		if (*s == ']')
			break;
	}
	return def;
}

static double elems_at(const char *dims, int i)
{
	int64_t v[MAXD];
	int n = dims_at(dims, i, v);
	double p = 1;
	for (int k = 0; k < n; k++)
		p *= (double)v[k];
	return n > 0 ? p : 0;
}

/*
 * Layer norm, TraceLens's LayerNorm and LayerNormBwd (class Normalization,
 * is_training and, forward, the affine weight and bias always counted):
 * N elements, C normalised ones (the normalized_shape concrete input).
 *   forward:  flops 6C + 5N; bytes 2N + 6C elements (input and output;
 *             weight, bias, mean, variance, and the two saved statistics)
 *   backward: flops 4N + 5N (2N without grad_input); bytes N (grad_out) +
 *             2N (input, grad_input) + C (invstd) + C (weight) + 2C
 *             (grad_weight, grad_bias), by output_mask
 * in elements of the input's type.
 */
static int layer_norm(const char *dims, const char *types, const char *concrete, int bwd, struct op_cost *c)
{
	char t[64], cs[128], mask[64] = "";
	double N = elems_at(dims, bwd ? 1 : 0);
	if (!N || !field_at(types, bwd ? 1 : 0, t, sizeof(t)) || !field_at(concrete, bwd ? 2 : 1, cs, sizeof(cs)))
		return 0;
	double C = list_prod(cs);
	int size = type_size(t);
	if (!C || !size)
		return 0;
	if (!bwd) {
		c->flops = 6 * C + 5 * N;
		c->bytes = (2 * N + 6 * C) * size;
	} else {
		field_at(concrete, 7, mask, sizeof(mask));
		int gin = list_bool(mask, 0, 1), gw = list_bool(mask, 1, 1), gb = list_bool(mask, 2, 1);
		c->flops = 4 * N + (gin ? 5 * N : 2 * N);
		c->bytes = (N + N * (gin ? 2 : 1) + C + (gw ? C + C * (gb ? 2 : 1) : 0)) * size;
	}
	c->family = bwd ? "norm_bwd" : "norm_fwd";
	c->dtype = static_type(t);
	return 1;
}

/*
 * A unary elementwise operator (TraceLens's UnaryElementwise): N elements
 * of the first input, one FLOP each; bytes N read and N written, the
 * output's type being the second input's when it has one.
 */
static int unary(const char *dims, const char *types, struct op_cost *c)
{
	char t[64], o[64];
	double N = elems_at(dims, 0);
	if (!N || !field_at(types, 0, t, sizeof(t)))
		return 0;
	int in = type_size(t), out = elems_at(dims, 1) > 0 && field_at(types, 1, o, sizeof(o)) ? type_size(o) : in;
	if (!in || !out)
		return 0;
	c->flops = N;
	c->bytes = N * in + N * out;
	c->family = "elementwise";
	c->dtype = static_type(t);
	return 1;
}

/*
 * Softmax and log-softmax over N elements, TraceLens's Softmax helper
 * (which its operator map does not use): 3N FLOPs (exponent, sum,
 * division) and 2N elements forward, twice both backward (the forward
 * taken as recomputed), in the input's type.
 */
static int softmax(const char *dims, const char *types, int bwd, struct op_cost *c)
{
	char t[64];
	double N = elems_at(dims, 0);
	if (!N || !field_at(types, 0, t, sizeof(t)))
		return 0;
	int size = type_size(t);
	if (!size)
		return 0;
	c->flops = (bwd ? 2 : 1) * 3 * N;
	c->bytes = (bwd ? 2 : 1) * 2 * N * size;
	c->family = "softmax";
	c->dtype = static_type(t);
	return 1;
}

/* The integers of list text s ("[1, 1]", "[2]") into v, broadcast to n when one; 0 when not n of them. */
static int int_list(const char *s, int64_t *v, int n)
{
	int k = 0;
	if (*s != '[')
		return 0;
	for (s++; *s && *s != ']';) {
		char *end;
		long long x = strtoll(s, &end, 10);
		if (end == s || k == MAXD)
			return 0;
		v[k++] = x;
		s = end;
		while (*s == ',' || *s == ' ')
			s++;
	}
	for (int i = k; k == 1 && i < n; i++)
		v[i] = v[0];
	return k == n || k == 1;
}

/*
 * Convolution, TraceLens's CONV (after torch.utils.flop_counter): input x
 * [N, C, spatial...], weight w [K, C / groups, kernel...], output
 * [N, K, out...] with out = floor((in + 2 pad - dil (k - 1) - 1) / stride)
 * + 1 per spatial dimension:
 *   forward:  flops 2 prod(out) prod(w[1:]) (= 2 N K C R S P Q / groups in
 *             2-d) + prod(out) with a bias; bytes prod(x) + prod(w) +
 *             prod(out) (+ K with a bias) elements of x's type
 *   backward: grad_input and grad_weight each the forward's product, the
 *             bias gradient prod(out); bytes: grad_output, weight and
 *             input for each of the first two (out + w + x), grad_output
 *             and K for the bias; each by output_mask
 * Unlike TraceLens, the bias is the third input when it is a tensor (its
 * aten::convolution takes a bias only from three "Input Dims", which the
 * profiler never writes), and the backward follows output_mask (TraceLens
 * prices all three). Transposed convolutions are not priced.
 */
static int conv(const char *dims, const char *types, const char *concrete, int bwd, struct op_cost *c)
{
	int64_t x[MAXD], w[MAXD], o[MAXD], b[MAXD], st[MAXD], pad[MAXD], dil[MAXD];
	char t[64], f[64];
	int at = bwd ? 1 : 0, nx = dims_at(dims, at, x);
	if (nx < 3 || dims_at(dims, at + 1, w) != nx || !field_at(types, at, t, sizeof(t)))
		return 0;
	int ns = nx - 2;
	if (!field_at(concrete, bwd ? 7 : 6, f, sizeof(f)) || strcmp(f, "False"))
		return 0; /* transposed, or not said */
	if (bwd) {
		if (dims_at(dims, 0, o) != nx)
			return 0;
	} else {
		if (!field_at(concrete, 3, f, sizeof(f)) || !int_list(f, st, ns) || !field_at(concrete, 4, f, sizeof(f)) ||
		    !int_list(f, pad, ns) || !field_at(concrete, 5, f, sizeof(f)) || !int_list(f, dil, ns))
			return 0;
		o[0] = x[0];
		o[1] = w[0];
		for (int i = 0; i < ns; i++) {
			if (st[i] <= 0)
				return 0;
			o[2 + i] = (x[2 + i] + 2 * pad[i] - dil[i] * (w[2 + i] - 1) - 1) / st[i] + 1;
		}
	}
	double px = 1, pw = 1, po = 1;
	for (int i = 0; i < nx; i++) {
		px *= (double)x[i];
		pw *= (double)w[i];
		po *= (double)o[i];
	}
	int size = type_size(t);
	if (!size || po <= 0)
		return 0;
	double K = (double)w[0], F = 2 * po * (pw / K);
	if (!bwd) {
		int bias = dims_at(dims, 2, b) == 1;
		c->flops = F + (bias ? po : 0);
		c->bytes = (px + pw + po + (bias ? K : 0)) * size;
	} else {
		char mask[64] = "";
		field_at(concrete, 10, mask, sizeof(mask));
		int gin = list_bool(mask, 0, 1), gw = list_bool(mask, 1, 1), gb = list_bool(mask, 2, 0);
		c->flops = (gin ? F : 0) + (gw ? F : 0) + (gb ? po : 0);
		c->bytes = ((gin ? po + pw + px : 0) + (gw ? po + px + pw : 0) + (gb ? po + K : 0)) * size;
	}
	c->family = bwd ? "conv_bwd" : "conv_fwd";
	c->dtype = static_type(t);
	return 1;
}

/*
 * aten::embedding (weight [V, D], indices of N elements): a gather, no
 * FLOPs; bytes the N indices read (their own element size, 8 for int64),
 * N rows of D read from the weight and N x D written, in the weight's type.
 */
static int embedding(const char *dims, const char *types, struct op_cost *c)
{
	int64_t w[MAXD];
	char t[64], it[64];
	double N = elems_at(dims, 1);
	if (dims_at(dims, 0, w) != 2 || !N || !field_at(types, 0, t, sizeof(t)) || !field_at(types, 1, it, sizeof(it)))
		return 0;
	int size = type_size(t), isize = type_size(it);
	if (!size || !isize)
		return 0;
	c->flops = 0;
	c->bytes = N * isize + 2 * N * (double)w[1] * size;
	c->family = "embedding";
	c->dtype = static_type(t);
	return 1;
}

/* The i-th input of dims when it is a list of tensors, "{T:E}": *t tensors, *e elements; 0 when not. */
static int list_at(const char *dims, int i, double *t, double *e)
{
	char f[64];
	unsigned long long a, b;
	char end;
	if (!field_at(dims, i, f, sizeof(f)) || sscanf(f, "{%llu:%llu%c", &a, &b, &end) != 3 || end != '}')
		return 0;
	*t = (double)a;
	*e = (double)b;
	return 1;
}

/*
 * The fused Adam and AdamW (aten::_fused_adam_, _fused_adamw_: params,
 * grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr, beta1,
 * beta2, weight_decay, eps, amsgrad, ...), one kernel over E parameter
 * elements in T tensors. Kineto writes no element type for a list of
 * tensors ("TensorList"): fp32 is taken (4 bytes; the parameters and
 * optimizer state of mixed-precision training).
 *   bytes: param, grad, exp_avg, exp_avg_sq read and param, exp_avg,
 *          exp_avg_sq written, 7 E x 4, the steps read (one element
 *          each), 4 bytes each; amsgrad (max_exp_avg_sqs not empty: PyTorch
 *          passes an empty list without it) adds max_exp_avg_sq read and
 *          written, 2 E x 4
 *   FLOPs: 16 E, the operations of torch.optim.AdamW's documented
 *          algorithm per element: weight decay 2, first moment 3, second
 *          moment 4, the two bias corrections 2, the update 5 (square
 *          root, epsilon, division, learning rate, subtraction); amsgrad
 *          one more (the maximum). Adam's L2 term (g + lambda theta) is 2
 *          as well.
 */
static int fused_adam(const char *dims, struct op_cost *c)
{
	double T, E, t4, e4, ts, es;
	for (int i = 1; i < 4; i++)
		if (!list_at(dims, i, &t4, &e4))
			return 0;
	if (!list_at(dims, 0, &T, &E) || !E || !list_at(dims, 5, &ts, &es))
		return 0;
	int ams = list_at(dims, 4, &t4, &e4) && e4 > 0;
	c->flops = (ams ? 17 : 16) * E;
	c->bytes = ((ams ? 9 : 7) * E + es) * 4;
	c->family = "optimizer";
	c->dtype = "float";
	return 1;
}

/*
 * A _foreach_ operator of the foreach optimizers: L lists of tensors of E
 * elements each (the first list's count), elementwise: each list read
 * once and one written (the first, in place, or a new one), (L + 1) x E x
 * 4 bytes (fp32, as for the fused Adam above); FLOPs per element those of
 * the operation as PyTorch documents it: one for add, sub, mul, div,
 * maximum, neg, reciprocal and sqrt (a scalar's alpha left out), three for
 * lerp (start + weight (end - start)), addcmul (self + value t1 t2) and
 * addcdiv (self + value t1 / t2). An addcmul whose t1 and t2 have the
 * same shapes reads them once: Adam's and AdamW's addcmul_(exp_avg_sq,
 * grad, grad) reads grad once, and for two lists that differ it stays a
 * lower bound, as a roofline's bytes must be.
 */
static int foreach_op(const char *name, const char *dims, struct op_cost *c)
{
	static const struct {
		const char *op;
		int flops;
	} ops[] = {
		{"add", 1}, {"sub", 1}, {"mul", 1}, {"div", 1}, {"maximum", 1}, {"neg", 1}, {"reciprocal", 1},
		{"sqrt", 1}, {"lerp", 3}, {"addcmul", 3}, {"addcdiv", 3},
	};
	const char *op = name + strlen("aten::_foreach_");
	size_t n = strcspn(op, "_");
	int f = 0;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strlen(ops[i].op) == n && !strncmp(op, ops[i].op, n))
			f = ops[i].flops;
	double T, E = 0, t, e;
	int L = 0;
	for (int i = 0; f && i < 8; i++)
		if (list_at(dims, i, &t, &e)) {
			if (!L)
				E = e;
			L++;
		}
	if (!L || !E || !list_at(dims, 0, &T, &e))
		return 0;
	char t1[64], t2[64];
	if (n == 7 && !strncmp(op, "addcmul", n) && L == 3 && field_at(dims, 1, t1, sizeof(t1)) &&
	    field_at(dims, 2, t2, sizeof(t2)) && !strcmp(t1, t2))
		L = 2; /* addcmul_(v, g, g) of Adam: g read once, a lower bound when they differ */
	c->flops = f * E;
	c->bytes = (L + 1) * E * 4;
	c->family = "optimizer";
	c->dtype = "float";
	return 1;
}

int op_roofline_cost(const char *name, const char *dims, const char *types, const char *concrete,
		     struct op_cost *c)
{
	memset(c, 0, sizeof(*c));
	if (!dims)
		return 0;
	if (!strcmp(name, "aten::mm"))
		return gemm(dims, types, 0, 0, 0, 0, c);
	if (!strcmp(name, "aten::addmm"))
		return gemm(dims, types, 1, 1, 0, 0, c);
	if (!strcmp(name, "aten::bmm"))
		return gemm(dims, types, 0, 0, 1, 0, c);
	if (!strcmp(name, "aten::baddbmm"))
		return gemm(dims, types, 1, 1, 1, 0, c);
	if (!strcmp(name, "aten::_scaled_mm")) {
		int64_t x[MAXD];
		/* TraceLens: a bias when Input Dims has three entries */
		int bias = dims_at(dims, 2, x) >= 0 && dims_at(dims, 3, x) < 0;
		return gemm(dims, types, 0, bias, 0, 1, c);
	}
	/* is_causal's place among each signature's arguments (native_functions.yaml) */
	if (!strcmp(name, "aten::_scaled_dot_product_flash_attention"))
		return sdpa(dims, types, concrete, 0, 1, 4, 0, 1, c);
	if (!strcmp(name, "aten::_scaled_dot_product_efficient_attention") ||
	    !strcmp(name, "aten::_scaled_dot_product_cudnn_attention"))
		return sdpa(dims, types, concrete, 0, 1, 6, 0, 0, c);
	if (!strcmp(name, "aten::_scaled_dot_product_flash_attention_backward"))
		return sdpa(dims, types, concrete, 1, 1, 11, 1, 1, c);
	if (!strcmp(name, "aten::_scaled_dot_product_efficient_attention_backward"))
		return sdpa(dims, types, concrete, 1, 1, 11, 1, 0, c);
	if (!strcmp(name, "aten::_scaled_dot_product_cudnn_attention_backward"))
		return sdpa(dims, types, concrete, 1, 1, 14, 1, 0, c);
	if (!strcmp(name, "flash_attn::_flash_attn_forward"))
		return sdpa(dims, types, concrete, 0, 0, 5, 0, 1, c);
	if (!strcmp(name, "flash_attn::_flash_attn_backward"))
		return sdpa(dims, types, concrete, 1, 0, 10, 1, 1, c);
	if (!strcmp(name, "aten::native_layer_norm"))
		return layer_norm(dims, types, concrete, 0, c);
	if (!strcmp(name, "aten::native_layer_norm_backward"))
		return layer_norm(dims, types, concrete, 1, c);
	if (!strcmp(name, "aten::_softmax") || !strcmp(name, "aten::_log_softmax"))
		return softmax(dims, types, 0, c);
	if (!strcmp(name, "aten::_softmax_backward_data") || !strcmp(name, "aten::_log_softmax_backward_data"))
		return softmax(dims, types, 1, c);
	if (!strcmp(name, "aten::convolution"))
		return conv(dims, types, concrete, 0, c);
	if (!strcmp(name, "aten::convolution_backward"))
		return conv(dims, types, concrete, 1, c);
	if (!strcmp(name, "aten::embedding"))
		return embedding(dims, types, c);
	/* aten::silu is in TraceLens's unary list; aten::gelu is not, priced here as it would be */
	if (!strcmp(name, "aten::silu") || !strcmp(name, "aten::gelu"))
		return unary(dims, types, c);
	if (!strcmp(name, "aten::_fused_adam_") || !strcmp(name, "aten::_fused_adamw_"))
		return fused_adam(dims, c);
	if (!strncmp(name, "aten::_foreach_", 15))
		return foreach_op(name, dims, c);
	return 0;
}

int op_roofline_aten_kernels(const char *name)
{
	return !strcmp(name, "aten::native_layer_norm") || !strcmp(name, "aten::native_layer_norm_backward") ||
	       !strcmp(name, "aten::silu") || !strcmp(name, "aten::gelu") || !strcmp(name, "aten::_softmax") ||
	       !strcmp(name, "aten::_log_softmax") || !strcmp(name, "aten::_softmax_backward_data") ||
	       !strcmp(name, "aten::_log_softmax_backward_data") || !strcmp(name, "aten::embedding") ||
	       !strcmp(name, "aten::_fused_adam_") || !strcmp(name, "aten::_fused_adamw_") ||
	       !strncmp(name, "aten::_foreach_", 15);
}

/*
 * Dense (no sparsity) peaks, FLOP/s, and HBM bandwidth, bytes/s, of the
 * SXM parts unless the name says otherwise; the most specific name first.
 */
static const struct device_peaks peaks[] = {
	{"H200 NVL", 835.5e12, 835.5e12, 417.5e12, 60e12, 4.8e12, "NVIDIA H200 Tensor Core GPU datasheet (H200 NVL)"},
	{"H200", 989.5e12, 989.5e12, 494.5e12, 67e12, 4.8e12, "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM)"},
	{"H100 PCIe", 756.5e12, 756.5e12, 378e12, 51e12, 2.0e12, "NVIDIA H100 Tensor Core GPU datasheet (H100 PCIe)"},
	{"H100 NVL", 835.5e12, 835.5e12, 417.5e12, 60e12, 3.9e12, "NVIDIA H100 Tensor Core GPU datasheet (H100 NVL)"},
	{"H100", 989.5e12, 989.5e12, 494.5e12, 67e12, 3.35e12, "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM)"},
	{"A100-SXM4-40GB", 312e12, 312e12, 156e12, 19.5e12, 1.555e12, "NVIDIA A100 Tensor Core GPU datasheet (A100 40GB SXM)"},
	{"A100-PCIE-40GB", 312e12, 312e12, 156e12, 19.5e12, 1.555e12, "NVIDIA A100 Tensor Core GPU datasheet (A100 40GB PCIe)"},
	{"A100 80GB PCIe", 312e12, 312e12, 156e12, 19.5e12, 1.935e12, "NVIDIA A100 Tensor Core GPU datasheet (A100 80GB PCIe)"},
	{"A100", 312e12, 312e12, 156e12, 19.5e12, 2.039e12, "NVIDIA A100 Tensor Core GPU datasheet (A100 80GB SXM)"},
};

const struct device_peaks *op_roofline_peaks(const char *device)
{
	for (size_t i = 0; device && i < sizeof(peaks) / sizeof(peaks[0]); i++)
		if (strstr(device, peaks[i].match))
			return &peaks[i];
	return NULL;
}

double op_roofline_peak_flops(const struct device_peaks *p, const char *dtype)
{
	if (!p || !dtype)
		return 0;
	if (!strcmp(dtype, "c10::BFloat16"))
		return p->bf16;
	if (!strcmp(dtype, "c10::Half"))
		return p->fp16;
	/* fp32 matrix products without TF32 (PyTorch's default for matmul since 1.12) */
	if (!strcmp(dtype, "float"))
		return p->fp32;
	return 0;
}
