/*
 * replay_calibrate.c: the host factor that makes the replay reproduce the
 * training log (replay.h), in one place for the replay analysis
 * (replay_calibration.csv) and `perfstudy whatif`, which replays a run
 * under the same factor.
 *
 * The replayed mean step is non-decreasing in the factor f, so the range
 * of f whose replay reproduces the log (within RP_F_TOL) is found by
 * bisection in [RP_F_MIN, 1] (the profiler does not speed the host up),
 * and f is its top: the slowest host the log allows, the least slowdown by
 * the profiler. Where the run is host-bound the range is narrow (the log
 * pins f). Where it is GPU-bound the step does not depend on the host's
 * speed, so the log tells only that the host is no slower than the top of
 * the range (the largest f that keeps the replay at the GPU's floor); any
 * f below it fits the log as well. No prior picks one inside: at the top,
 * a fix's saving is the least the log allows (a faster host can only
 * shorten the step without the cause, the step with it being the floor),
 * and replay.c prices each fix at the range's bottom too (the most it
 * allows).
 */
#include <math.h>

#include "analyze/replay/replay.h"

void rp_subject_replay(struct rp_subject *s, size_t r, const struct rp_change *cr, int64_t *steps)
{
	for (size_t q = 0; q < s->n; q++)
		s->ch[q] = (struct rp_change){.host_factor = s->f[q]};
	if (cr)
		s->ch[r] = *cr;
	if (s->joint)
		rp_joint_replay(s->joint, s->ch, steps);
	else
		rp_replay(s->m[0], &s->ch[0], steps);
}

double rp_subject_mean(struct rp_subject *s, double f, int64_t *buf)
{
	for (size_t q = 0; q < s->n; q++)
		s->ch[q] = (struct rp_change){.host_factor = f};
	if (s->joint)
		rp_joint_replay(s->joint, s->ch, buf);
	else
		rp_replay(s->m[0], &s->ch[0], buf);
	double sum = 0;
	size_t n = 0;
	for (size_t k = 0; k < s->m[0]->nsteps; k++)
		if (buf[k] >= 0) {
			sum += (double)buf[k];
			n++;
		}
	return n ? sum / (double)n : NAN;
}

double rp_factor_lo(double f, double lo, double hi)
{
	if (lo < 0)
		return RP_F_MIN;
	return hi > 0 && lo < f ? lo : f;
}

double rp_calibrate(struct rp_subject *m, double target, int64_t *buf, double *lo, double *hi)
{
	double tol = target * RP_F_TOL;
	/* the smallest f whose replay reaches target - tol, and the largest that stays under target + tol */
	double a = RP_F_MIN, b = 1.0;
	double ra = rp_subject_mean(m, a, buf);
	double rb = rp_subject_mean(m, b, buf);
	*lo = *hi = 0;
	if (rb <= target - tol)
		return 1.0;
	if (ra >= target + tol) {
		/*
		 * Even the fastest host gives a longer step than the log (the GPU's
		 * own time under the profiler): the log cannot pin f. The largest f
		 * whose replay stays within RP_F_TOL of that floor: the slowest
		 * host that keeps it.
		 */
		double x = a, y = b, floor_ = ra * (1 + RP_F_TOL);
		if (rb <= floor_)
			x = b;
		else
			for (int i = 0; i < 30; i++) {
				double mid = (x + y) / 2;
				if (rp_subject_mean(m, mid, buf) <= floor_)
					x = mid;
				else
					y = mid;
			}
		*lo = -x; /* negative: the range of a floor, not of the log */
		return x;
	}
	double x = a, y = b;
	if (ra < target - tol) {
		for (int i = 0; i < 30; i++) {
			double mid = (x + y) / 2;
			if (rp_subject_mean(m, mid, buf) >= target - tol)
				y = mid;
			else
				x = mid;
		}
		*lo = y;
	} else {
		*lo = a;
	}
	x = *lo;
	y = b;
	if (rb > target + tol) {
		for (int i = 0; i < 30; i++) {
			double mid = (x + y) / 2;
			if (rp_subject_mean(m, mid, buf) <= target + tol)
				x = mid;
			else
				y = mid;
		}
		*hi = x;
	} else {
		*hi = b;
	}
	return *hi;
}
