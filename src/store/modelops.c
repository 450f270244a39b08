/*
 * modelops.c: the host operators that the per-operator performance model
 * prices (analyze/models/op_roofline.c), kept at any depth with their
 * shapes in model_ops. cpu_ops keeps only the outermost operators
 * (sink.c), and the operators whose shapes give FLOPs and bytes are inner
 * ones: aten::mm under aten::linear or AddmmBackward0, the cuDNN or flash
 * attention under aten::scaled_dot_product_attention. Only the names below
 * and only calls with "Input Dims" (record_shapes=True) are kept, so a
 * trace without shapes adds no rows and one with them a few per layer.
 */
#include "store/store_int.h"

#include <stdlib.h>
#include <string.h>

/*
 * The operators kept, sorted for bsearch: TraceLens's perf-model map
 * (PerfModel/torch_op_mapping.py) for matrix products, attention,
 * convolution and normalisation, and the softmax, embedding, activation
 * and optimizer calls of the models perfstudy's examples train (the
 * fused Adam and AdamW, and the _foreach_ operators of the foreach ones,
 * whose lists of tensors take_dims writes "{T:E}").
 * aten::linear and aten::matmul are kept as the shapes a reader knows,
 * although the kernels are launched by the aten::mm or addmm inside.
 */
static const char *const model_op_names[] = {
	"aten::_efficient_attention_backward",
	"aten::_efficient_attention_forward",
	"aten::_foreach_add",
	"aten::_foreach_add_",
	"aten::_foreach_addcdiv_",
	"aten::_foreach_addcmul_",
	"aten::_foreach_div",
	"aten::_foreach_div_",
	"aten::_foreach_lerp_",
	"aten::_foreach_maximum_",
	"aten::_foreach_mul",
	"aten::_foreach_mul_",
	"aten::_foreach_neg",
	"aten::_foreach_neg_",
	"aten::_foreach_reciprocal_",
	"aten::_foreach_sqrt",
	"aten::_foreach_sqrt_",
	"aten::_foreach_sub",
	"aten::_foreach_sub_",
	"aten::_fused_adam_",
	"aten::_fused_adamw_",
	"aten::_fused_rms_norm",
	"aten::_fused_rms_norm_backward",
	"aten::_log_softmax",
	"aten::_log_softmax_backward_data",
	"aten::_scaled_dot_product_cudnn_attention",
	"aten::_scaled_dot_product_cudnn_attention_backward",
	"aten::_scaled_dot_product_efficient_attention",
	"aten::_scaled_dot_product_efficient_attention_backward",
	"aten::_scaled_dot_product_flash_attention",
	"aten::_scaled_dot_product_flash_attention_backward",
	"aten::_scaled_mm",
	"aten::_softmax",
	"aten::_softmax_backward_data",
	"aten::addmm",
	"aten::baddbmm",
	"aten::bmm",
	"aten::convolution",
	"aten::convolution_backward",
	"aten::embedding",
	"aten::embedding_dense_backward",
	"aten::gelu",
	"aten::gelu_backward",
	"aten::linear",
	"aten::matmul",
	"aten::mm",
	"aten::native_batch_norm",
	"aten::native_batch_norm_backward",
	"aten::native_layer_norm",
	"aten::native_layer_norm_backward",
	"aten::silu",
	"aten::silu_backward",
	"flash_attn::_flash_attn_backward",
	"flash_attn::_flash_attn_forward",
};

static int cmp_name(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

int store_is_model_op(const char *name)
{
	return bsearch(name, model_op_names, sizeof(model_op_names) / sizeof(model_op_names[0]),
		       sizeof(model_op_names[0]), cmp_name) != NULL;
}

int store_model_op_add(struct store *s, int64_t trace_id, const struct pending_op *o)
{
	return op_row_add(s, &s->mops, trace_id, o);
}
