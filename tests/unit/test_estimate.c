/*
 * test_estimate.c: the analytical estimates against values worked out by hand.
 *
 * Expected numbers were computed with pencil (and checked with a one-line
 * Python expression of the same formula), never copied from perfstudy:
 *   GPT-2 124M: 12 (12 * 768^2 + 13 * 768) + 50257 * 768 + 1024 * 768 + 2 * 768
 *     = 85054464 + 38597376 + 786432 + 1536 = 124439808, the count PyTorch
 *     printed for the model in ../shared/corpus/h200/gpt2-124m (rank0.log).
 *   BERT-base: 85054464 + 30522 * 768 + 512 * 768 + 2 * 768 (token types)
 *     + 2 * 768 (embedding LayerNorm) + 768^2 + 768 (pooler) = 109482240,
 *     Hugging Face's count for bert-base-uncased ("110M").
 *   Megatron GPT-2 of paper 004: l 24, d 1024, V 50304 (padded), s 1024:
 *     24 * (12 * 1024^2 + 13 * 1024) + 50304 * 1024 + 1024^2 + 2048
 *     = 354871296, the model size printed in the paper.
 *   Cheng et al. (paper 002) FLOPs b(72sd^2 + 12s^2d)l, b = 1, s = 1024.
 */
#include <math.h>
#include <string.h>

#include "analyze/models/estimate.h"

#include "check.h"

static int near(double got, double want, double rel)
{
	return fabs(got - want) <= rel * fabs(want);
}

static void test_params(void)
{
	struct est_model gpt2 = {.layers = 12, .hidden = 768, .heads = 12, .seq = 1024, .vocab = 50257};
	CHECK_INT(est_params(&gpt2), 124439808);
	CHECK_INT(est_params_simple(&gpt2), 84934656);
	struct est_model bert = {.layers = 12, .hidden = 768, .heads = 12, .ffn = 3072, .seq = 512,
				 .vocab = 30522, .arch = ARCH_BERT};
	CHECK_INT(est_params(&bert), 109482240);
	struct est_model m004[] = {
		{.layers = 24, .hidden = 1024, .seq = 1024, .vocab = 50304},
		{.layers = 40, .hidden = 1536, .seq = 1024, .vocab = 50304},
		{.layers = 54, .hidden = 1920, .seq = 1024, .vocab = 50304},
	};
	CHECK_INT(est_params(&m004[0]), 354871296);
	CHECK_INT(est_params(&m004[1]), 1212103680);
	CHECK_INT(est_params(&m004[2]), 2488688640);
	/* The ffn enters as 2df + f: l 1, d 2, f 3, V 1, s 1 -> 16+8+12+3+2+8 = 49, + 2 + 2 + 4. */
	struct est_model tiny = {.layers = 1, .hidden = 2, .ffn = 3, .seq = 1, .vocab = 1};
	CHECK_INT(est_params(&tiny), 57);
	struct est_model none = {.layers = 12};
	CHECK_INT(est_params(&none), 0);
	/*
	 * Paper 001's word_language_model TransformerModel (d = f = 200, 1 layer, V 33278), the rows of its
	 * torchinfo summary: layer 242,000, final LayerNorm 400, decoder 200 x 33278 + 33278 = 6,688,878,
	 * embedding 33278 x 200 = 6,655,600: 13,586,878 in all (torchinfo prints 13,466,278 as the total).
	 */
	struct est_model lm = {.layers = 1, .hidden = 200, .heads = 2, .ffn = 200, .seq = 35, .vocab = 33278,
			       .arch = ARCH_ENCODER_LM};
	CHECK_INT(est_params(&lm), 13586878);
}

/*
 * Parameters as the frameworks count them; every expected value worked out
 * below and equal to what the framework printed (paper 004's tables, the
 * h200 BERT log's "params 109514298").
 */
static void test_params_frameworks(void)
{
	/*
	 * Megatron GPT-2 4.2B of paper 004 (l 64, d 2304, s 1024, t 4): V 50257
	 * padded to a multiple of 128 x 4 = 512: 99 x 512 = 50688.
	 * split over the ranks: 64 (12 x 2304^2 + 7 x 2304) + 50688 x 2304
	 *   = 64 x 63717120 + 116785152 = 4194680832;
	 * on every rank: 64 x 6 x 2304 + 1024 x 2304 + 2 x 2304 = 884736 +
	 *   2359296 + 4608 = 3248640, x 4 = 12994560;
	 * sum 4207675392 = the paper's model size (4 x 1051918848 per rank).
	 */
	struct est_model g42 = {.layers = 64, .hidden = 2304, .heads = 24, .seq = 1024, .vocab = 50257,
				.framework = FW_MEGATRON};
	CHECK_INT(est_vocab_padded(&g42, 4), 50688);
	CHECK_INT(est_params_as(&g42, 4), 4207675392);
	/* The formula on the unpadded vocabulary is 10.6M short: 4197044736 with V 50304 (issue 20). */
	struct est_model g42f = g42;
	g42f.framework = FW_FORMULA;
	g42f.vocab = 50304;
	CHECK_INT(est_params(&g42f), 4197044736);
	/*
	 * 8.3B (l 72, d 3072, t 8): V to a multiple of 1024: 50 x 1024 = 51200.
	 * split 72 (12 x 3072^2 + 7 x 3072) + 51200 x 3072 = 8312561664;
	 * copies (72 x 6 x 3072 + 1024 x 3072 + 2 x 3072) x 8 = 4478976 x 8 = 35831808;
	 * sum 8348393472 (paper: 8 x 1043549184).
	 */
	struct est_model g83 = {.layers = 72, .hidden = 3072, .seq = 1024, .vocab = 50257, .framework = FW_MEGATRON};
	CHECK_INT(est_params_as(&g83, 8), 8348393472);
	/* t 1, V 50304 (= 393 x 128): Megatron's count is the general form, 354871296. */
	struct est_model g035 = {.layers = 24, .hidden = 1024, .seq = 1024, .vocab = 50257, .framework = FW_MEGATRON};
	CHECK_INT(est_params_as(&g035, 1), 354871296);
	/* vocab_multiple 64: 50257 -> 786 x 64 = 50304 too; 1 leaves it: 354871296 - 47 x 1024. */
	g035.vocab_multiple = 1;
	CHECK_INT(est_params_as(&g035, 1), 354871296 - 47 * 1024);
	/*
	 * Megatron BERT 0.34B (l 24, d 1024, s 512, t 1): V 30522 -> 239 x 128 = 30592.
	 * split 24 (12 x 1024^2 + 7 x 1024) + 30592 x 1024 + 30592 (MLM bias)
	 *   = 302161920 + 31326208 + 30592 = 333518720;
	 * copies 24 x 6 x 1024 (147456) + 512 x 1024 (524288) + final LN 2048
	 *   + 2 token types 2048 + pooler 1049600 + MLM dense and LN 1051648
	 *   + NSP 2050 = 2779138; sum 336297858, the paper's size (the general
	 *   form, 335141888, was 1155970 short).
	 */
	struct est_model b034 = {.layers = 24, .hidden = 1024, .seq = 512, .vocab = 30522, .arch = ARCH_BERT,
				 .framework = FW_MEGATRON};
	CHECK_INT(est_params_as(&b034, 1), 336297858);
	b034.framework = FW_FORMULA;
	CHECK_INT(est_params_as(&b034, 1), 335141888);
	b034.framework = FW_MEGATRON;
	b034.objective = OBJ_MLM; /* without the NSP head: 2 x 1024 + 2 fewer */
	CHECK_INT(est_params_as(&b034, 1), 336297858 - 2050);
	/*
	 * 8.4B (l 72, d 3072, t 8): V -> 30 x 1024 = 30720; split 72 (12 x 3072^2
	 * + 7 x 3072) + 30720 x 3072 + 30720 = 8249677824; copies 8 x (1327104 +
	 * 1572864 + 6144 + 6144 + 9440256 + 9446400 + 6146) = 8 x 21805058 =
	 * 174440464; sum 8424118288 (paper).
	 */
	struct est_model b84 = {.layers = 72, .hidden = 3072, .seq = 512, .vocab = 30522, .arch = ARCH_BERT,
				.framework = FW_MEGATRON};
	CHECK_INT(est_params_as(&b84, 8), 8424118288);
	/*
	 * Hugging Face BertForMaskedLM, BERT-base: BertModel 109482240 - pooler
	 * (768^2 + 768) + MLM head (768^2 + 768 + 2 x 768 + 30522) = 109482240 +
	 * 1536 + 30522 = 109514298, the h200 BERT log's "params 109514298".
	 */
	struct est_model hf = {.layers = 12, .hidden = 768, .ffn = 3072, .seq = 512, .vocab = 30522, .arch = ARCH_BERT,
			       .framework = FW_HUGGINGFACE, .objective = OBJ_MLM};
	CHECK_INT(est_params_as(&hf, 1), 109514298);
	hf.objective = OBJ_NONE;
	CHECK_INT(est_params_as(&hf, 1), 109482240);
	/* BertForPreTraining: + MLM head (589824 + 768 + 1536 + 30522 = 622650) + NSP 1538 = 110106428. */
	hf.objective = OBJ_MLM_NSP;
	CHECK_INT(est_params_as(&hf, 1), 110106428);
	/* Hugging Face GPT-2 ties its LM head: the general form, 124439808. */
	struct est_model g2 = {.layers = 12, .hidden = 768, .seq = 1024, .vocab = 50257, .framework = FW_HUGGINGFACE};
	CHECK_INT(est_params_as(&g2, 1), 124439808);
	/*
	 * Paper 001's encoder layer (d 200, f 200): 4 x 200^2 + 4 x 200 (attention)
	 * + 2 x 200 x 200 + 200 + 200 (feed-forward) + 4 x 200 (two LayerNorms)
	 * = 160800 + 80400 + 800 = 242000, torchinfo's count in the paper.
	 */
	struct est_model enc = {.layers = 1, .hidden = 200, .heads = 2, .ffn = 200, .seq = 35};
	CHECK_INT(est_layer_params(&enc), 242000);
	CHECK_INT(est_params_as(&enc, 1), 0); /* no vocabulary, no whole-model count */
	/* Paper 001's Table 1: 7 x b x 35 x 200^2 MACs: b 16 -> 156800000 (156.8 x 10^6), b 256 -> 2508800000. */
	CHECK(est_paper001_macs(&enc, 16) == 156800000.0);
	CHECK(est_paper001_macs(&enc, 256) == 2508800000.0);
}

static void test_flops(void)
{
	/* Paper 002's table: 0.6, 8.2, 16.5, 41.2, 79.9, 114.4 TFLOP. */
	static const struct {
		int64_t l, d;
		double tflop;
	} cheng[] = {{12, 768, 0.6}, {24, 2064, 8.2}, {32, 2560, 16.5}, {32, 4096, 41.2}, {40, 5120, 79.9}, {40, 6144, 114.4}};
	for (size_t i = 0; i < sizeof(cheng) / sizeof(cheng[0]); i++) {
		struct est_model m = {.layers = cheng[i].l, .hidden = cheng[i].d, .seq = 1024, .vocab = 50257};
		double f = est_train_flops(&m, 1, RECOMP_NONE, 0);
		CHECK(round(f / 1e11) / 10 == cheng[i].tflop);
	}
	/* 125M exactly: 72*1024*768^2*12 + 12*1024^2*768*12 = 521838526464 + 115964116992. */
	struct est_model m125 = {.layers = 12, .hidden = 768, .heads = 12, .seq = 1024, .vocab = 50257};
	CHECK(est_train_flops(&m125, 1, RECOMP_NONE, 0) == 637802643456.0);
	/* Megatron with logits, B 8: 72Bsld^2 + 12Bs^2ld + 6BsdV = 6999559372800 (the h200 log: 113.3 TFLOP/s at 61.8 ms). */
	CHECK(est_train_flops(&m125, 8, RECOMP_NONE, 1) == 6999559372800.0);
	CHECK(near(est_megatron_flops(&m125, 8, 0), 6999559372800.0, 1e-12));
	CHECK(near(6999559372800.0 / 0.0618 / 1e12, 113.3, 0.001));
	/* Recomputation adds one forward of the layers, not of the logits: 96 and 16 instead of 72 and 12. */
	double r = 96.0 * 8 * 1024 * 12 * 768 * 768 + 16.0 * 8 * 1024 * 1024 * 12 * 768 + 6.0 * 8 * 1024 * 768 * 50257;
	CHECK(est_train_flops(&m125, 8, RECOMP_FULL, 1) == r);
	/* One encoder layer of paper 001 (d 200, f 200, s 35), forward, b 16: 2*16*35*(160000+80000) + 4*16*1225*200. */
	struct est_model enc = {.layers = 1, .hidden = 200, .heads = 2, .ffn = 200, .seq = 35};
	CHECK(est_layer_fwd_flops(&enc, 16) == 284480000.0);
	CHECK(est_logit_fwd_flops(&m125, 1) == 2.0 * 1024 * 768 * 50257);
}

static void test_memory(void)
{
	struct est_model m = {.layers = 12, .hidden = 768, .heads = 12, .seq = 1024};
	/* (34*1024*768 + 5*12*1024^2) * 12 = (26738688 + 62914560) * 12. */
	CHECK(est_activation_bytes(&m, 1, 1, RECOMP_NONE) == 1075838976.0);
	CHECK(est_activation_bytes(&m, 2, 1, RECOMP_SELECTIVE) == 34.0 * 1024 * 2 * 768 * 12);
	CHECK(est_activation_bytes(&m, 2, 1, RECOMP_FULL) == 2.0 * 1024 * 2 * 768 * 12);
	/* t 2: sbd (10 + 12) + 5as^2b/2 per layer. */
	CHECK(est_activation_bytes(&m, 1, 2, RECOMP_NONE) == 12 * (22.0 * 1024 * 768 + 2.5 * 12 * 1024 * 1024));
	CHECK(est_model_state_bytes(1e9, 0, 8) == 16e9);
	CHECK(est_model_state_bytes(1e9, 1, 8) == 5.5e9);
	CHECK(est_model_state_bytes(1e9, 2, 8) == 3.75e9);
	CHECK(est_model_state_bytes(1e9, 3, 8) == 2e9);
	/*
	 * 4(1 - 1/p)P for fp16 gradients, p 2 -> 2P; ZeRO-1 adds an AllGather of
	 * the parameters, (1 - 1/2) x 2 x P = P: 3P; ZeRO-3 two AllGathers and a
	 * ReduceScatter: 3P.
	 */
	CHECK(est_comm_bytes(1e9, 1, 2, 2) == 3e9);
	CHECK(est_comm_bytes(1e9, 0, 4, 4) == 6e9);
	CHECK(est_comm_bytes(1e9, 2, 2, 2) == 2e9);
	CHECK(est_comm_bytes(1e9, 3, 2, 2) == 3e9);
	CHECK(est_comm_bytes(1e9, 1, 1, 2) == 0);
}

/* Per collective type (Cheng et al. 2024), tensor and pipeline parallelism, worked by hand. */
static void test_comm_types(void)
{
	double v[NCOLL];
	/*
	 * GPT-2 124M (P = 124,439,808), fp32 gradients (g 4), ZeRO-1 on 2 GPUs:
	 * AllReduce 2 x (1 - 1/2) x 4 x 124439808 = 497,759,232, AllGather
	 * (1 - 1/2) x 4 x 124439808 = 248,879,616, together 746,638,848: what the
	 * H200 trace of gpt2-2gpu-zero1 measures (AllReduce 497,759,232 plus
	 * Broadcasts 248,879,616).
	 */
	est_comm_dp(124439808, 1, 2, 4, v);
	CHECK(v[COLL_ALLREDUCE] == 497759232.0);
	CHECK(v[COLL_ALLGATHER] == 248879616.0);
	CHECK(v[COLL_REDUCESCATTER] == 0 && v[COLL_REDUCE] == 0 && v[COLL_BROADCAST] == 0 && v[COLL_SENDRECV] == 0);
	CHECK(est_comm_bytes(124439808, 1, 2, 4) == 746638848.0);
	/* ZeRO-0, 4 GPUs, g 2, P 1000: AllReduce 2 x 3/4 x 2 x 1000 = 3000, nothing else. */
	est_comm_dp(1000, 0, 4, 2, v);
	CHECK(v[COLL_ALLREDUCE] == 3000.0 && v[COLL_ALLGATHER] == 0);
	/* ZeRO-2, 4 GPUs, g 2, P 1000: ReduceScatter 3/4 x 2 x 1000 = 1500 and AllGather 1500. */
	est_comm_dp(1000, 2, 4, 2, v);
	CHECK(v[COLL_REDUCESCATTER] == 1500.0 && v[COLL_ALLGATHER] == 1500.0 && v[COLL_ALLREDUCE] == 0);
	/* ZeRO-3: ReduceScatter 1500, AllGather forward and backward 3000. */
	est_comm_dp(1000, 3, 4, 2, v);
	CHECK(v[COLL_REDUCESCATTER] == 1500.0 && v[COLL_ALLGATHER] == 3000.0);
	est_comm_dp(1000, 3, 1, 2, v);
	CHECK(v[COLL_ALLGATHER] == 0 && v[COLL_REDUCESCATTER] == 0);
	CHECK(!strcmp(est_coll_names[COLL_REDUCESCATTER], "ReduceScatter"));
	/*
	 * Tensor parallel t 2, b 4, s 8, d 16, fp16 (a 2), l 3: one AllReduce
	 * sends 2 x (1 - 1/2) x 4 x 8 x 16 x 2 = 1024 bytes; 4 per layer: 3 x 4 x
	 * 1024 = 12,288; full recomputation 6 per layer: 18,432.
	 */
	struct est_model m = {.layers = 3, .hidden = 16, .seq = 8};
	CHECK(est_comm_tp(&m, 4, 2, 2, RECOMP_NONE) == 12288.0);
	CHECK(est_comm_tp(&m, 4, 2, 2, RECOMP_FULL) == 18432.0);
	CHECK(est_comm_tp(&m, 4, 1, 2, RECOMP_NONE) == 0);
	/* Pipeline: 2 x 4 x 8 x 16 x 2 = 2048 bytes per step for a middle stage. */
	CHECK(est_comm_pp(&m, 4, 4, 2) == 2048.0);
	CHECK(est_comm_pp(&m, 4, 1, 2) == 0);
}

static void test_peak(void)
{
	const char *m;
	CHECK(est_peak_tflops("NVIDIA H200", PREC_BF16, &m) == 989.5);
	CHECK_STR(m, "H200");
	CHECK(est_peak_tflops("NVIDIA H100 PCIe", PREC_BF16, &m) == 756);
	CHECK(est_peak_tflops("NVIDIA H100 80GB HBM3", PREC_FP8, &m) == 1979);
	CHECK_STR(m, "H100 SXM");
	CHECK(est_peak_tflops("Tesla V100-SXM2-32GB", PREC_FP16, &m) == 125);
	CHECK(est_peak_tflops("Tesla V100-PCIE-32GB", PREC_FP16, &m) == 112);
	CHECK(est_peak_tflops("NVIDIA A100-SXM4-80GB", PREC_TF32, &m) == 156);
	CHECK(est_peak_tflops("NVIDIA A10", PREC_BF16, &m) == 125);
	CHECK_STR(m, "A10");
	CHECK(est_peak_tflops("Tesla T4", PREC_BF16, &m) == 0);
	CHECK(est_peak_tflops("NVIDIA GeForce GTX 1660 Ti", PREC_FP32, &m) == 0);
	CHECK(m == NULL);
	/* AMD Instinct, as ROCm names them in deviceProperties (" VF" under virtualisation) */
	CHECK(est_peak_tflops("AMD Instinct MI300X VF", PREC_BF16, &m) == 1307.4);
	CHECK_STR(m, "MI300X");
	CHECK(est_peak_tflops("AMD Instinct MI325X", PREC_FP8, &m) == 2614.9);
	CHECK(est_peak_tflops("AMD Instinct MI355X", PREC_BF16, &m) == 2516.6);
	CHECK(est_peak_tflops("AMD Instinct MI355X", PREC_TF32, &m) == 0);
	CHECK(est_peak_tflops("AMD Instinct MI250X", PREC_FP16, &m) == 383);
	CHECK_STR(m, "MI250X");
	CHECK(est_peak_tflops("AMD Instinct MI250", PREC_BF16, &m) == 362.1);
	CHECK_STR(m, "MI250");
	CHECK(est_peak_tflops("AMD Radeon Graphics", PREC_BF16, &m) == 0);
	CHECK(m == NULL);
	CHECK(est_precision_parse("BF16") == PREC_BF16);
	CHECK(est_precision_parse("int8") == PREC_UNKNOWN);
	CHECK_STR(est_precision_name(PREC_TF32), "tf32");
}

static void test_fit(void)
{
	/* y = 2x + 1 exactly: slope 2, intercept 1, R^2 1. */
	double x[] = {1, 2, 3, 4}, y[] = {3, 5, 7, 9};
	double a, b, r2;
	CHECK(est_fit_line(x, y, 4, &a, &b, &r2) == 0);
	CHECK(near(a, 2, 1e-12) && near(b, 1, 1e-12) && near(r2, 1, 1e-12));
	/* (0,0) (1,1) (2,1): mean x 1, y 2/3; sxy 1, sxx 2 -> slope 0.5, intercept 1/6;
	 * residuals -1/6, 1/3, -1/6 -> SSres 1/6; SStot 2/3 -> R^2 0.75. */
	double x2[] = {0, 1, 2}, y2[] = {0, 1, 1};
	CHECK(est_fit_line(x2, y2, 3, &a, &b, &r2) == 0);
	CHECK(near(a, 0.5, 1e-12) && near(b, 1.0 / 6, 1e-12) && near(r2, 0.75, 1e-12));
	double x3[] = {1, 1};
	CHECK(est_fit_line(x3, y2, 2, &a, &b, &r2) < 0);
	CHECK(est_fit_line(x, y, 1, &a, &b, &r2) < 0);
}

int main(void)
{
	test_params();
	test_params_frameworks();
	test_flops();
	test_memory();
	test_comm_types();
	test_peak();
	test_fit();
	return check_result("test_estimate");
}
