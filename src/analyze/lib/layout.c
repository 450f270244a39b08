/*
 * layout.c: a run's ZeRO stage, strategy as the figures name it, tensor
 * parallel degree and replica (layout.h), from the manifest's run.
 */
#include "analyze/lib/layout.h"

#include <stdio.h>
#include <string.h>

/* The ZeRO stage a strategy's name says (zero1..3, fsdp = 3), else 0. */
static int zero_of_name(const char *s)
{
	if (strstr(s, "zero1") || strstr(s, "zero-1") || strstr(s, "ZeRO-1"))
		return 1;
	if (strstr(s, "zero2") || strstr(s, "zero-2") || strstr(s, "ZeRO-2"))
		return 2;
	if (strstr(s, "zero3") || strstr(s, "zero-3") || strstr(s, "ZeRO-3") || strstr(s, "fsdp"))
		return 3;
	return 0;
}

/* ZeRO stage: the manifest's 'zero', else read from the strategy's name, else 0. */
int layout_zero_stage(const struct manifest_run *r)
{
	if (r->zero >= 0)
		return r->zero;
	return zero_of_name(r->strategy ? r->strategy : "");
}

void layout_strategy_shown(const struct manifest_run *r, const char *strategy, char *buf, size_t n)
{
	int zero = r ? layout_zero_stage(r) : 0;
	const char *s = strategy ? strategy : r && r->strategy ? r->strategy : "";
	if (!zero && (!r || r->zero < 0))
		zero = zero_of_name(s); /* a strategy the manifest does not give: inferred (run_layout.c) */
	if (zero > 0)
		snprintf(buf, n, "ZeRO-%d", zero);
	else if (!strcmp(s, "ddp"))
		snprintf(buf, n, "DDP");
	else if (!strcmp(s, "tp"))
		snprintf(buf, n, "tensor parallel");
	else if (!strcmp(s, "pp"))
		snprintf(buf, n, "pipeline parallel");
	else
		snprintf(buf, n, "%s", s);
}

int layout_tp(const struct manifest_run *r)
{
	return r->tensor_parallel > 0 ? r->tensor_parallel : 1;
}

int layout_replica_ranks(const struct manifest_run *r)
{
	return layout_tp(r) * (r->pipeline_parallel > 0 ? r->pipeline_parallel : 1);
}
