/*
 * study/jaxdir.c: the files of a JAX profile directory given as a run.
 *
 * jax.profiler.trace(DIR) writes DIR/plugins/profile/<session>/ with, for
 * each host, <host>.xplane.pb (the XSpace protobuf) and <host>.trace.json.gz
 * (the same events as trace JSON), and with create_perfetto_trace=True one
 * perfetto_trace.json.gz (the same events again). Reading them all would
 * count every event two or three times, so one file per host is taken:
 * its .xplane.pb (or .xplane.pb.gz) when perfstudy has an XSpace reader,
 * else its .trace.json(.gz), else perfetto_trace.json(.gz). The directory
 * given may be DIR, DIR/plugins/profile or a session; a DIR with several
 * sessions is refused (each is a separate recording).
 */
#include "study/plan.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest.h"
#include "util/diag.h"
#include "util/fs.h"
#include "util/xalloc.h"

static int ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted names in dir (no dot files); NULL when it cannot be opened. */
static char **names_in(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char **v = xcalloc(1, sizeof(*v));
	size_t cap = 1, k = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		v = xgrow(v, &cap, k + 1, sizeof(*v));
		v[k++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (k) /* qsort's array may not be NULL, even when empty */
		qsort(v, k, sizeof(*v), cmp_str);
	*n = k;
	return v;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int have_xplane_reader(void)
{
	size_t n;
	const struct reader *const *r = ingest_readers(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(r[i]->name, "xplane"))
			return 1;
	return 0;
}

/* The host part of name when it ends in suffix ("vm.trace.json.gz" -> "vm"), else NULL; caller frees. */
static char *host_of(const char *name, const char *suffix)
{
	if (!ends_with(name, suffix) || strlen(name) == strlen(suffix))
		return NULL;
	return xstrndup(name, strlen(name) - strlen(suffix));
}

/* One candidate file of a session: its host, its kind (0 XSpace, 1 trace JSON) and its place in the sorted names. */
struct cand {
	char *host;
	int kind;
	size_t idx;
};

/* By kind, then name: the order of reading (every XSpace, then the trace JSON of hosts without one). */
static int cmp_cand_order(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* By host, then kind, then name: the first of each host is the file to read. */
static int cmp_cand_host(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c = strcmp(x->host, y->host);
	return c ? c : cmp_cand_order(a, b);
}

/* Frees the files *out[0..*nout) and empties the list. */
static void drop_files(char ***out, size_t *nout)
{
	for (size_t i = 0; i < *nout; i++)
		free((*out)[i]);
	free(*out);
	*out = NULL;
	*nout = 0;
}

/*
 * Each chosen file of out[0..n) that is a link leading nowhere is an input
 * error naming it, as in a run directory (plan.c): read, it was an I/O
 * error (exit 3) for a loop. Returns 0, or -1 after diag for each one.
 */
static int check_links(char **out, size_t n)
{
	int ret = 0;
	for (size_t i = 0; i < n; i++) {
		char why[4200];
		if (fs_broken_link(out[i], why, sizeof(why))) {
			diag_error(out[i], "%s; a trace file of a JAX profiling session must be readable (remove the link)",
				   why);
			ret = -1;
		}
	}
	return ret;
}

/*
 * One file per host of a session directory into *out (*nout of them; 0
 * when it is not one). A host is the exact name before the ending, so
 * hosts 'node' and 'node.a' are two hosts (a prefix test took node.a's
 * file for node's and dropped one). The candidates are sorted by host, so
 * the choice takes n log n for n files (a search of the chosen files per
 * file made 40,000 files take seconds). Returns 0, or -1 after diag (a
 * chosen file is a link leading nowhere), with *out freed.
 */
static int session_files(const char *dir, char ***out, size_t *nout)
{
	static const char *const endings[2][2] = {{".xplane.pb", ".xplane.pb.gz"}, {".trace.json", ".trace.json.gz"}};
	size_t n;
	char **names = names_in(dir, &n);
	*out = NULL;
	*nout = 0;
	if (!names)
		return 0;
	int use_xplane = have_xplane_reader();
	struct cand *c = xcalloc(n ? n : 1, sizeof(*c));
	size_t nc = 0;
	for (size_t i = 0; i < n; i++)
		for (int kind = use_xplane ? 0 : 1; kind < 2; kind++)
			for (size_t s = 0; s < 2; s++) {
				/* the endings are not suffixes of one another: a name has at most one */
				char *host = host_of(names[i], endings[kind][s]);
				if (host)
					c[nc++] = (struct cand){.host = host, .kind = kind, .idx = i};
			}
	if (nc) /* qsort's array may not be NULL, even when empty */
		qsort(c, nc, sizeof(*c), cmp_cand_host);
	size_t k = 0;
	for (size_t i = 0; i < nc; i++) {
		/* a host's first file is kept: its XSpace, else its trace JSON (either spelling) */
		if (k && !strcmp(c[k - 1].host, c[i].host)) {
			free(c[i].host);
			continue;
		}
		c[k++] = c[i];
	}
	if (k)
		qsort(c, k, sizeof(*c), cmp_cand_order);
	if (k) {
		*out = xcalloc(k, sizeof(**out));
		for (size_t i = 0; i < k; i++) {
			(*out)[i] = xasprintf("%s/%s", dir, names[c[i].idx]);
			free(c[i].host);
		}
		*nout = k;
	}
	free(c);
	for (size_t i = 0; i < n && !*nout; i++)
		if (!strcmp(names[i], "perfetto_trace.json") || !strcmp(names[i], "perfetto_trace.json.gz")) {
			*out = xcalloc(1, sizeof(**out));
			(*out)[(*nout)++] = xasprintf("%s/%s", dir, names[i]);
		}
	free_names(names, n);
	if (check_links(*out, *nout) < 0) {
		drop_files(out, nout);
		return -1;
	}
	return 0;
}

int plan_jax_profile(const char *dir, char ***out, size_t *nout)
{
	*out = NULL;
	*nout = 0;
	if (session_files(dir, out, nout) < 0)
		return -1;
	if (*nout)
		return 1;
	/* DIR or DIR/plugins/profile: the sessions below */
	char *sessions = NULL;
	const char *tails[] = {"plugins/profile", ""};
	for (size_t t = 0; t < 2 && !sessions; t++) {
		char *p = tails[t][0] ? xasprintf("%s/%s", dir, tails[t]) : xstrdup(dir);
		if (fs_is_dir(p) == 1 && (t == 0 || ends_with(dir, "plugins/profile") || ends_with(dir, "plugins/profile/")))
			sessions = p;
		else
			free(p);
	}
	if (!sessions)
		return 0;
	size_t n;
	char **names = names_in(sessions, &n);
	int ret = 0;
	char *found = NULL;
	size_t nfound = 0;
	for (size_t i = 0; names && i < n && ret == 0; i++) {
		char *p = xasprintf("%s/%s", sessions, names[i]);
		char **files;
		size_t k;
		char why[4200];
		/* a session that is a link leading nowhere holds nothing to read, but is said (it was skipped silently) */
		if (fs_broken_link(p, why, sizeof(why))) {
			diag_warning(p, "%s; not read as a JAX profiling session", why);
			free(p);
			continue;
		}
		if (session_files(p, &files, &k) < 0) {
			ret = -1;
			free(p);
			break;
		}
		if (k) {
			nfound++;
			if (nfound == 1) {
				*out = files;
				*nout = k;
				found = p;
				continue;
			}
			for (size_t f = 0; f < k; f++)
				free(files[f]);
			free(files);
		}
		free(p);
	}
	if (ret < 0) {
		drop_files(out, nout);
	} else if (nfound > 1) {
		diag_error(dir, "holds %zu JAX profiling sessions under '%s'; give one of them as the run", nfound, sessions);
		drop_files(out, nout);
		ret = -1;
	} else if (nfound == 1) {
		ret = 1;
	}
	free(found);
	if (names)
		free_names(names, n);
	free(sessions);
	return ret;
}
