/*
 * paths.c: the manifest's file names: resolving a path against the
 * manifest's directory, expanding the globs of 'traces' and 'inputs'
 * (sorted, without duplicates) and keeping relative paths inside the
 * manifest's directory.
 */
#include "manifest/manifest_int.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/diag.h"
#include "util/fs.h"
#include "util/xalloc.h"

/* Returns path p as seen from the working directory (caller frees). */
char *mf_resolve(const struct ctx *c, const char *p)
{
	if (p[0] == '/' || !c->prefix_len)
		return xstrdup(p);
	if (c->prefix_len == strlen(c->m->dir))
		return xasprintf("%s%s", c->m->dir, p);
	return xasprintf("%s/%s", c->m->dir, p);
}

/* Like mf_resolve(), but escapes glob characters in the manifest's directory. */
static char *resolve_pattern(const struct ctx *c, const char *p)
{
	if (p[0] == '/' || !c->prefix_len)
		return xstrdup(p);
	struct buf b;
	buf_init(&b);
	for (const char *s = c->m->dir; *s; s++) {
		if (strchr("*?[]\\", *s))
			buf_addc(&b, '\\');
		buf_addc(&b, *s);
	}
	if (c->prefix_len > strlen(c->m->dir))
		buf_addc(&b, '/');
	buf_adds(&b, p);
	return mf_take(&b);
}

/*
 * Returns match f of pattern v as the user would write it: glob(3) hands back
 * the directory prefix unescaped, so dropping prefix_len bytes undoes it.
 */
static const char *as_written(const struct ctx *c, const struct ynode *v, const char *f)
{
	if (v->value[0] == '/' || strlen(f) < c->prefix_len)
		return f;
	return f + c->prefix_len;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Non-zero when relative path p leaves the directory it is relative to
 * ("../x", "a/../../x"). The rule (docs/manifest.md, "Trace paths and globs"): a
 * relative path in a manifest stays inside the manifest's directory, so a
 * study directory is self-contained and a manifest from elsewhere cannot
 * reach around it by accident; a file elsewhere is named by an absolute path,
 * which says so plainly. Checked on the text, component by component.
 */
int mf_climbs_out(const char *p)
{
	long depth = 0;
	while (*p) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (--depth < 0)
				return 1;
		} else if (n && !(n == 1 && p[0] == '.')) {
			depth++;
		}
		p += n;
		while (*p == '/')
			p++;
	}
	return 0;
}

/* Expands one trace pattern v into the list *files (*n of them). */
static void add_traces(struct ctx *c, char ***files, size_t *n, size_t *cap, const struct ynode *v,
	const char *what)
{
	char *pat = resolve_pattern(c, v->value);
	glob_t g;
	int rc = glob(pat, 0, NULL, &g);
	if (rc == GLOB_NOMATCH) {
		mf_err_at(c, v, "no file matches '%s'", v->value);
		goto out;
	}
	if (rc == GLOB_NOSPACE) {
		fputs("perfstudy: error: out of memory\n", stderr);
		exit(EXIT_SYSTEM);
	}
	if (rc) {
		mf_syserr_at(c, v, "cannot read a directory while expanding '%s'", v->value);
		goto out;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *f = g.gl_pathv[i];
		struct stat st;
		if (v->value[0] != '/' && mf_climbs_out(as_written(c, v, f))) {
			mf_err_at(c, v, "'%s' is outside the manifest's directory (write an absolute path to read a file elsewhere)",
			       as_written(c, v, f));
			continue;
		}
		char why[4200];
		if (fs_broken_link(f, why, sizeof(why))) {
			mf_err_at(c, v, "'%s' is %s", as_written(c, v, f), why);
			continue;
		}
		if (stat(f, &st)) {
			mf_syserr_at(c, v, "cannot access '%s': %s", as_written(c, v, f), strerror(errno));
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			mf_err_at(c, v, "'%s' is a directory, expected %s", as_written(c, v, f), what);
			continue;
		}
		*files = xgrow(*files, cap, *n + 1, sizeof(**files));
		(*files)[(*n)++] = xstrdup(f);
	}
out:
	globfree(&g);
	free(pat);
}

/* Reads 'traces' or 'inputs' (key) into *files, sorted and without duplicates. */
void mf_get_traces(struct ctx *c, char ***files, size_t *nfiles, const struct ynode *key,
	const struct ynode *v)
{
	size_t cap = 0;
	const char *what = strcmp(key->value, "traces") ? "an input file" : "a trace file";
	if (!mf_present(v))
		return;
	if (v->kind == Y_SCALAR) {
		add_traces(c, files, nfiles, &cap, v, what);
	} else if (v->kind == Y_SEQUENCE) {
		if (!v->n)
			mf_err_at(c, v, "'%s' must not be empty", key->value);
		for (size_t i = 0; i < v->n; i++) {
			const struct ynode *it = v->items[i];
			if (it->bad)
				continue;
			if (it->kind != Y_SCALAR || it->null) {
				char *got = mf_describe(it);
				mf_err_at(c, it, "expected a path or glob pattern in '%s', got %s", key->value, got);
				free(got);
				continue;
			}
			add_traces(c, files, nfiles, &cap, it, what);
		}
	} else {
		mf_err_type(c, key, v, "a path or a list of paths");
		return;
	}
	char **f = *files;
	if (*nfiles > 1)
		qsort(f, *nfiles, sizeof(*f), cmp_str);
	size_t w = 0;
	for (size_t i = 0; i < *nfiles; i++) {
		if (w && !strcmp(f[w - 1], f[i]))
			free(f[i]);
		else
			f[w++] = f[i];
	}
	*nfiles = w;
}
