/*
 * colours.c: the names the analyses give their series and bar keys that
 * keep one colour in every figure and study, handed to the renderer
 * through chart_style's colours (see chart.h). An analysis that adds a
 * part, a kind or a phase with a fixed colour adds it here; chart/ knows
 * no analysis's names.
 *
 * The classification's own groups (chart_style's groups) come first. The
 * same thing has the same colour: "communication" (a kernel group, a part
 * of a step, a part of dispatch), "memset" (a part of a step, a copy kind);
 * things of one kind never share one within a figure. Copy kinds keep
 * theirs whichever others a study has.
 */
#include "analyze/analysis.h"
#include "chart/chart.h"

static const struct chart_colour colours[] = {
	/* the default classification's groups, in its order (classify.c) */
	{"matrix-mul", 0}, {"attention", 1}, {"communication", 2}, {"memory", 3}, {"elementwise", 4},
	{"other", 5},
	/* paper 002's kernel types (dispatch_ops.c's dispatch_ops.csv) beside them */
	{"GEMM", 0}, {"CatArrayBatchedCopy", 6},
	/* the parts of a step (step_breakdown.csv), of dispatch (dispatch.c) and of the critical path (critical_path.c) */
	{"compute", 0}, {"memcpy", 1}, {"memset", 3}, {"cuda_runtime", 4}, {"data_loading", 6},
	{"cpu_other", 7}, {"intra-op dispatch", 1}, {"inter-op dispatch", 4},
	{"communication transfer", 2}, {"host and launch", 4}, {"waiting for another rank", 6},
	/* the partition of a rank's step (crossrank.c's rank_waits) */
	{"compute and copies", 0}, {"exposed communication", 2}, {"exposed wait for another rank", 6},
	/* copy kinds (memops.c's memops.csv) */
	{"HtoD", 1}, {"DtoH", 4}, {"DtoD", 6}, {"PtoP", 2}, {"other copy", 5},
	/* HTA's temporal breakdown (temporal.c): non-compute kernels are communication and memory */
	{"non-compute", 2}, {"idle", CHART_COLOUR_IDLE}, {"GPU idle", CHART_COLOUR_IDLE},
	/*
	 * the step timeline's host row outside the phases (step_timeline.c):
	 * black, which the timeline keeps for its path, so that each takes the
	 * first colour left after the phases' (and the phases keep theirs);
	 * not the idle grey, which its hatched waits look like
	 */
	{"host operators outside the phases", 7}, {"host time outside operators", 7},
	/*
	 * the default phases (phases.c): one colour each in every figure, the
	 * step timeline's (the GPU's parts beside them there: compute 0, memcpy
	 * 1, communication 2, memset 3, the path black) and the memory
	 * timeline's bands alike; four phases and three palette colours left,
	 * so forward takes the first colour past the palette
	 */
	{"get_train_batch", 6}, {"forward", CHART_COLOUR_EXTRA}, {"backward", 4}, {"optimizer_step", 5},
};

const struct chart_colour *analysis_colours(size_t *n)
{
	*n = sizeof(colours) / sizeof(colours[0]);
	return colours;
}
