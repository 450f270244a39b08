/*
 * test_replay_layers.c: a pipeline stage's layers found in its kernels and
 * the split by whole layers (replay_layers.c), on models and stages
 * written here, worked out by hand (times in ns).
 *
 * found: one step of a stage with m = 2 micro-batches, its compute
 * kernels by name id: emb (9, 100) then 3 x (qkv (1, 150), mlp (2, 50)),
 * the same for the second micro-batch, then bwd (5, 1300) twice; a
 * communication kernel (7) between the forwards. Total 4000. The block
 * (qkv, mlp) runs 3 times in a row once in each micro-batch, covering
 * 1200 of 4000: L = 3, block 2; a layer per step 3 x 1200 / 4000 of a
 * compute of 4000, / 3 = 1200; outside them 4000 - 3600 = 400. With m =
 * 1 the block's two runs are not one per micro-batch; bwd's run of 2
 * (2600 of 4000) would be 2 layers of 3 x 2600 / 2 = 3900, more than the
 * stage computes, as would the micro-batches' block (emb and 3 layers,
 * 1400 twice: 3 x 1400 > 4000): no layer.
 *
 * one layer: emb, qkv, mlp, emb, qkv, mlp, bwd, bwd with m = 2: the
 * micro-batches' block (emb, qkv, mlp) runs twice in a row once, bwd
 * twice once: nothing repeats in each micro-batch, no layer.
 *
 * split: 3 stages of L = 2, 3, 3 layers, a layer costing c = 10, 10, 20
 * and a = 5, 0, 25 outside them: as run 25, 30, 85. Stage 2 holds one
 * layer at best (45; two: 65); the first 7 layers over stages 0 and 1:
 * (3, 4) 35 / 40, (4, 3) 45 / 30, (2, 5) 25 / 50: (3, 4), slowest 40;
 * the split 3+4+1 at 45. Two stages of 3 and 5 layers at c = 1200, a =
 * 400 and 2000 (t_replay_layers.sh): 5+3 at 6400.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/replay/replay_int.h"
#include "check.h"

/* A one-step model of the kernels nm (durations du, communication where nm is 7). */
static void stage(struct rp_model *m, struct rp_call *calls, struct rp_op *ops, struct rp_step *st, const int64_t *nm,
		  const int64_t *du, size_t n)
{
	int64_t t = 0;
	for (size_t i = 0; i < n; i++) {
		calls[i] = (struct rp_call){.start = 10 * (int64_t)i, .dur = 10, .cost = 10, .wait_op = -1,
					    .op = (int64_t)i, .tid = 1, .step = 0};
		ops[i] = (struct rp_op){.start = t, .dur = du[i], .call = (int64_t)i, .prev = (int64_t)i - 1,
					.dep = -1, .name_id = nm[i], .kind = RP_OP_KERNEL, .comm = nm[i] == 7};
		t += du[i];
	}
	*st = (struct rp_step){.number = 1, .start = 0, .end = t, .first_op = 0};
	*m = (struct rp_model){calls, n, ops, n, st, 1, RP_QUEUE_DEFAULT, 0, 0};
}

static void test_found(void)
{
	const int64_t nm[] = {9, 1, 2, 1, 2, 1, 2, 7, 9, 1, 2, 1, 2, 1, 2, 5, 5};
	const int64_t du[] = {100, 150, 50, 150, 50, 150, 50, 500, 100, 150, 50, 150, 50, 150, 50, 1300, 1300};
	struct rp_call calls[17];
	struct rp_op ops[17];
	struct rp_step st;
	struct rp_model m;
	stage(&m, calls, ops, &st, nm, du, 17);
	struct rp_layers ly;
	CHECK_INT(rp_layers_of(&m, 2, 4000, &ly), 1);
	CHECK_INT(ly.layers, 3);
	CHECK_INT(ly.block, 2);
	CHECK(fabs(ly.per_layer - 1200) < 1e-6);
	CHECK(fabs(ly.fixed - 400) < 1e-6);
	CHECK_INT(rp_layers_of(&m, 1, 4000, &ly), 0);
	CHECK_STR(ly.why, "its layers' forwards x 3 exceed its compute");
}

static void test_one_layer(void)
{
	const int64_t nm[] = {9, 1, 2, 9, 1, 2, 5, 5};
	const int64_t du[] = {100, 150, 50, 100, 150, 50, 500, 500};
	struct rp_call calls[8];
	struct rp_op ops[8];
	struct rp_step st;
	struct rp_model m;
	stage(&m, calls, ops, &st, nm, du, 8);
	struct rp_layers ly;
	CHECK_INT(rp_layers_of(&m, 2, 1600, &ly), 0);
	CHECK(ly.why != NULL);
}

static void test_split(void)
{
	const int64_t L[] = {2, 3, 3};
	const double c[] = {10, 10, 20}, a[] = {5, 0, 25};
	int64_t s[3];
	CHECK(fabs(rp_layer_split(3, L, c, a, s) - 45) < 1e-9);
	CHECK_INT(s[0], 3);
	CHECK_INT(s[1], 4);
	CHECK_INT(s[2], 1);
	const int64_t L2[] = {3, 5};
	const double c2[] = {1200, 1200}, a2[] = {400, 2000};
	CHECK(fabs(rp_layer_split(2, L2, c2, a2, s) - 6400) < 1e-9);
	CHECK_INT(s[0], 5);
	CHECK_INT(s[1], 3);
	char *w = rp_layer_move_words(2, L2, s);
	CHECK_STR(w, "move 2 layers from stage 1 to stage 0: 3+5 -> 5+3");
	free(w);
	/* a split already best moves nothing */
	const int64_t L3[] = {4, 4};
	const double c3[] = {10, 10}, a3[] = {0, 5};
	CHECK(fabs(rp_layer_split(2, L3, c3, a3, s) - 45) < 1e-9);
	CHECK_INT(s[0], 4);
	CHECK_INT(s[1], 4);
}

int main(void)
{
	test_found();
	test_one_layer();
	test_split();
	return check_result("test_replay_layers");
}
