/*
 * hardware.c: the manifest's 'hardware' (nvidia-smi and topology files,
 * peak TFLOP/s, the peaks by dtype of op_roofline.csv, the descriptive keys shown in system.csv) and 'software'
 * (package versions), and manifest_hardware_number() to look a number up.
 */
#include "manifest/manifest_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/fs.h"
#include "util/xalloc.h"

/* A hardware file (nvidia_smi, topology): a path that exists and is not a directory, into *out. */
static void get_hardware_file(struct ctx *c, const struct ynode *k, const struct ynode *v, const char *what,
			      char **out)
{
	char *p = NULL;
	if (mf_get_string(c, k, v, &p) <= 0)
		return;
	char *r = mf_resolve(c, p);
	struct stat st;
	if (p[0] != '/' && mf_climbs_out(p)) {
		mf_err_at(c, v, "'%s' is outside the manifest's directory (write an absolute path to read a file elsewhere)",
		       p);
		free(r);
	} else if (stat(r, &st)) {
		char why[4200];
		if (fs_broken_link(r, why, sizeof(why)))
			mf_err_at(c, v, "'%s' is %s", p, why);
		else if (errno == ENOENT || errno == ENOTDIR)
			mf_err_at(c, v, "'%s' does not exist", p);
		else
			mf_syserr_at(c, v, "cannot access '%s': %s", p, strerror(errno));
		free(r);
	} else if (S_ISDIR(st.st_mode)) {
		mf_err_at(c, v, "'%s' is a directory, expected %s", p, what);
		free(r);
	} else {
		free(*out);
		*out = r;
	}
	free(p);
}

/*
 * hardware's descriptive keys, shown in system.csv when no input says the
 * same: 's' free text, 'i' an integer > 0, 'n' a number > 0.
 */
static const struct {
	const char *key;
	char type;
} hw_desc[] = {
	{"system", 's'}, {"gpu", 's'}, {"gpus", 'i'}, {"gpu_memory_gb", 'n'}, {"gpu_memory_bandwidth_gbs", 'n'},
	{"gpus_per_node", 'i'}, {"nodes", 'i'}, {"nvlinks_per_gpu", 's'}, {"cpu", 's'}, {"cpu_sockets", 'i'},
	{"cpu_cores", 'i'}, {"host_memory_gb", 'n'}, {"storage", 's'}, {"nic", 's'}, {"nics_per_node", 'i'},
	{"nic_gbps", 'n'}, {"pinned_copy_gbs", 'n'}, {"pageable_copy_gbs", 'n'}, {"p2p_gbs", 'n'},
};
#define NHW_DESC (sizeof(hw_desc) / sizeof(hw_desc[0]))

/* hardware.peaks: bf16_tflops, fp16_tflops, tf32_tflops, fp32_tflops (dense) and memory_gbs, each > 0. */
static void get_peaks(struct ctx *c, const struct ynode *key, const struct ynode *map)
{
	static const char *const keys[] = {"bf16_tflops", "fp16_tflops", "tf32_tflops", "fp32_tflops", "memory_gbs"};
	const struct ynode *seen[5] = {0};
	struct manifest *m = c->m;
	double *out[] = {&m->hardware.peaks.bf16, &m->hardware.peaks.fp16, &m->hardware.peaks.tf32,
			 &m->hardware.peaks.fp32, &m->hardware.peaks.memory_gbs};
	if (mf_want_mapping(c, key, map) <= 0)
		return;
	for (size_t i = 0; i < map->n; i += 2) {
		int f = mf_field_index(c, map, i, keys, 5, seen);
		if (f >= 0)
			mf_get_posnum(c, map->items[i], map->items[i + 1], out[f]);
	}
}

void mf_get_hardware(struct ctx *c, const struct ynode *key, const struct ynode *map)
{
	enum { NFILE_KEYS = 5, NKEYS = NFILE_KEYS + NHW_DESC };
	const char *keys[NKEYS] = {"nvidia_smi", "interconnect", "peak_tflops", "topology", "peaks"};
	for (size_t i = 0; i < NHW_DESC; i++)
		keys[NFILE_KEYS + i] = hw_desc[i].key;
	const struct ynode *seen[NKEYS] = {0};
	struct manifest *m = c->m;
	if (mf_want_mapping(c, key, map) <= 0)
		return;
	m->hardware.facts = xcalloc(map->n / 2 + 1, sizeof(*m->hardware.facts));
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		int f = mf_field_index(c, map, i, keys, NKEYS, seen);
		int64_t n;
		double x;
		switch (f) {
		case 0:
			get_hardware_file(c, k, v, "an nvidia-smi -q -x file", &m->hardware.nvidia_smi);
			break;
		case 3:
			get_hardware_file(c, k, v, "the output of nvidia-smi topo -m", &m->hardware.topology);
			break;
		case 1:
			mf_get_string(c, k, v, &m->hardware.interconnect);
			break;
		case 2:
			mf_get_posnum(c, k, v, &m->hardware.peak_tflops);
			break;
		case 4:
			get_peaks(c, k, v);
			break;
		default: {
			if (f < NFILE_KEYS)
				break;
			char type = hw_desc[f - NFILE_KEYS].type;
			char *text = NULL;
			int ok = type == 'i'   ? mf_get_int(c, k, v, 1, INT_MAX, &n)
				 : type == 'n' ? mf_get_posnum(c, k, v, &x)
					       : mf_get_string(c, k, v, &text);
			free(text);
			if (ok > 0 && v->value[0])
				m->hardware.facts[m->hardware.nfacts++] =
					(struct manifest_fact){xstrdup(k->value), xstrdup(v->value)};
			else if (ok > 0)
				mf_err_at(c, v, "'%s' must not be empty", k->value);
			break;
		}
		}
	}
}

/* 'software': package name -> version (a string or a number as written), in the file's order. */
void mf_get_software(struct ctx *c, const struct ynode *key, const struct ynode *map)
{
	struct manifest *m = c->m;
	if (mf_want_mapping(c, key, map) <= 0)
		return;
	m->software = xcalloc(map->n / 2 + 1, sizeof(*m->software));
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		if (k->bad)
			continue;
		if (k->kind != Y_SCALAR || k->null || !k->value[0]) {
			mf_err_got(c, k, "a package name in 'software'");
			continue;
		}
		const struct ynode *first = mf_earlier_key(map, i);
		if (first)
			mf_err_at(c, k, "duplicate package '%s' in 'software' (first at %d:%d)", k->value, first->line,
				  first->col);
		if (first || v->bad)
			continue;
		if (v->kind != Y_SCALAR || v->null || !v->value[0]) {
			mf_err_type(c, k, v, "a version");
			continue;
		}
		m->software[m->nsoftware++] = (struct manifest_fact){xstrdup(k->value), xstrdup(v->value)};
	}
}

double manifest_hardware_number(const struct manifest *m, const char *name)
{
	for (size_t i = 0; i < m->hardware.nfacts; i++)
		if (!strcmp(m->hardware.facts[i].key, name))
			return strtod(m->hardware.facts[i].value, NULL);
	return 0;
}
