/*
 * test_replay_joint.c: ranks replayed together (replay_joint.c), on
 * models written here whose replayed steps were worked out by hand from
 * replay_sim.c's rules (every time in ns):
 *
 * chain: two ranks, one stream each, one host thread launching A, C1, B,
 * C2 (C1 and C2 collectives) at 0-10, 10-20, 20-30, 30-40; each activity
 * is ready when its launch returns. A takes 100 on rank 0 and 300 on rank
 * 1; B 300 on rank 0 and 100 on rank 1; each collective's wait-free
 * transfer, from the measured times, is 50. C1: rank 0 starts 110, rank 1
 * 310 (the last), both end 360. B: rank 0 360-660, rank 1 360-460. C2:
 * rank 0 starts 660 (the last), both end 710. The job's step: from the
 * earliest first start (10) to the latest end (710), 700. With rank 1's A
 * at half (150, 10-160): C1 joins at 160, ends 210; B 210-510 and
 * 210-310; C2 joins at 510, ends 560: 550. The last rank changes from C1
 * to C2, so replaying the ranks round after round takes two rounds (C2's
 * join moves only once C1's is known); side by side takes one pass.
 *
 * crossed: rank 1 launches its second collective first (two streams), so
 * neither rank can go past its first launch alone until the other has
 * reached it: the side-by-side replay falls back to rounds. Rank 0's c0
 * starts 10 and c1 20; rank 1's c1 10 and c0 20; each collective joins at
 * 20 and transfers 30: every end is 50, the step from 10 to 50, 40.
 *
 * peers: two pipeline stages in 1F1B's order, sends on stream 1 and
 * receives on stream 2 of each rank, every send and receive with its
 * peer recorded. Rank 0 launches sF1, sF2 at 0-10, 10-20 and, after 50
 * of host time, rB1 at 70-80; rank 1 rF1, sB1, rF2 at 0-10, 10-20,
 * 20-30. Measured: sF1 and rF1 10-60; sF2 and rF2 60-110 (each after its
 * stream's previous one); sB1 20-130 and rB1 80-130. In start order rank
 * 0 runs sF1, sF2, rB1 and rank 1 rF1, sB1, rF2, so a join by order would
 * pair sF2 with sB1 and rB1 with rF2. By peer: (sF1, rF1) joins at 10,
 * (sF2, rF2) at 60, (sB1, rB1) at 80, each transferring 50: the step from
 * 10 to 130, 120. With rank 0's 50 of host time cut, rB1 launches at
 * 20-30, starts 30, and (sB1, rB1) ends at 80: the step ends with sF2
 * and rF2 at 110, 100. (By order it would stay 120: rB1 would wait for
 * rF2's start at 60, and sF2's pair with sB1 would take 70 from 60.)
 */
#include <stdlib.h>

#include "analyze/replay/replay.h"
#include "check.h"

static void call(struct rp_call *c, int64_t start, int64_t op)
{
	*c = (struct rp_call){.start = start, .dur = 10, .gap = 0, .cost = 10, .wait_op = -1, .op = op, .tid = 1};
}

static void op(struct rp_op *o, int64_t start, int64_t dur, int64_t call, int64_t prev, int comm)
{
	*o = (struct rp_op){.start = start, .dur = dur, .call = call, .prev = prev, .dep = -1, .comm = comm};
}

/* A rank of chain: A's and B's durations a and b, C1 and C2 measured as they waited (ending 360 and 710). */
static void chain_rank(struct rp_model *m, struct rp_call *calls, struct rp_op *ops, struct rp_step *st, int64_t a,
		       int64_t b)
{
	for (int i = 0; i < 4; i++)
		call(&calls[i], 10 * i, i);
	op(&ops[0], 10, a, 0, -1, 0);
	op(&ops[1], 10 + a, 360 - (10 + a), 1, 0, 1);
	op(&ops[2], 360, b, 2, 1, 0);
	op(&ops[3], 360 + b, 710 - (360 + b), 3, 2, 1);
	*st = (struct rp_step){.number = 1, .start = 0, .end = 40, .first_op = 0};
	*m = (struct rp_model){calls, 4, ops, 4, st, 1, RP_QUEUE_DEFAULT, 0, 0};
}

static void test_chain(void)
{
	struct rp_call c0[4], c1[4];
	struct rp_op o0[4], o1[4];
	struct rp_step s0, s1;
	struct rp_model m[2];
	chain_rank(&m[0], c0, o0, &s0, 100, 300);
	chain_rank(&m[1], c1, o1, &s1, 300, 100);
	const struct rp_model *mp[2] = {&m[0], &m[1]};
	struct rp_joint *j = rp_joint_new(mp, 2);
	CHECK(j != NULL);
	if (!j)
		return;
	struct rp_change ch[2] = {{.host_factor = 1}, {.host_factor = 1}};
	int64_t step = -1;
	CHECK_INT(rp_joint_replay(j, ch, &step), 1); /* one pass, not a round per collective */
	CHECK_INT(step, 700);
	double scale[4];
	for (int i = 0; i < 4; i++)
		scale[i] = 1;
	scale[0] = 0.5;
	ch[1].op_scale = scale;
	CHECK(rp_joint_replay(j, ch, &step) >= 0);
	CHECK_INT(step, 550);
	/* the unchanged replay again: nothing left over from the changed one */
	ch[1].op_scale = NULL;
	CHECK(rp_joint_replay(j, ch, &step) >= 0);
	CHECK_INT(step, 700);
	rp_joint_free(j);
}

static void test_crossed(void)
{
	struct rp_call c0[2], c1[2];
	struct rp_op o0[2], o1[2];
	struct rp_step s0 = {.number = 1, .start = 0, .end = 20, .first_op = 0}, s1 = s0;
	/* rank 0: c0 then c1, each on its own stream, launched in that order */
	call(&c0[0], 0, 0);
	call(&c0[1], 10, 1);
	op(&o0[0], 10, 40, 0, -1, 1);
	op(&o0[1], 20, 30, 1, -1, 1);
	/* rank 1: c1 (activity 1) launched first, c0 (activity 0) second */
	call(&c1[0], 0, 1);
	call(&c1[1], 10, 0);
	op(&o1[0], 20, 30, 1, -1, 1);
	op(&o1[1], 10, 40, 0, -1, 1);
	struct rp_model m[2] = {{c0, 2, o0, 2, &s0, 1, RP_QUEUE_DEFAULT, 0, 0}, {c1, 2, o1, 2, &s1, 1, RP_QUEUE_DEFAULT, 0, 1}};
	const struct rp_model *mp[2] = {&m[0], &m[1]};
	struct rp_joint *j = rp_joint_new(mp, 2);
	CHECK(j != NULL);
	if (!j)
		return;
	struct rp_change ch[2] = {{.host_factor = 1}, {.host_factor = 1}};
	int64_t step = -1;
	CHECK(rp_joint_replay(j, ch, &step) >= 0);
	CHECK_INT(step, 40);
	rp_joint_free(j);
}

/* An activity of peers on stream st: a send (p2p RP_P2P_SEND) or recv to or from peer. */
static void p2p_op(struct rp_op *o, int64_t start, int64_t dur, int64_t call, int64_t prev, int p2p, int64_t peer)
{
	op(o, start, dur, call, prev, 1);
	o->p2p = p2p;
	o->peer = peer;
}

static void test_peers(void)
{
	struct rp_call c0[3], c1[3];
	struct rp_op o0[3], o1[3];
	struct rp_step s0 = {.number = 1, .start = 0, .end = 80, .first_op = 0}, s1 = s0;
	s1.end = 30;
	/* rank 0: sF1 (activity 0), sF2 (1), rB1 (2) after 50 of host time */
	call(&c0[0], 0, 0);
	call(&c0[1], 10, 1);
	call(&c0[2], 70, 2);
	c0[2].gap = 50;
	p2p_op(&o0[0], 10, 50, 0, -1, RP_P2P_SEND, 1);
	p2p_op(&o0[1], 60, 50, 1, 0, RP_P2P_SEND, 1);
	p2p_op(&o0[2], 80, 50, 2, -1, RP_P2P_RECV, 1);
	/* rank 1: rF1 (activity 0), sB1 (1), rF2 (2), in start order */
	call(&c1[0], 0, 0);
	call(&c1[1], 10, 1);
	call(&c1[2], 20, 2);
	p2p_op(&o1[0], 10, 50, 0, -1, RP_P2P_RECV, 0);
	p2p_op(&o1[1], 20, 110, 1, -1, RP_P2P_SEND, 0);
	p2p_op(&o1[2], 60, 50, 2, 0, RP_P2P_RECV, 0);
	struct rp_model m[2] = {{c0, 3, o0, 3, &s0, 1, RP_QUEUE_DEFAULT, 0, 0}, {c1, 3, o1, 3, &s1, 1, RP_QUEUE_DEFAULT, 0, 1}};
	const struct rp_model *mp[2] = {&m[0], &m[1]};
	struct rp_joint *j = rp_joint_new(mp, 2);
	CHECK(j != NULL);
	if (!j)
		return;
	struct rp_change ch[2] = {{.host_factor = 1}, {.host_factor = 1}};
	int64_t step = -1;
	CHECK(rp_joint_replay(j, ch, &step) >= 0);
	CHECK_INT(step, 120);
	int64_t cut[3] = {0, 0, 50};
	ch[0].gap_cut = cut;
	CHECK(rp_joint_replay(j, ch, &step) >= 0);
	CHECK_INT(step, 100);
	/* the peers outside the run: joined by order, as without them */
	o1[0].peer = 5;
	rp_joint_free(j);
	j = rp_joint_new(mp, 2);
	CHECK(j != NULL);
	if (!j)
		return;
	CHECK(rp_joint_replay(j, ch, &step) >= 0);
	CHECK_INT(step, 120);
	rp_joint_free(j);
}

int main(void)
{
	test_chain();
	test_crossed();
	test_peers();
	return check_result("test_replay_joint");
}
