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

/* One file per host of a session directory; 0 files when it is not one. */
static void session_files(const char *dir, char ***out, size_t *nout)
{
	static const char *const xplane[] = {".xplane.pb", ".xplane.pb.gz"};
	static const char *const json[] = {".trace.json", ".trace.json.gz"};
	size_t n;
	char **names = names_in(dir, &n);
	*out = NULL;
	*nout = 0;
	if (!names)
		return;
	size_t cap = 0;
	int use_xplane = have_xplane_reader();
	/* the hosts: every <host>.xplane.pb* and <host>.trace.json* */
	for (int pass = 0; pass < 2; pass++) {
		const char *const *sufs = pass == 0 ? xplane : json;
		if (pass == 0 && !use_xplane)
			continue;
		for (size_t i = 0; i < n; i++)
			for (size_t s = 0; s < 2; s++) {
				char *host = host_of(names[i], sufs[s]);
				if (!host)
					continue;
				/* a host already given a file (its xplane, or the other spelling) is skipped */
				int dup = 0;
				for (size_t k = 0; k < *nout && !dup; k++) {
					const char *base = strrchr((*out)[k], '/') + 1;
					dup = !strncmp(base, host, strlen(host)) && base[strlen(host)] == '.';
				}
				if (!dup) {
					*out = xgrow(*out, &cap, *nout + 1, sizeof(**out));
					(*out)[(*nout)++] = xasprintf("%s/%s", dir, names[i]);
				}
				free(host);
			}
	}
	for (size_t i = 0; i < n && !*nout; i++)
		if (!strcmp(names[i], "perfetto_trace.json") || !strcmp(names[i], "perfetto_trace.json.gz")) {
			*out = xgrow(*out, &cap, 1, sizeof(**out));
			(*out)[(*nout)++] = xasprintf("%s/%s", dir, names[i]);
		}
	free_names(names, n);
}

int plan_jax_profile(const char *dir, char ***out, size_t *nout)
{
	*out = NULL;
	*nout = 0;
	session_files(dir, out, nout);
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
	for (size_t i = 0; names && i < n; i++) {
		char *p = xasprintf("%s/%s", sessions, names[i]);
		char **files;
		size_t k;
		session_files(p, &files, &k);
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
	if (nfound > 1) {
		diag_error(dir, "holds %zu JAX profiling sessions under '%s'; give one of them as the run", nfound, sessions);
		for (size_t f = 0; f < *nout; f++)
			free((*out)[f]);
		free(*out);
		*out = NULL;
		*nout = 0;
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
