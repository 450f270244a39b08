/*
 * test_classify.c: the presets on real kernel names from the H200 traces
 * and on the rules of Payoungkhamdee & Phattiyaphaibun (2021), with the
 * expected group of each worked out from the rules as the issue states them.
 */
#include <string.h>

#include "analyze/lib/classify.h"
#include "check.h"
#include "util/diag.h"

struct kcase {
	enum activity_kind kind;
	const char *name;
	const char *group;
};

static void run_cases(const char *preset, const struct kcase *cases, size_t n)
{
	struct classifier *c = classifier_preset(preset);
	CHECK(c != NULL);
	if (!c)
		return;
	for (size_t i = 0; i < n; i++)
		CHECK_STR(classify(c, cases[i].kind, cases[i].name), cases[i].group);
	classifier_free(c);
}

static const struct kcase default_cases[] = {
	{ACT_KERNEL, "nvjet_sm90_tst_192x128_64x5_1x2_h_bz_coopB_NNT", "matrix-mul"},
	{ACT_KERNEL, "void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1>(cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1::Params)", "matrix-mul"},
	{ACT_KERNEL, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", "matrix-mul"},
	{ACT_KERNEL, "ampere_sgemm_128x64_tn", "matrix-mul"},
	{ACT_KERNEL, "cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x64_1x4x1_cga1x1x1_kernel0_0", "attention"},
	{ACT_KERNEL, "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128> >(Flash_fwd_params)", "attention"},
	{ACT_KERNEL, "fmha_cutlassF_f16_aligned_64x64_rf_sm80", "attention"},
	{ACT_KERNEL, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "communication"},
	{ACT_KERNEL, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", "communication"},
	{ACT_KERNEL, "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)", "elementwise"},
	{ACT_KERNEL, "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)", "elementwise"},
	{ACT_KERNEL, "triton_poi_fused_add_0", "elementwise"},
	{ACT_KERNEL, "copy_device_to_device", "memory"},
	{ACT_KERNEL, "void cudnn::fusion::compute_dot_do_o_specialized<true, 64>(void const*)", "other"},
	{ACT_MEMCPY, "Memcpy HtoD (Pageable -> Device)", "memory"},
	{ACT_MEMSET, "Memset (Device)", "memory"},
	/* XLA's names (experiments/h100x4 jax-4gpu, and XLA's collective and convolution instructions) */
	{ACT_KERNEL, "fusion_651", "elementwise"},
	{ACT_KERNEL, "loop_add_subtract_fusion_26", "elementwise"},
	{ACT_KERNEL, "input_transpose_fusion_14", "elementwise"},
	{ACT_KERNEL, "input_reduce_fusion_15", "elementwise"},
	{ACT_KERNEL, "wrapped_concatenate_1", "elementwise"},
	{ACT_KERNEL, "gemm_fusion_dot_326", "matrix-mul"},
	{ACT_KERNEL, "memcpy128", "memory"},
	{ACT_KERNEL, "all-reduce.53", "communication"},
	{ACT_KERNEL, "reduce-scatter-start.2", "communication"},
	{ACT_KERNEL, "all_gather_kernel", "communication"},
	{ACT_KERNEL, "collective-permute.1", "communication"},
	{ACT_KERNEL, "convolution.7", "matrix-mul"},
	{ACT_KERNEL, "loop_convert_fusion", "elementwise"}, /* "convert" is not a convolution */
	{ACT_KERNEL, "void cudnn::fusion::convert_dq_to_16bits<true>(void const*, void*)", "other"},
	{ACT_MEMCPY, "MemcpyD2H", "memory"},
	{ACT_MEMSET, "Memset 3", "memory"},
};

static const struct kcase payoungkhamdee_cases[] = {
	{ACT_KERNEL, "volta_sgemm_128x64_nn", "matrix-mul"},
	{ACT_KERNEL, "volta_SGEMM_128x64_nn", "other"}, /* 'gemm' is case-sensitive in the paper */
	{ACT_KERNEL, "ncclKernel_AllReduce_RING_LL_Sum_half(ncclWorkElem)", "memory_mgmt"},
	{ACT_KERNEL, "NCCLsomething", "memory_mgmt"},
	{ACT_KERNEL, "Copy_Device_To_Device", "memory_mgmt"},
	{ACT_KERNEL, "void at::native::vectorized_elementwise_kernel<4>(int)", "custom_ops"},
	{ACT_KERNEL, "void at::native::reduce_kernel<512, 1>(int)", "custom_ops"},
	{ACT_KERNEL, "void (anonymous namespace)::softmax_warp_forward<float>(float*)", "other"},
	{ACT_KERNEL, "_GLOBAL__N__54_tmpxft_cpp1_ii_kernel", "custom_ops"},
	{ACT_KERNEL, "vectorized_elementwise_kernel", "custom_ops"},
	{ACT_KERNEL, "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16>(Params)", "matrix-mul"},
	{ACT_KERNEL, "flash_fwd_kernel", "other"},
	{ACT_MEMCPY, "Memcpy DtoD (Device -> Device)", "memory_mgmt"},
	{ACT_MEMSET, "Memset (Device)", "memory_mgmt"},
};

static void test_rules(void)
{
	struct classify_rule rules[] = {
		{"mine", "^my_.*kernel$", 1, 0},
		{"loud", "LOUD", 0, 1},
	};
	struct classifier *c = classifier_rules(rules, 2);
	CHECK(c != NULL);
	CHECK_STR(classify(c, ACT_KERNEL, "my_fused_kernel"), "mine");
	CHECK_STR(classify(c, ACT_KERNEL, "not_my_fused_kernel"), "other");
	CHECK_STR(classify(c, ACT_KERNEL, "a loud one"), "loud");
	CHECK_STR(classify(c, ACT_MEMCPY, "Memcpy HtoD"), "other");
	const char *const *g;
	size_t n = classifier_groups(c, &g);
	CHECK_INT(n, 3);
	CHECK_STR(g[0], "mine");
	CHECK_STR(g[2], "other");
	classifier_free(c);
	struct classify_rule badre[] = {{"x", "a(", 1, 0}};
	diag_set_quiet(1);
	CHECK(classifier_rules(badre, 1) == NULL);
	CHECK(classifier_preset("nope") == NULL);
}

int main(void)
{
	run_cases("default", default_cases, sizeof(default_cases) / sizeof(default_cases[0]));
	run_cases("payoungkhamdee2021", payoungkhamdee_cases,
		  sizeof(payoungkhamdee_cases) / sizeof(payoungkhamdee_cases[0]));
	test_rules();
	return check_result("test_classify");
}
