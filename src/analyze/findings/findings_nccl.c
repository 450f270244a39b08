/*
 * findings_nccl.c: the nccl-path rule of findings.csv (issue 57 item 10).
 *
 * Definition. For a run of more than one GPU (collective_busbw.csv gpus):
 *   links_gb_per_s  NV# x the per-link NVLink bandwidth of the GPU
 *                   (system.csv "GPU model"), in GB/s per direction, NV#
 *                   the smallest bonded-link count over the pairs of GPUs
 *                   in interconnect.csv (nvidia-smi topo -m); only where
 *                   every pair of GPUs there is NV#, and the GPU is one of
 *                   the table in replay/replay_nccl_path.c (else: nothing said);
 *   measured        collective_busbw.csv busbw_gb_per_s of the run's
 *                   AllReduce, else of its collective type with the most
 *                   bytes (the first of equals): the nccl-tests bus
 *                   bandwidth, GB/s, which on a path of links with B GB/s
 *                   per direction is at most B;
 *   finding         measured < NCCL_PATH_SHARE x links_gb_per_s.
 * Where a run input is NCCL's log (NCCL_DEBUG=INFO: lines "NCCL INFO
 * Channel ... via T"), the finding says each transport T (its first two
 * '/'-separated parts: NET/Socket, SHM/direct, P2P/CUMEM) and the number
 * of channel lines naming it.
 *
 * The test is nccl_path_of (replay/replay_nccl_path.c, with the per-link NVLink
 * bandwidths), which the replay's nccl_path fix shares.
 */
#include "analyze/findings/findings_nccl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/findings/cells.h"
#include "analyze/findings/findings_tables.h"
#include "analyze/ranks/ranks_tables.h"
#include "analyze/replay/replay.h"
#include "util/buf.h"
#include "util/diag.h"

struct transport {
	char name[48];
	int channels;
};

/*
 * Counts the "NCCL INFO Channel ... via T" lines of path per transport
 * (at most n kinds); returns the number of kinds. Only [A-Za-z0-9_-] and
 * one '/' of T are kept: the text goes into the page.
 */
static size_t nccl_transports(const char *path, struct transport *t, size_t n)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		diag_warning(path, "cannot read it for NCCL's transports (nccl-path finding)");
		return 0;
	}
	char line[4096];
	size_t k = 0;
	while (fgets(line, sizeof(line), f)) {
		const char *v = strstr(line, " via ");
		if (!v || !strstr(line, "NCCL INFO Channel"))
			continue;
		v += 5;
		char name[48];
		size_t m = 0;
		int slashes = 0;
		for (; *v && m + 1 < sizeof(name); v++) {
			if (*v == '/' && ++slashes == 2)
				break;
			if (!(*v == '/' || *v == '_' || *v == '-' || (*v >= 'A' && *v <= 'Z') || (*v >= 'a' && *v <= 'z') ||
			      (*v >= '0' && *v <= '9')))
				break;
			name[m++] = *v;
		}
		name[m] = '\0';
		if (!m)
			continue;
		size_t i = 0;
		while (i < k && strcmp(t[i].name, name))
			i++;
		if (i == k) {
			if (k == n)
				continue;
			snprintf(t[k].name, sizeof(t[k].name), "%s", name);
			t[k++].channels = 0;
		}
		t[i].channels++;
	}
	fclose(f);
	return k;
}

/* Appends what the run's NCCL logs (run inputs) say of its transports; 0 when none says. */
static int transport_words(struct buf *b, const struct manifest *mf, const char *run)
{
	for (size_t r = 0; mf && r < mf->nruns; r++) {
		const struct manifest_run *mr = &mf->runs[r];
		if (strcmp(mr->id, run))
			continue;
		for (size_t i = 0; i < mr->ninputs; i++) {
			struct transport t[8];
			size_t k = nccl_transports(mr->inputs[i], t, 8);
			if (!k)
				continue;
			const char *base = strrchr(mr->inputs[i], '/');
			buf_printf(b, "; NCCL's log (%s) says its channels ran via ", base ? base + 1 : mr->inputs[i]);
			for (size_t j = 0; j < k; j++)
				buf_printf(b, "%s%s (%d channel line%s)", j ? ", " : "", t[j].name, t[j].channels,
					   t[j].channels == 1 ? "" : "s");
			return 1;
		}
	}
	return 0;
}

/* The stated saving of replay_fixes.csv's nccl_path row of run into b; NAN where none is stated. */
static double replay_words(const struct analysis_result *res, const char *run, struct buf *b)
{
	const struct table *t = result_table(res, "replay_fixes");
	int crun = col(t, RF_RUN), cm = col(t, RF_MECHANISM), cs = col(t, RF_SAVING_US_PER_STEP), cst = col(t, RF_STATED),
	    cstep = col(t, RF_STEP_US), cw = col(t, RF_WHERE);
	for (size_t r = 0; t && crun >= 0 && cm >= 0 && r < t->nrows; r++) {
		const char *rr = text(t, r, crun), *m = text(t, r, cm), *w = text(t, r, cw);
		if (!rr || strcmp(rr, run) || !m || strcmp(m, "nccl_path"))
			continue;
		double save = num(t, r, cs), step = num(t, r, cstep);
		buf_adds(b, ". Replayed with every rank's collective kernels at that bus bandwidth (");
		buf_adds(b, w ? w : "");
		buf_printf(b, "), the step would take %.1f ms less than its %.1f ms (%.0f %%; replay_fixes.csv nccl_path)",
			   save / 1000, step / 1000, 100 * save / step);
		if (!(num(t, r, cst) > 0)) {
			buf_adds(b, ", within the replay's noise: not stated as a saving");
			return NAN;
		}
		return save;
	}
	return NAN;
}

void findings_nccl(const struct analysis_result *res, const struct manifest *mf, const char *run,
		   nccl_finding_fn emit, void *ctx)
{
	struct nccl_path p;
	if (!nccl_path_of(res, run, &p))
		return;
	double measured = p.measured, allow = p.links;
	struct buf b, rule;
	buf_init(&b);
	buf_init(&rule);
	buf_printf(&b, "NCCL is not using NVLink: the %s bus bandwidth is %.3g GB/s, %.1f %% of the %.0f GB/s per "
		       "direction the GPUs' NVLinks allow (nvidia-smi topo -m: NV%d, %d links x %.0f GB/s on %s)",
		   p.coll ? p.coll : "collectives'", measured, 100 * measured / allow, allow, p.nv, p.nv, p.per_link, p.gpu);
	if (!transport_words(&b, mf, run))
		buf_adds(&b, "; no NCCL log among the run's inputs says which transport it took (NCCL_DEBUG=INFO "
			     "prints it per channel)");
	double saving = replay_words(res, run, &b);
	if (!(p.reach > 0))
		buf_printf(&b, ". Not priced: no run on %s measured what NCCL reaches over NVLink (none in this "
			       "experiment, none bundled), and another GPU's is no reference",
			   p.gpu);
	buf_adds(&b, ". Unset NCCL_P2P_DISABLE, NCCL_SHM_DISABLE and NCCL_NET (and NCCL_P2P_LEVEL below NVL), "
		     "or check that the GPUs the job sees are the ones nvidia-smi topo -m links");
	buf_printf(&rule, "nccl-path (collectives off NVLink): collective_busbw.csv busbw_gb_per_s below %.3g of the "
			  "GPUs' NVLink bandwidth (interconnect.csv NV# x per-link GB/s of system.csv's GPU model); "
			  "priced by replay_fixes.csv nccl_path",
		   NCCL_PATH_SHARE);
	emit(ctx, run, -1, measured / allow, saving, "table-collective_busbw", rule.data, b.data);
	buf_release(&b);
	buf_release(&rule);
}
