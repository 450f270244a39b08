/*
 * fuzz_jaxdir.c: the JAX profile directory planner (study/jaxdir.c) on
 * directory layouts made from any bytes.
 *
 * The input is lines, each one entry of a tree made afresh in a private
 * temporary directory:
 *
 *   plugins/profile/s/node.a.xplane.pb     an empty file (parents made)
 *   plugins/profile/s2/                    a directory
 *   plugins/profile/s3 -> s3               a symbolic link (here a loop)
 *
 * A path's parts are split at '/'; empty parts and "." are dropped; a line
 * with "..", a NUL, a part longer than 100 bytes or more than 8 parts is
 * ignored, and so is a link whose target starts with '/' or holds "..",
 * so nothing outside the tree is made or read. At most 256 lines are used.
 * plan_jax_profile() is run on the tree and on its plugins/profile, and
 * its answer checked against a plain reading of the chosen session: one
 * file per host, every host of the session present (hosts 'node' and
 * 'node.a' were once one), a host's XSpace chosen over its trace JSON, all
 * in one directory of the tree; nothing returned but on success.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "study/plan.h"
#include "util/diag.h"
#include "util/fs.h"

#define MAX_LINES 256
#define MAX_PARTS 8
#define MAX_PART 100

static char base[64], root[96];

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz: invariant violated: %s: %s\n", what, detail ? detail : "");
	abort();
}

static void cleanup(void)
{
	fs_remove_tree(root);
	rmdir(base);
}

static void setup(void)
{
	const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(base, sizeof(base), "%s/fuzz-jaxdir.XXXXXX", tmp);
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		abort();
	}
	snprintf(root, sizeof(root), "%s/t", base);
	atexit(cleanup);
}

/*
 * The path of s[0..n) below the tree's root into out (PATH_MAX bytes), its
 * parts joined by '/'; 0 when the line is to be ignored (see the top).
 */
static int tree_path(const char *s, size_t n, char *out, size_t cap)
{
	size_t len = 0, parts = 0, i = 0;
	if (memchr(s, '\0', n))
		return 0;
	while (i < n) {
		size_t j = i;
		while (j < n && s[j] != '/')
			j++;
		size_t m = j - i;
		if (m == 2 && !memcmp(s + i, "..", 2))
			return 0;
		if (m && !(m == 1 && s[i] == '.')) {
			if (m > MAX_PART || ++parts > MAX_PARTS || len + m + 2 > cap)
				return 0;
			if (len)
				out[len++] = '/';
			memcpy(out + len, s + i, m);
			len += m;
		}
		i = j + 1;
	}
	out[len] = '\0';
	return len > 0;
}

/* mkdir -p of the parents of root/rel. */
static void make_parents(const char *rel)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *q = p + strlen(root) + 1; (q = strchr(q, '/')); q++) {
		*q = '\0';
		mkdir(p, 0777);
		*q = '/';
	}
}

static void make_entry(const char *line, size_t n)
{
	char rel[2048], target[2048], p[4096];
	const char *arrow = NULL;
	for (size_t i = 0; i + 4 <= n && !arrow; i++)
		if (!memcmp(line + i, " -> ", 4))
			arrow = line + i;
	if (arrow) {
		size_t tn = n - (size_t)(arrow + 4 - line);
		const char *t = arrow + 4;
		if (!tree_path(line, (size_t)(arrow - line), rel, sizeof(rel)) || !tn || t[0] == '/' ||
		    !tree_path(t, tn, target, sizeof(target)))
			return;
		make_parents(rel);
		snprintf(p, sizeof(p), "%s/%s", root, rel);
		if (symlink(target, p) < 0)
			return; /* an entry of that name made by an earlier line */
		return;
	}
	int is_dir = n && line[n - 1] == '/';
	if (!tree_path(line, n, rel, sizeof(rel)))
		return;
	make_parents(rel);
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (is_dir) {
		mkdir(p, 0777);
	} else {
		FILE *f = fopen(p, "wx");
		if (f)
			fclose(f);
	}
}

static int ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n > m && !strcmp(s + n - m, suf);
}

/* The kind of a session file name (0 XSpace, 1 trace JSON) with its host's length, or -1. */
static int kind_of(const char *name, size_t *host_len)
{
	static const char *const endings[] = {".xplane.pb", ".xplane.pb.gz", ".trace.json", ".trace.json.gz"};
	for (int i = 0; i < 4; i++)
		if (ends_with(name, endings[i])) {
			*host_len = strlen(name) - strlen(endings[i]);
			return i / 2;
		}
	return -1;
}

/* Whether host[0..n) has a file among out[0..nout) (their names after dir/), and which kind. */
static int chosen_kind(char **out, size_t nout, size_t dirlen, const char *host, size_t n)
{
	for (size_t i = 0; i < nout; i++) {
		size_t hl;
		const char *name = out[i] + dirlen + 1;
		int k = kind_of(name, &hl);
		if (k >= 0 && hl == n && !memcmp(name, host, n))
			return k;
	}
	return -1;
}

static void check_plan(const char *dir)
{
	char **out = (char **)1; /* must be set by the planner whatever it answers */
	size_t n = (size_t)-1;
	int r = plan_jax_profile(dir, &out, &n);
	if (r != 1) {
		if (r != 0 && r != -1)
			fail("answer not -1, 0 or 1", dir);
		if (out || n)
			fail("files returned without success", dir);
		return;
	}
	if (!n || !out)
		fail("success without files", dir);
	/* one directory of the tree, its files each with a known name */
	const char *slash = strrchr(out[0], '/');
	size_t dirlen = (size_t)(slash - out[0]);
	if (strncmp(out[0], root, strlen(root)) || (out[0][strlen(root)] != '/'))
		fail("a file outside the tree", out[0]);
	int perfetto = n == 1 && (!strcmp(slash + 1, "perfetto_trace.json") || !strcmp(slash + 1, "perfetto_trace.json.gz"));
	for (size_t i = 0; i < n; i++) {
		size_t hl;
		if (strncmp(out[i], out[0], dirlen + 1) || strchr(out[i] + dirlen + 1, '/'))
			fail("files of two directories", out[i]);
		if (!perfetto && kind_of(out[i] + dirlen + 1, &hl) < 0)
			fail("a file that is not a host's", out[i]);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(out[i], out[j]))
				fail("a file given twice", out[i]);
	}
	/* every host of the session has its file, its XSpace when it has one, and no host has two */
	char d[4096];
	snprintf(d, sizeof(d), "%.*s", (int)dirlen, out[0]);
	DIR *dd = opendir(d);
	if (!dd)
		fail("the session cannot be listed", d);
	struct dirent *e;
	while ((e = readdir(dd))) {
		size_t hl;
		int k = e->d_name[0] == '.' ? -1 : kind_of(e->d_name, &hl);
		if (k < 0)
			continue;
		if (perfetto)
			fail("a host's file left for the perfetto trace", e->d_name);
		int got = chosen_kind(out, n, dirlen, e->d_name, hl);
		if (got < 0)
			fail("a host dropped", e->d_name);
		if (k == 0 && got != 0)
			fail("a host's trace JSON chosen over its XSpace", e->d_name);
	}
	closedir(dd);
	for (size_t i = 0; i < n; i++) {
		size_t hl, h2;
		const char *a = out[i] + dirlen + 1;
		if (perfetto || kind_of(a, &hl) < 0)
			continue;
		for (size_t j = i + 1; j < n; j++) {
			const char *b = out[j] + dirlen + 1;
			if (kind_of(b, &h2) >= 0 && h2 == hl && !memcmp(a, b, hl))
				fail("a host with two files", a);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(out[i]);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!base[0])
		setup();
	diag_set_quiet(1);
	fs_remove_tree(root);
	if (mkdir(root, 0777) < 0) {
		perror(root);
		abort();
	}
	const char *s = (const char *)data;
	size_t i = 0, lines = 0;
	while (i < size && lines < MAX_LINES) {
		const char *nl = memchr(s + i, '\n', size - i);
		size_t n = nl ? (size_t)(nl - (s + i)) : size - i;
		make_entry(s + i, n);
		lines++;
		i += n + 1;
	}
	check_plan(root);
	char p[256];
	snprintf(p, sizeof(p), "%s/plugins/profile", root);
	check_plan(p);
	fs_remove_tree(root);
	diag_reset();
	return 0;
}
