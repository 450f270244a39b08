/*
 * manifest.c: reads and checks a study manifest (see manifest.h and
 * docs/manifest.md).
 *
 * Two passes. libyaml's event API first builds a small tree of our own that
 * keeps every node's line and column; the checker then walks that tree key by
 * key in document order, so errors come out in the order the user reads the
 * file. A syntax error stops the first pass (libyaml cannot resume); every
 * other error is reported and the walk goes on, so one run of perfstudy shows
 * as many problems as possible.
 *
 * Aliases (*name) are rejected: a manifest is short enough to repeat a value,
 * and a per-run 'model' already overrides the shared one key by key. Anchors
 * alone are harmless and ignored. Tags are ignored too.
 */
#include "manifest/manifest.h"

#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

/* Deeper nesting than any manifest needs; it bounds the recursion below. */
#define MAX_DEPTH 64

/* Longest value quoted back in a message before it is cut short. */
#define MAX_QUOTE 40

enum ynode_kind { Y_SCALAR, Y_MAPPING, Y_SEQUENCE };

/* One YAML node with where it starts in the file. */
struct ynode {
	enum ynode_kind kind;
	int line, col;    /* 1-based */
	int null;         /* a plain scalar meaning "no value": empty, ~, null */
	int bad;          /* already reported (an alias): checks skip it quietly */
	char *value;      /* scalars: the text, NUL-terminated */
	size_t n, cap;    /* sequences: items; mappings: key, value, key, value ... */
	struct ynode **items;
};

struct ctx {
	const char *path;
	size_t errors;
	struct manifest *m;
	size_t prefix_len; /* length of m->dir plus '/' as prepended to relative paths */
	struct manifest_model *own; /* each run's own 'model' keys, merged at the end */
	const struct ynode **baselines; /* each run's 'scaling_baseline' value, checked at the end */
};

static void ynode_free(struct ynode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++)
		ynode_free(n->items[i]);
	free(n->items);
	free(n->value);
	free(n);
}

static void report(struct ctx *c, int line, int col, int sys, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int len = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	char *msg = xmalloc(len > 0 ? (size_t)len + 1 : 1);
	msg[0] = '\0';
	if (len > 0)
		vsnprintf(msg, (size_t)len + 1, fmt, ap);
	char *where = line > 0 ? xasprintf("%s:%d:%d", c->path, line, col) : xstrdup(c->path);
	if (sys)
		diag_syserror(where, "%s", msg);
	else
		diag_error(where, "%s", msg);
	free(where);
	free(msg);
	c->errors++;
}

static void err_at(struct ctx *c, const struct ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void err_at(struct ctx *c, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(c, n ? n->line : 0, n ? n->col : 0, 0, fmt, ap);
	va_end(ap);
}

static void report_at(struct ctx *c, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void report_at(struct ctx *c, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(c, line, col, 0, fmt, ap);
	va_end(ap);
}

static void syserr_at(struct ctx *c, const struct ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void syserr_at(struct ctx *c, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(c, n ? n->line : 0, n ? n->col : 0, 1, fmt, ap);
	va_end(ap);
}

static void err_mark(struct ctx *c, yaml_mark_t mark, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void err_mark(struct ctx *c, yaml_mark_t mark, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(c, (int)mark.line + 1, (int)mark.column + 1, 0, fmt, ap);
	va_end(ap);
}

/* Returns b's bytes (caller frees) and releases b. */
static char *take(struct buf *b)
{
	char *s = buf_detach(b);
	buf_release(b);
	return s;
}

/* First pass: events to tree. */

static void syntax_error(struct ctx *c, const yaml_parser_t *p)
{
	const char *text = c->m->text;
	if (p->error == YAML_MEMORY_ERROR) {
		fputs("perfstudy: error: out of memory\n", stderr);
		exit(EXIT_SYSTEM);
	}
	const char *problem = p->problem ? p->problem : "invalid YAML";
	if (p->error == YAML_READER_ERROR) {
		/* The reader (bad UTF-8, control characters) knows only a byte offset. */
		yaml_mark_t mark = {0};
		for (size_t i = 0; i < p->problem_offset && text[i]; i++) {
			if (text[i] == '\n') {
				mark.line++;
				mark.column = 0;
			} else if (((unsigned char)text[i] & 0xC0) != 0x80) {
				mark.column++;
			}
		}
		err_mark(c, mark, "%s", problem);
	} else if (p->context) {
		err_mark(c, p->problem_mark, "%s (%s at %d:%d)", problem, p->context,
			(int)p->context_mark.line + 1, (int)p->context_mark.column + 1);
	} else {
		err_mark(c, p->problem_mark, "%s", problem);
	}
}

static int next_event(struct ctx *c, yaml_parser_t *p, yaml_event_t *ev)
{
	if (!yaml_parser_parse(p, ev)) {
		syntax_error(c, p);
		return -1;
	}
	return 0;
}

static int is_null_scalar(const yaml_event_t *ev)
{
	const char *s = (const char *)ev->data.scalar.value;
	if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	return !strcmp(s, "") || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
		!strcmp(s, "NULL");
}

static void add_item(struct ynode *parent, struct ynode *child)
{
	parent->items = xgrow(parent->items, &parent->cap, parent->n + 1, sizeof(*parent->items));
	parent->items[parent->n++] = child;
}

/*
 * Builds the node that starts with event ev (which it deletes) and everything
 * inside it. Returns NULL after a syntax error, already reported.
 */
static struct ynode *load_node(struct ctx *c, yaml_parser_t *p, yaml_event_t *ev, int depth)
{
	struct ynode *n = xcalloc(1, sizeof(*n));
	n->line = (int)ev->start_mark.line + 1;
	n->col = (int)ev->start_mark.column + 1;
	yaml_event_type_t end;

	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		n->kind = Y_SCALAR;
		n->value = xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
		n->null = is_null_scalar(ev);
		/* "\0" in a quoted scalar would cut the C string short: refused, never truncated. */
		if (memchr(ev->data.scalar.value, 0, ev->data.scalar.length)) {
			err_at(c, n, "a NUL character (\\0) is not allowed in a value");
			n->bad = 1;
		}
		yaml_event_delete(ev);
		return n;
	case YAML_ALIAS_EVENT:
		err_at(c, n, "alias '*%s' is not supported, repeat the value instead",
			(const char *)ev->data.alias.anchor);
		n->kind = Y_SCALAR;
		n->value = xstrdup("");
		n->bad = 1;
		yaml_event_delete(ev);
		return n;
	case YAML_SEQUENCE_START_EVENT:
		n->kind = Y_SEQUENCE;
		end = YAML_SEQUENCE_END_EVENT;
		break;
	case YAML_MAPPING_START_EVENT:
		n->kind = Y_MAPPING;
		end = YAML_MAPPING_END_EVENT;
		break;
	default:
		/* libyaml only starts a node with the events above. */
		err_at(c, n, "unexpected YAML event");
		yaml_event_delete(ev);
		free(n);
		return NULL;
	}
	yaml_event_delete(ev);
	if (depth >= MAX_DEPTH) {
		err_at(c, n, "nesting deeper than %d levels", MAX_DEPTH);
		free(n);
		return NULL;
	}
	for (;;) {
		yaml_event_t child;
		if (next_event(c, p, &child))
			goto fail;
		if (child.type == end) {
			yaml_event_delete(&child);
			return n;
		}
		struct ynode *cn = load_node(c, p, &child, depth + 1);
		if (!cn)
			goto fail;
		add_item(n, cn);
	}
fail:
	ynode_free(n);
	return NULL;
}

/*
 * Reads the single document of the manifest. Returns its root node, or NULL
 * after reporting a syntax error or an empty file.
 */
static struct ynode *load_tree(struct ctx *c, const char *text, size_t len)
{
	yaml_parser_t p;
	yaml_event_t ev;
	struct ynode *root = NULL;

	if (!yaml_parser_initialize(&p)) {
		fputs("perfstudy: error: out of memory\n", stderr);
		exit(EXIT_SYSTEM);
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (next_event(c, &p, &ev)) /* stream start */
		goto out;
	yaml_event_delete(&ev);
	if (next_event(c, &p, &ev))
		goto out;
	if (ev.type == YAML_STREAM_END_EVENT) {
		yaml_event_delete(&ev);
		goto empty;
	}
	yaml_event_delete(&ev); /* document start */
	if (next_event(c, &p, &ev))
		goto out;
	root = load_node(c, &p, &ev, 0);
	if (!root)
		goto out;
	if (next_event(c, &p, &ev)) /* document end */
		goto fail;
	yaml_event_delete(&ev);
	if (next_event(c, &p, &ev))
		goto fail;
	if (ev.type != YAML_STREAM_END_EVENT) {
		err_mark(c, ev.start_mark, "expected one YAML document, found a second one");
		yaml_event_delete(&ev);
		goto fail;
	}
	yaml_event_delete(&ev);
	if (root->kind == Y_SCALAR && root->null) {
		ynode_free(root);
		root = NULL;
		goto empty;
	}
	goto out;
empty:
	err_mark(c, (yaml_mark_t){0}, "empty manifest, expected a mapping with 'title' and 'runs'");
	goto out;
fail:
	ynode_free(root);
	root = NULL;
out:
	yaml_parser_delete(&p);
	return root;
}

/* Second pass helpers: describing and converting nodes. */

/* Returns how node n is named in "got ..." (caller frees). */
static char *describe(const struct ynode *n)
{
	if (n->kind == Y_MAPPING)
		return xstrdup("a mapping");
	if (n->kind == Y_SEQUENCE)
		return xstrdup("a sequence");
	if (n->null)
		return xstrdup("an empty value");
	struct buf b;
	buf_init(&b);
	buf_addc(&b, '\'');
	size_t i;
	for (i = 0; i < MAX_QUOTE && n->value[i]; i++) {
		char ch = n->value[i];
		if (ch == '\n')
			buf_adds(&b, "\\n");
		else if (ch == '\t')
			buf_adds(&b, "\\t");
		else
			buf_addc(&b, ch);
	}
	if (n->value[i]) {
		/* Do not cut a UTF-8 sequence in half. */
		while (b.len > 1 && ((unsigned char)b.data[b.len - 1] & 0xC0) == 0x80)
			b.len--;
		if (b.len > 1 && (unsigned char)b.data[b.len - 1] >= 0xC0)
			b.len--;
		b.data[b.len] = '\0';
		buf_adds(&b, "...");
	}
	buf_addc(&b, '\'');
	return take(&b);
}

static void err_type(struct ctx *c, const struct ynode *key, const struct ynode *v, const char *what)
{
	char *got = describe(v);
	err_at(c, v, "expected %s for '%s', got %s", what, key->value, got);
	free(got);
}

/* Returns 1 when v holds a value, 0 when it is empty or already reported. */
static int present(const struct ynode *v)
{
	return !v->bad && !(v->kind == Y_SCALAR && v->null);
}

static int get_string(struct ctx *c, const struct ynode *key, const struct ynode *v, char **out)
{
	if (!present(v))
		return 0;
	if (v->kind != Y_SCALAR) {
		err_type(c, key, v, "a string");
		return -1;
	}
	free(*out);
	*out = xstrdup(v->value);
	return 1;
}

/*
 * Reads an integer in [min, max] into *out. Returns 1 when set, 0 when v is
 * empty, -1 after an error.
 */
static int get_int(struct ctx *c, const struct ynode *key, const struct ynode *v, int64_t min,
	int64_t max, int64_t *out)
{
	if (!present(v))
		return 0;
	if (v->kind != Y_SCALAR || !v->value[0] || isspace((unsigned char)v->value[0])) {
		err_type(c, key, v, "an integer");
		return -1;
	}
	char *end;
	errno = 0;
	long long x = strtoll(v->value, &end, 10);
	if (*end) {
		err_type(c, key, v, "an integer");
		return -1;
	}
	if (errno == ERANGE || x < min || x > max) {
		int too_big = x > 0 && (errno == ERANGE || x > max);
		if (max != INT64_MAX && max != INT_MAX && min != INT64_MIN)
			err_at(c, v, "'%s' must be between %lld and %lld, got %s", key->value,
				(long long)min, (long long)max, v->value);
		else if (too_big)
			err_at(c, v, "'%s' must be at most %lld, got %s", key->value, (long long)max,
				v->value);
		else
			err_at(c, v, "'%s' must be at least %lld, got %s", key->value, (long long)min,
				v->value);
		return -1;
	}
	*out = x;
	return 1;
}

static int get_posint(struct ctx *c, const struct ynode *key, const struct ynode *v, int *out)
{
	int64_t x;
	int r = get_int(c, key, v, 1, INT_MAX, &x);
	if (r > 0)
		*out = (int)x;
	return r;
}

/* Reads a finite number greater than 0. */
static int get_posnum(struct ctx *c, const struct ynode *key, const struct ynode *v, double *out)
{
	if (!present(v))
		return 0;
	if (v->kind != Y_SCALAR || !v->value[0] || isspace((unsigned char)v->value[0])) {
		err_type(c, key, v, "a number");
		return -1;
	}
	char *end;
	double x = strtod(v->value, &end);
	if (*end) {
		err_type(c, key, v, "a number");
		return -1;
	}
	if (!isfinite(x)) {
		err_type(c, key, v, "a finite number");
		return -1;
	}
	if (!(x > 0)) {
		err_at(c, v, "'%s' must be greater than 0, got %s", key->value, v->value);
		return -1;
	}
	*out = x;
	return 1;
}

static int get_bool(struct ctx *c, const struct ynode *key, const struct ynode *v, int *out)
{
	if (!present(v))
		return 0;
	if (v->kind == Y_SCALAR && !strcmp(v->value, "true")) {
		*out = 1;
		return 1;
	}
	if (v->kind == Y_SCALAR && !strcmp(v->value, "false")) {
		*out = 0;
		return 1;
	}
	err_type(c, key, v, "true or false");
	return -1;
}

/* Returns 1 when v is a mapping, 0 when empty, -1 after reporting it is not. */
static int want_mapping(struct ctx *c, const struct ynode *key, const struct ynode *v)
{
	if (!present(v))
		return 0;
	if (v->kind != Y_MAPPING) {
		err_type(c, key, v, "a mapping");
		return -1;
	}
	return 1;
}

/* Optimal string alignment distance, or a large number for long strings. */
static size_t edit_distance(const char *a, const char *b)
{
	enum { MAXLEN = 32 };
	size_t la = strlen(a), lb = strlen(b);
	size_t rows[3][MAXLEN + 1];
	if (la > MAXLEN || lb > MAXLEN)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		rows[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *cur = rows[i % 3], *prev = rows[(i - 1) % 3], *prev2 = rows[(i + 1) % 3];
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (prev[j - 1] + cost < d)
				d = prev[j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
				prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
		}
	}
	return rows[la % 3][lb];
}

/* Returns the name closest to s within edit distance 2, or NULL. */
static const char *suggest(const char *s, const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t best_d = 3;
	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(s, names[i]);
		if (d < best_d && d < strlen(s)) {
			best = names[i];
			best_d = d;
		}
	}
	return best;
}

/*
 * Returns the index in names of the key of the pair at items[i] of mapping
 * map, or -1 after reporting an unknown, duplicate or non-scalar key. seen[]
 * (one slot per name, NULL at first) remembers keys met so far.
 */
static int field_index(struct ctx *c, const struct ynode *map, size_t i,
	const char *const *names, size_t n, const struct ynode **seen)
{
	const struct ynode *k = map->items[i];
	if (k->bad)
		return -1;
	if (k->kind != Y_SCALAR) {
		char *got = describe(k);
		err_at(c, k, "expected a key name, got %s", got);
		free(got);
		return -1;
	}
	for (size_t j = 0; j < n; j++) {
		if (strcmp(k->value, names[j]))
			continue;
		if (seen[j]) {
			err_at(c, k, "duplicate key '%s' (first at %d:%d)", k->value, seen[j]->line,
				seen[j]->col);
			return -1;
		}
		seen[j] = k;
		return (int)j;
	}
	const char *s = suggest(k->value, names, n);
	if (s)
		err_at(c, k, "unknown key '%s' (did you mean '%s'?)", k->value, s);
	else
		err_at(c, k, "unknown key '%s'", k->value);
	return -1;
}

/*
 * Reports a required key that is absent (at the mapping's start) or has an
 * empty value (at the key). key is the key node from field_index's seen[].
 */
static void require(struct ctx *c, const struct ynode *map, const struct ynode *key, const char *name)
{
	if (!key) {
		err_at(c, map, "missing required key '%s'", name);
		return;
	}
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *v = map->items[i + 1];
		if (map->items[i] == key && !present(v) && !v->bad)
			err_at(c, key, "missing value for '%s'", name);
	}
}

/* Paths. */

/* Returns path p as seen from the working directory (caller frees). */
static char *resolve(const struct ctx *c, const char *p)
{
	if (p[0] == '/' || !c->prefix_len)
		return xstrdup(p);
	if (c->prefix_len == strlen(c->m->dir))
		return xasprintf("%s%s", c->m->dir, p);
	return xasprintf("%s/%s", c->m->dir, p);
}

/* Like resolve(), but escapes glob characters in the manifest's directory. */
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
	return take(&b);
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
 * ("../x", "a/../../x"). The rule (README, "Trace paths and globs"): a
 * relative path in a manifest stays inside the manifest's directory, so a
 * study directory is self-contained and a manifest from elsewhere cannot
 * reach around it by accident; a file elsewhere is named by an absolute path,
 * which says so plainly. Checked on the text, component by component.
 */
static int climbs_out(const char *p)
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
		err_at(c, v, "no file matches '%s'", v->value);
		goto out;
	}
	if (rc == GLOB_NOSPACE) {
		fputs("perfstudy: error: out of memory\n", stderr);
		exit(EXIT_SYSTEM);
	}
	if (rc) {
		syserr_at(c, v, "cannot read a directory while expanding '%s'", v->value);
		goto out;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *f = g.gl_pathv[i];
		struct stat st;
		if (v->value[0] != '/' && climbs_out(as_written(c, v, f))) {
			err_at(c, v, "'%s' is outside the manifest's directory (write an absolute path to read a file elsewhere)",
			       as_written(c, v, f));
			continue;
		}
		if (stat(f, &st)) {
			syserr_at(c, v, "cannot access '%s': %s", as_written(c, v, f), strerror(errno));
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			err_at(c, v, "'%s' is a directory, expected %s", as_written(c, v, f), what);
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
static void get_traces(struct ctx *c, char ***files, size_t *nfiles, const struct ynode *key,
	const struct ynode *v)
{
	size_t cap = 0;
	const char *what = strcmp(key->value, "traces") ? "an input file" : "a trace file";
	if (!present(v))
		return;
	if (v->kind == Y_SCALAR) {
		add_traces(c, files, nfiles, &cap, v, what);
	} else if (v->kind == Y_SEQUENCE) {
		if (!v->n)
			err_at(c, v, "'%s' must not be empty", key->value);
		for (size_t i = 0; i < v->n; i++) {
			const struct ynode *it = v->items[i];
			if (it->bad)
				continue;
			if (it->kind != Y_SCALAR || it->null) {
				char *got = describe(it);
				err_at(c, it, "expected a path or glob pattern in '%s', got %s", key->value, got);
				free(got);
				continue;
			}
			add_traces(c, files, nfiles, &cap, it, what);
		}
	} else {
		err_type(c, key, v, "a path or a list of paths");
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

/* Sections. */

static const char *const model_keys[] = {
	"name", "layers", "hidden", "heads", "ffn", "seq", "vocab", "arch", "precision",
	"framework", "objective", "vocab_multiple", "flops_method",
};
#define NMODEL_KEYS (sizeof(model_keys) / sizeof(model_keys[0]))
static const char *const arch_words[] = {"gpt", "bert", "encoder-lm"};
static const char *const precision_words[] = {"fp32", "tf32", "fp16", "bf16", "fp8", "fp64"};
static const char *const framework_words[] = {"megatron", "huggingface"};
static const char *const objective_words[] = {"none", "mlm", "mlm+nsp"};
static const char *const flops_method_words[] = {"perfstudy", "paper001"};

static void get_word(struct ctx *c, const struct ynode *key, const struct ynode *v,
	const char *const *names, size_t n, char **out);

static void get_model(struct ctx *c, struct manifest_model *mm, const struct ynode *key,
	const struct ynode *map)
{
	const struct ynode *seen[NMODEL_KEYS] = {0};
	int64_t *ints[] = {
		NULL, &mm->layers, &mm->hidden, &mm->heads, &mm->ffn, &mm->seq, &mm->vocab, NULL, NULL,
		NULL, NULL, &mm->vocab_multiple, NULL,
	};
	if (want_mapping(c, key, map) <= 0)
		return;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		int f = field_index(c, map, i, model_keys, NMODEL_KEYS, seen);
		if (f == 0)
			get_string(c, k, v, &mm->name);
		else if (f == 7)
			get_word(c, k, v, arch_words, 3, &mm->arch);
		else if (f == 8)
			get_word(c, k, v, precision_words, 6, &mm->precision);
		else if (f == 9)
			get_word(c, k, v, framework_words, 2, &mm->framework);
		else if (f == 10)
			get_word(c, k, v, objective_words, 3, &mm->objective);
		else if (f == 12)
			get_word(c, k, v, flops_method_words, 2, &mm->flops_method);
		else if (f > 0)
			get_int(c, k, v, 1, INT64_MAX, ints[f]);
	}
}

/* A hardware file (nvidia_smi, topology): a path that exists and is not a directory, into *out. */
static void get_hardware_file(struct ctx *c, const struct ynode *k, const struct ynode *v, const char *what,
			      char **out)
{
	char *p = NULL;
	if (get_string(c, k, v, &p) <= 0)
		return;
	char *r = resolve(c, p);
	struct stat st;
	if (p[0] != '/' && climbs_out(p)) {
		err_at(c, v, "'%s' is outside the manifest's directory (write an absolute path to read a file elsewhere)",
		       p);
		free(r);
	} else if (stat(r, &st)) {
		if (errno == ENOENT || errno == ENOTDIR)
			err_at(c, v, "'%s' does not exist", p);
		else
			syserr_at(c, v, "cannot access '%s': %s", p, strerror(errno));
		free(r);
	} else if (S_ISDIR(st.st_mode)) {
		err_at(c, v, "'%s' is a directory, expected %s", p, what);
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

static void get_hardware(struct ctx *c, const struct ynode *key, const struct ynode *map)
{
	enum { NFILE_KEYS = 4, NKEYS = NFILE_KEYS + NHW_DESC };
	const char *keys[NKEYS] = {"nvidia_smi", "interconnect", "peak_tflops", "topology"};
	for (size_t i = 0; i < NHW_DESC; i++)
		keys[NFILE_KEYS + i] = hw_desc[i].key;
	const struct ynode *seen[NKEYS] = {0};
	struct manifest *m = c->m;
	if (want_mapping(c, key, map) <= 0)
		return;
	m->hardware.facts = xcalloc(map->n / 2 + 1, sizeof(*m->hardware.facts));
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		int f = field_index(c, map, i, keys, NKEYS, seen);
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
			get_string(c, k, v, &m->hardware.interconnect);
			break;
		case 2:
			get_posnum(c, k, v, &m->hardware.peak_tflops);
			break;
		default: {
			if (f < NFILE_KEYS)
				break;
			char type = hw_desc[f - NFILE_KEYS].type;
			char *text = NULL;
			int ok = type == 'i'   ? get_int(c, k, v, 1, INT_MAX, &n)
				 : type == 'n' ? get_posnum(c, k, v, &x)
					       : get_string(c, k, v, &text);
			free(text);
			if (ok > 0 && v->value[0])
				m->hardware.facts[m->hardware.nfacts++] =
					(struct manifest_fact){xstrdup(k->value), xstrdup(v->value)};
			else if (ok > 0)
				err_at(c, v, "'%s' must not be empty", k->value);
			break;
		}
		}
	}
}

/* 'software': package name -> version (a string or a number as written), in the file's order. */
static void get_software(struct ctx *c, const struct ynode *key, const struct ynode *map)
{
	struct manifest *m = c->m;
	if (want_mapping(c, key, map) <= 0)
		return;
	m->software = xcalloc(map->n / 2 + 1, sizeof(*m->software));
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		if (k->bad)
			continue;
		if (k->kind != Y_SCALAR || k->null || !k->value[0]) {
			char *got = describe(k);
			err_at(c, k, "expected a package name in 'software', got %s", got);
			free(got);
			continue;
		}
		int dup = 0;
		for (size_t j = 0; j < i && !dup; j += 2)
			if (map->items[j]->kind == Y_SCALAR && !strcmp(map->items[j]->value, k->value)) {
				err_at(c, k, "duplicate package '%s' in 'software' (first at %d:%d)", k->value,
					map->items[j]->line, map->items[j]->col);
				dup = 1;
			}
		if (dup || v->bad)
			continue;
		if (v->kind != Y_SCALAR || v->null || !v->value[0]) {
			err_type(c, k, v, "a version");
			continue;
		}
		m->software[m->nsoftware++] = (struct manifest_fact){xstrdup(k->value), xstrdup(v->value)};
	}
}

static const char *const figure_sizes[] = {"single", "double", "slide"};
#define NFIGURE_SIZES (sizeof(figure_sizes) / sizeof(figure_sizes[0]))

/* Reads one of names[n] into *out; an unknown word gets a suggestion. */
static void get_word(struct ctx *c, const struct ynode *key, const struct ynode *v,
	const char *const *names, size_t n, char **out)
{
	char *p = NULL;
	if (get_string(c, key, v, &p) <= 0)
		return;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(p, names[i])) {
			free(*out);
			*out = p;
			return;
		}
	}
	struct buf all;
	buf_init(&all);
	for (size_t i = 0; i < n; i++)
		buf_printf(&all, "%s%s", i ? ", " : "", names[i]);
	const char *s = suggest(p, names, n);
	if (s)
		err_at(c, v, "unknown value '%s' for '%s' (did you mean '%s'?)", p, key->value, s);
	else
		err_at(c, v, "unknown value '%s' for '%s' (expected one of %s)", p, key->value, all.data);
	buf_release(&all);
	free(p);
}

static void get_figures(struct ctx *c, const struct ynode *key, const struct ynode *map)
{
	static const char *const keys[] = {"top_n", "width_in", "height_in", "size", "font",
		"font_size", "hatching", "log_scale"};
	static const char *const log_words[] = {"auto", "true", "false"};
	const struct ynode *seen[8] = {0};
	struct manifest *m = c->m;
	if (want_mapping(c, key, map) <= 0)
		return;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		int64_t x;
		char *w = NULL;
		switch (field_index(c, map, i, keys, 8, seen)) {
		case 0:
			if (get_int(c, k, v, 1, 50, &x) > 0)
				m->figures.top_n = (int)x;
			break;
		case 1:
			get_posnum(c, k, v, &m->figures.width_in);
			break;
		case 2:
			get_posnum(c, k, v, &m->figures.height_in);
			break;
		case 3:
			get_word(c, k, v, figure_sizes, NFIGURE_SIZES, &m->figures.size);
			break;
		case 4:
			if (get_string(c, k, v, &m->figures.font) > 0 && !m->figures.font[0]) {
				err_at(c, v, "'font' must not be empty");
			}
			break;
		case 5: {
			/* Print text below 7 pt is unreadable; above 24 pt nothing fits. */
			double pt = 0;
			if (get_posnum(c, k, v, &pt) > 0) {
				if (pt < 7 || pt > 24)
					err_at(c, v, "'font_size' must be between 7 and 24 (points), got %s", v->value);
				else
					m->figures.font_size = pt;
			}
			break;
		}
		case 6:
			get_bool(c, k, v, &m->figures.hatching);
			break;
		case 7:
			get_word(c, k, v, log_words, 3, &w);
			if (w)
				m->figures.log_scale = !strcmp(w, "auto") ? -1 : !strcmp(w, "true");
			free(w);
			break;
		}
	}
}

static const char *const presets[] = {"default", "payoungkhamdee2021"};
#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

static void get_preset(struct ctx *c, const struct ynode *key, const struct ynode *v)
{
	char *p = NULL;
	if (get_string(c, key, v, &p) <= 0)
		return;
	for (size_t i = 0; i < NPRESETS; i++) {
		if (!strcmp(p, presets[i])) {
			free(c->m->classify_preset);
			c->m->classify_preset = p;
			return;
		}
	}
	const char *s = suggest(p, presets, NPRESETS);
	if (s)
		err_at(c, v, "unknown classify preset '%s' (did you mean '%s'?)", p, s);
	else
		err_at(c, v, "unknown classify preset '%s' (expected 'default' or 'payoungkhamdee2021')",
			p);
	free(p);
}

static void get_rule(struct ctx *c, const struct ynode *map)
{
	static const char *const keys[] = {"group", "contains", "regex", "ignore_case"};
	const struct ynode *seen[4] = {0};
	struct manifest_rule rule = {0};
	const struct ynode *regex_node = NULL;
	size_t errors = c->errors;

	if (map->bad)
		return;
	if (map->kind != Y_MAPPING) {
		char *got = describe(map);
		err_at(c, map, "expected a mapping for a classify rule, got %s", got);
		free(got);
		return;
	}
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		switch (field_index(c, map, i, keys, 4, seen)) {
		case 0:
			get_string(c, k, v, &rule.group);
			break;
		case 1:
		case 2:
			if (seen[1] && seen[2]) {
				err_at(c, k, "a rule has either 'contains' or 'regex', not both");
				break;
			}
			if (get_string(c, k, v, &rule.pattern) > 0) {
				rule.is_regex = !strcmp(k->value, "regex");
				if (rule.is_regex)
					regex_node = v;
			}
			break;
		case 3:
			get_bool(c, k, v, &rule.ignore_case);
			break;
		}
	}
	require(c, map, seen[0], "group");
	if (rule.group && !rule.group[0])
		err_at(c, seen[0], "'group' must not be empty");
	if (!seen[1] && !seen[2])
		err_at(c, map, "missing required key 'contains' or 'regex'");
	else if (!(seen[1] && seen[2]))
		require(c, map, seen[1] ? seen[1] : seen[2], seen[1] ? "contains" : "regex");
	if (regex_node) {
		regex_t re;
		int rc = regcomp(&re, rule.pattern,
			REG_EXTENDED | REG_NOSUB | (rule.ignore_case ? REG_ICASE : 0));
		if (rc) {
			char msg[256];
			regerror(rc, &re, msg, sizeof(msg));
			err_at(c, regex_node, "invalid regex '%s': %s", rule.pattern, msg);
		} else {
			regfree(&re);
		}
	}
	if (c->errors != errors) {
		free(rule.group);
		free(rule.pattern);
		return;
	}
	struct manifest *m = c->m;
	m->rules = xrealloc(m->rules, (m->nrules + 1) * sizeof(*m->rules));
	m->rules[m->nrules++] = rule;
}

static void get_classify(struct ctx *c, const struct ynode *key, const struct ynode *v)
{
	static const char *const keys[] = {"preset", "rules"};
	const struct ynode *seen[2] = {0};
	if (!present(v))
		return;
	if (v->kind == Y_SCALAR) {
		get_preset(c, key, v);
		return;
	}
	if (v->kind != Y_MAPPING) {
		err_type(c, key, v, "a preset name or a mapping");
		return;
	}
	for (size_t i = 0; i < v->n; i += 2) {
		const struct ynode *k = v->items[i], *val = v->items[i + 1];
		switch (field_index(c, v, i, keys, 2, seen)) {
		case 0:
			get_preset(c, k, val);
			break;
		case 1:
			if (!present(val))
				break;
			if (val->kind != Y_SEQUENCE) {
				err_type(c, k, val, "a list of rules");
				break;
			}
			if (!val->n)
				err_at(c, val, "'rules' must not be empty");
			for (size_t j = 0; j < val->n; j++)
				get_rule(c, val->items[j]);
			break;
		}
	}
	if (seen[0] && seen[1])
		err_at(c, seen[1], "'classify' takes either 'preset' or 'rules', not both");
	else if (!seen[0] && !seen[1])
		err_at(c, v, "missing required key 'preset' or 'rules'");
	else
		require(c, v, seen[0] ? seen[0] : seen[1], seen[0] ? "preset" : "rules");
}

static int valid_id(const char *s, const char *extra)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return 0;
	return 1;
}

/* Lowercases s in place (NULL: nothing). */
static void lowercase(char *s)
{
	for (; s && *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/*
 * A run's typed-in measurements (a published table), absolute or, for a
 * study that prints only ratios, relative to a reference (time_x ...).
 */
static void get_measured(struct ctx *c, struct manifest_measured *ms, const struct ynode *key,
	const struct ynode *map)
{
	static const char *const keys[] = {
		"iteration_ms", "samples_per_s", "tflops_per_gpu", "memory_gb", "time_x", "comm_time_x",
		"params", "oom", "comm_pct", "relative_to",
	};
	enum { NKEYS = sizeof(keys) / sizeof(keys[0]), NNUMS = 6 };
	const struct ynode *seen[NKEYS] = {0};
	double *nums[NNUMS] = {&ms->iteration_ms, &ms->samples_per_s, &ms->tflops_per_gpu, &ms->memory_gb,
			       &ms->time_x, &ms->comm_time_x};
	if (want_mapping(c, key, map) <= 0)
		return;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		int f = field_index(c, map, i, keys, NKEYS, seen);
		if (f >= 0 && f < NNUMS)
			get_posnum(c, k, v, nums[f]);
		else if (f == 6)
			get_int(c, k, v, 1, INT64_MAX, &ms->params);
		else if (f == 7)
			get_bool(c, k, v, &ms->oom);
		else if (f == 8 && get_posnum(c, k, v, &ms->comm_pct) > 0 && ms->comm_pct > 100)
			err_at(c, v, "'comm_pct' is a percentage of the training time, at most 100, got %s", v->value);
		else if (f == 9 && get_string(c, k, v, &ms->relative_to) > 0 && !ms->relative_to[0])
			err_at(c, v, "'relative_to' must not be empty");
	}
	if ((ms->time_x > 0 || ms->comm_time_x > 0) && !ms->relative_to)
		err_at(c, map, "'time_x' and 'comm_time_x' are multiples of a reference: name it in 'relative_to'");
}

/* A study's own estimates for a run. */
static void get_published(struct ctx *c, struct manifest_published *pb, const struct ynode *key,
	const struct ynode *map)
{
	static const char *const keys[] = {"params", "flops_tflop", "activation_gb"};
	const struct ynode *seen[3] = {0};
	if (want_mapping(c, key, map) <= 0)
		return;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		switch (field_index(c, map, i, keys, 3, seen)) {
		case 0:
			get_int(c, k, v, 1, INT64_MAX, &pb->params);
			break;
		case 1:
			get_posnum(c, k, v, &pb->flops_tflop);
			break;
		case 2:
			get_posnum(c, k, v, &pb->activation_gb);
			break;
		}
	}
}

static const char *const recompute_words[] = {"none", "selective", "full"};
static const char *const profiled_words[] = {"forward", "forward+backward"};

/* Reads one of words[n] and stores its index (plus base) in *out. */
static void get_choice(struct ctx *c, const struct ynode *k, const struct ynode *v,
	const char *const *words, size_t n, int base, int *out)
{
	char *w = NULL;
	get_word(c, k, v, words, n, &w);
	for (size_t j = 0; w && j < n; j++)
		if (!strcmp(w, words[j]))
			*out = (int)j + base;
	free(w);
}

static void get_run(struct ctx *c, const struct ynode *map, struct manifest_run *r,
	struct manifest_model *own, const struct ynode **id_node)
{
	static const char *const keys[] = {
		"id", "label", "gpus", "batch", "strategy", "model", "traces",
		"inputs", "recompute", "zero", "tensor_parallel", "profiled", "grad_bytes",
		"measured", "published", "scaling_baseline", "pipeline_parallel",
	};
	const struct ynode *seen[17] = {0};
	int64_t x;
	r->line = map->line;
	r->col = map->col;
	r->zero = -1;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		switch (field_index(c, map, i, keys, 17, seen)) {
		case 0:
			if (get_string(c, k, v, &r->id) <= 0)
				break;
			if (!valid_id(r->id, "._-")) {
				err_at(c, v, "invalid run id '%s': use letters, digits, '.', '_' and '-'",
					r->id);
				free(r->id);
				r->id = NULL;
			} else {
				*id_node = v;
			}
			break;
		case 1:
			get_string(c, k, v, &r->label);
			break;
		case 2:
			get_posint(c, k, v, &r->gpus);
			break;
		case 3:
			get_posint(c, k, v, &r->batch);
			break;
		case 4:
			get_string(c, k, v, &r->strategy);
			break;
		case 5:
			get_model(c, own, k, v);
			break;
		case 6:
			get_traces(c, &r->traces, &r->ntraces, k, v);
			break;
		case 7:
			get_traces(c, &r->inputs, &r->ninputs, k, v);
			break;
		case 8:
			get_choice(c, k, v, recompute_words, 3, 0, &r->recompute);
			break;
		case 9:
			if (get_int(c, k, v, 0, 3, &x) > 0)
				r->zero = (int)x;
			break;
		case 10:
			get_posint(c, k, v, &r->tensor_parallel);
			break;
		case 11:
			get_choice(c, k, v, profiled_words, 2, 1, &r->profiled);
			break;
		case 12:
			if (get_int(c, k, v, 1, 8, &x) > 0)
				r->grad_bytes = (int)x;
			break;
		case 13:
			get_measured(c, &r->measured, k, v);
			break;
		case 14:
			get_published(c, &r->published, k, v);
			break;
		case 15:
			if (get_string(c, k, v, &r->scaling_baseline) > 0)
				c->baselines[r - c->m->runs] = v;
			break;
		case 16:
			get_posint(c, k, v, &r->pipeline_parallel);
			break;
		}
	}
	require(c, map, seen[0], "id");
	/* A run is traces, other inputs, or numbers typed in from a published study. */
	if (!seen[7] && !seen[13] && !seen[14])
		require(c, map, seen[6], "traces");
}

/*
 * Fills a run's model: the manifest's defaults, then the run's own keys.
 * Takes own's name.
 */
static void merge_model(struct manifest_model *dst, const struct manifest_model *def,
	struct manifest_model *own)
{
	dst->name = own->name ? own->name : def->name ? xstrdup(def->name) : NULL;
	own->name = NULL;
	dst->layers = own->layers ? own->layers : def->layers;
	dst->hidden = own->hidden ? own->hidden : def->hidden;
	dst->heads = own->heads ? own->heads : def->heads;
	dst->ffn = own->ffn ? own->ffn : def->ffn;
	dst->seq = own->seq ? own->seq : def->seq;
	dst->vocab = own->vocab ? own->vocab : def->vocab;
	dst->arch = own->arch ? own->arch : def->arch ? xstrdup(def->arch) : NULL;
	own->arch = NULL;
	dst->precision = own->precision ? own->precision : def->precision ? xstrdup(def->precision) : NULL;
	own->precision = NULL;
	dst->framework = own->framework ? own->framework : def->framework ? xstrdup(def->framework) : NULL;
	own->framework = NULL;
	dst->objective = own->objective ? own->objective : def->objective ? xstrdup(def->objective) : NULL;
	own->objective = NULL;
	dst->vocab_multiple = own->vocab_multiple ? own->vocab_multiple : def->vocab_multiple;
	dst->flops_method = own->flops_method ? own->flops_method : def->flops_method ? xstrdup(def->flops_method) : NULL;
	own->flops_method = NULL;
}

static void get_runs(struct ctx *c, const struct ynode *key, const struct ynode *v)
{
	struct manifest *m = c->m;
	if (!present(v))
		return;
	if (v->kind != Y_SEQUENCE) {
		err_type(c, key, v, "a list of runs");
		return;
	}
	if (!v->n) {
		err_at(c, v, "'runs' must not be empty");
		return;
	}
	m->runs = xcalloc(v->n, sizeof(*m->runs));
	c->own = xcalloc(v->n, sizeof(*c->own));
	c->baselines = xcalloc(v->n, sizeof(*c->baselines));
	const struct ynode **ids = xcalloc(v->n, sizeof(*ids));
	for (size_t i = 0; i < v->n; i++) {
		const struct ynode *it = v->items[i];
		struct manifest_run *r = &m->runs[m->nruns++];
		if (it->bad)
			continue;
		if (it->kind != Y_MAPPING) {
			char *got = describe(it);
			err_at(c, it, "expected a mapping for a run, got %s", got);
			free(got);
			continue;
		}
		get_run(c, it, r, &c->own[i], &ids[i]);
		for (size_t j = 0; j < i && ids[i]; j++) {
			if (ids[j] && !strcmp(m->runs[j].id, r->id)) {
				err_at(c, ids[i], "duplicate run id '%s' (first at %d:%d)", r->id,
					ids[j]->line, ids[j]->col);
				break;
			}
		}
	}
	free(ids);
}

/* Sets m->id from 'id' (at node v) or else from the file name, lowercased. */
static void set_id(struct ctx *c, const struct ynode *v)
{
	struct manifest *m = c->m;
	int from_file = !m->id;
	if (from_file) {
		const char *base = strrchr(m->path, '/');
		base = base ? base + 1 : m->path;
		size_t n = strlen(base);
		if (n > 5 && !strcasecmp(base + n - 5, ".yaml"))
			n -= 5;
		else if (n > 4 && !strcasecmp(base + n - 4, ".yml"))
			n -= 4;
		m->id = xstrndup(base, n);
	}
	lowercase(m->id);
	if (valid_id(m->id, "_-"))
		return;
	if (from_file)
		err_at(c, NULL,
			"cannot use the file name '%s' as the experiment id: set 'id' to lowercase letters, digits, '_' and '-'",
			m->id);
	else
		err_at(c, v, "invalid experiment id '%s': use letters, digits, '_' and '-'", v->value);
}

/*
 * 'phases': a mapping of phase name to a list of annotation names (or one
 * name). Names are kept as written; '*' is interpreted by the analysis.
 */
static void get_phases(struct ctx *c, const struct ynode *key, const struct ynode *v)
{
	struct manifest *m = c->m;
	if (want_mapping(c, key, v) <= 0)
		return;
	m->phases = xcalloc(v->n / 2 + 1, sizeof(*m->phases));
	for (size_t i = 0; i < v->n; i += 2) {
		const struct ynode *k = v->items[i], *val = v->items[i + 1];
		if (k->bad)
			continue;
		if (k->kind != Y_SCALAR || !valid_id(k->value, "_.-")) {
			char *got = describe(k);
			err_at(c, k, "expected a phase name of letters, digits, '_', '.' and '-', got %s", got);
			free(got);
			continue;
		}
		int dup = 0;
		for (size_t j = 0; j < i && !dup; j += 2)
			if (v->items[j]->kind == Y_SCALAR && !strcmp(v->items[j]->value, k->value)) {
				err_at(c, k, "duplicate phase '%s' (first at %d:%d)", k->value, v->items[j]->line,
					v->items[j]->col);
				dup = 1;
			}
		if (dup || !present(val))
			continue;
		if (val->kind == Y_MAPPING) {
			err_type(c, k, val, "an annotation name or a list of them");
			continue;
		}
		struct manifest_phase ph = {.name = xstrdup(k->value)};
		size_t n = val->kind == Y_SEQUENCE ? val->n : 1;
		ph.names = xcalloc(n + 1, sizeof(*ph.names));
		for (size_t j = 0; j < n; j++) {
			const struct ynode *it = val->kind == Y_SEQUENCE ? val->items[j] : val;
			if (it->bad)
				continue;
			if (it->kind != Y_SCALAR || it->null || !it->value[0]) {
				err_type(c, k, it, "an annotation name or a list of them");
				continue;
			}
			ph.names[ph.nnames++] = xstrdup(it->value);
		}
		m->phases[m->nphases++] = ph;
	}
}

/* 'compare': a list of [run, run] pairs; the ids are checked once all runs are read. */
static void get_compare(struct ctx *c, const struct ynode *key, const struct ynode *v,
	const struct ynode ***nodes)
{
	struct manifest *m = c->m;
	if (!present(v))
		return;
	if (v->kind != Y_SEQUENCE) {
		err_type(c, key, v, "a list of [run, run] pairs");
		return;
	}
	m->compare = xcalloc(v->n + 1, sizeof(*m->compare));
	*nodes = xcalloc(2 * v->n + 1, sizeof(**nodes));
	for (size_t i = 0; i < v->n; i++) {
		const struct ynode *it = v->items[i];
		if (it->bad)
			continue;
		if (it->kind != Y_SEQUENCE || it->n != 2 || it->items[0]->kind != Y_SCALAR ||
			it->items[1]->kind != Y_SCALAR || it->items[0]->null || it->items[1]->null) {
			char *got = describe(it);
			err_at(c, it, "expected a pair of run ids like [a, b] in 'compare', got %s", got);
			free(got);
			continue;
		}
		if (!strcmp(it->items[0]->value, it->items[1]->value)) {
			err_at(c, it, "'compare' pairs two different runs, got '%s' twice", it->items[0]->value);
			continue;
		}
		(*nodes)[2 * m->ncompare] = it->items[0];
		(*nodes)[2 * m->ncompare + 1] = it->items[1];
		m->compare[m->ncompare].a = xstrdup(it->items[0]->value);
		m->compare[m->ncompare].b = xstrdup(it->items[1]->value);
		m->ncompare++;
	}
}

/* The index of the run with this id, or m->nruns when there is none. */
static size_t run_index(const struct manifest *m, const char *id)
{
	size_t j = 0;
	while (j < m->nruns && (!m->runs[j].id || strcmp(m->runs[j].id, id)))
		j++;
	return j;
}

/* A finite number (any sign); 1 when set, 0 when empty, -1 after an error. */
static int get_real(struct ctx *c, const struct ynode *key, const struct ynode *v, double *out)
{
	if (!present(v))
		return 0;
	char *end = NULL;
	double x = v->kind == Y_SCALAR && v->value[0] && !isspace((unsigned char)v->value[0]) ? strtod(v->value, &end) : NAN;
	if (!end || *end || !isfinite(x)) {
		err_type(c, key, v, "a finite number");
		return -1;
	}
	*out = x;
	return 1;
}

/* 'thresholds': step_time_pct (> 0) and mfu_pp (< 0). */
static void get_thresholds(struct ctx *c, const struct ynode *key, const struct ynode *map)
{
	static const char *const keys[] = {"step_time_pct", "mfu_pp"};
	const struct ynode *seen[2] = {0};
	struct manifest *m = c->m;
	if (want_mapping(c, key, map) <= 0)
		return;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		double x = 0;
		switch (field_index(c, map, i, keys, 2, seen)) {
		case 0:
			if (get_real(c, k, v, &x) > 0) {
				if (x > 0)
					m->thresholds.step_time_pct = x;
				else
					err_at(c, v, "'step_time_pct' must be greater than 0 (a rise in percent), got %s",
					       v->value);
			}
			break;
		case 1:
			if (get_real(c, k, v, &x) > 0) {
				if (x < 0)
					m->thresholds.mfu_pp = x;
				else
					err_at(c, v, "'mfu_pp' must be less than 0 (a fall in percentage points), got %s",
					       v->value);
			}
			break;
		}
	}
}

/* 'memory_batches': a non-empty list of per-GPU batch sizes (integers > 0), ascending, each once. */
static void get_memory_batches(struct ctx *c, const struct ynode *key, const struct ynode *v)
{
	struct manifest *m = c->m;
	if (!present(v))
		return;
	if (v->kind != Y_SEQUENCE || !v->n) {
		err_type(c, key, v, "a non-empty list of batch sizes, e.g. [1, 2, 4, 8]");
		return;
	}
	m->memory_batches = xcalloc(v->n + 1, sizeof(*m->memory_batches));
	for (size_t i = 0; i < v->n; i++) {
		int b = 0;
		if (get_posint(c, key, v->items[i], &b) <= 0)
			continue;
		if (m->nmemory_batches && b <= m->memory_batches[m->nmemory_batches - 1]) {
			err_at(c, v->items[i], "'memory_batches' must be ascending, each batch once: %d after %d", b,
			       m->memory_batches[m->nmemory_batches - 1]);
			continue;
		}
		m->memory_batches[m->nmemory_batches++] = b;
	}
}

/* 'bandwidths' of 'parallel_comm': label -> inter-node GB/s (> 0), in the file's order. */
static void get_bandwidths(struct ctx *c, const struct ynode *key, const struct ynode *map)
{
	struct manifest *m = c->m;
	if (!present(map))
		return;
	if (map->kind != Y_MAPPING || !map->n) {
		err_type(c, key, map, "a mapping of labels to inter-node GB/s, e.g. { P0: 5, P1: 12.5 }");
		return;
	}
	m->parallel_comm.bandwidth_labels = xcalloc(map->n / 2 + 1, sizeof(char *));
	m->parallel_comm.bandwidth_gbs = xcalloc(map->n / 2 + 1, sizeof(double));
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		double x = 0;
		if (k->kind != Y_SCALAR || k->null || !k->value[0]) {
			char *got = describe(k);
			err_at(c, k, "expected a bandwidth label in 'bandwidths', got %s", got);
			free(got);
			continue;
		}
		for (size_t j = 0; j < m->parallel_comm.nbandwidths; j++)
			if (!strcmp(m->parallel_comm.bandwidth_labels[j], k->value))
				err_at(c, k, "duplicate bandwidth '%s' in 'bandwidths'", k->value);
		if (get_posnum(c, k, v, &x) <= 0)
			continue;
		size_t n = m->parallel_comm.nbandwidths++;
		m->parallel_comm.bandwidth_labels[n] = xstrdup(k->value);
		m->parallel_comm.bandwidth_gbs[n] = x;
	}
}

/* 'parallel_comm': run, gpus, gpus_per_node, intra_node_gbs, zero, bandwidths, global_batch; the run is checked later. */
static void get_parallel_comm(struct ctx *c, const struct ynode *key, const struct ynode *map)
{
	static const char *const keys[] = {
		"run", "gpus", "gpus_per_node", "intra_node_gbs", "zero", "bandwidths", "global_batch",
	};
	enum { NKEYS = sizeof(keys) / sizeof(keys[0]) };
	const struct ynode *seen[NKEYS] = {0};
	struct manifest *m = c->m;
	int64_t x;
	m->parallel_comm.zero = -1;
	if (want_mapping(c, key, map) <= 0)
		return;
	m->parallel_comm.line = map->line;
	m->parallel_comm.col = map->col;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		switch (field_index(c, map, i, keys, NKEYS, seen)) {
		case 0:
			get_string(c, k, v, &m->parallel_comm.run);
			break;
		case 1:
			get_posint(c, k, v, &m->parallel_comm.gpus);
			break;
		case 2:
			get_posint(c, k, v, &m->parallel_comm.gpus_per_node);
			break;
		case 3:
			get_posnum(c, k, v, &m->parallel_comm.intra_node_gbs);
			break;
		case 4:
			if (get_int(c, k, v, 0, 3, &x) > 0)
				m->parallel_comm.zero = (int)x;
			break;
		case 5:
			get_bandwidths(c, k, v);
			break;
		case 6:
			get_posint(c, k, v, &m->parallel_comm.global_batch);
			break;
		}
	}
	require(c, map, seen[0], "run");
	require(c, map, seen[1], "gpus");
	require(c, map, seen[5], "bandwidths");
}

/* The 'run' value node of the 'parallel_comm' mapping whose key node is key, or NULL. */
static const struct ynode *pc_run_node(const struct ynode *root, const struct ynode *key)
{
	for (size_t i = 0; i < root->n; i += 2) {
		const struct ynode *map = root->items[i + 1];
		if (root->items[i] != key || map->kind != Y_MAPPING)
			continue;
		for (size_t j = 0; j < map->n; j += 2)
			if (map->items[j]->kind == Y_SCALAR && !strcmp(map->items[j]->value, "run"))
				return map->items[j + 1];
	}
	return NULL;
}

/* 'parallel_comm' against the rest of the manifest, once the runs and hardware are read. */
static void check_parallel_comm(struct ctx *c, const struct ynode *run_node)
{
	struct manifest *m = c->m;
	const char *run = m->parallel_comm.run;
	if (!run || !run_node)
		return;
	size_t i = run_index(m, run);
	if (i == m->nruns) {
		err_at(c, run_node, "unknown run '%s' in 'parallel_comm'", run);
		return;
	}
	const struct manifest_model *mm = &m->runs[i].model;
	if (!mm->layers || !mm->hidden || !mm->seq || !m->runs[i].batch)
		err_at(c, run_node, "run '%s' of 'parallel_comm' needs the model's layers, hidden and seq and "
		       "the run's batch", run);
	int per_node = m->parallel_comm.gpus_per_node ? m->parallel_comm.gpus_per_node
						      : (int)manifest_hardware_number(m, "gpus_per_node");
	if (!per_node)
		report_at(c, m->parallel_comm.line, m->parallel_comm.col,
			  "'parallel_comm' needs 'gpus_per_node' (or hardware.gpus_per_node)");
	m->parallel_comm.gpus_per_node = per_node;
}

/*
 * 'series': a list of {name, runs: [run, ...]}; the run ids are checked
 * once all runs are read (nodes collects them, one per series run).
 */
static void get_series(struct ctx *c, const struct ynode *key, const struct ynode *v, const struct ynode ***nodes,
		       size_t *nnodes)
{
	static const char *const keys[] = {"name", "runs"};
	struct manifest *m = c->m;
	if (!present(v))
		return;
	if (v->kind != Y_SEQUENCE) {
		err_type(c, key, v, "a list of {name: ..., runs: [run, ...]}");
		return;
	}
	m->series = xcalloc(v->n + 1, sizeof(*m->series));
	size_t cap = 0;
	for (size_t i = 0; i < v->n; i++) {
		const struct ynode *it = v->items[i];
		if (it->bad)
			continue;
		if (it->kind != Y_MAPPING) {
			char *got = describe(it);
			err_at(c, it, "expected a series like {name: nightly, runs: [a, b]} in 'series', got %s", got);
			free(got);
			continue;
		}
		const struct ynode *seen[2] = {0};
		struct manifest_series se = {0};
		const struct ynode *name_node = NULL;
		for (size_t j = 0; j < it->n; j += 2) {
			const struct ynode *k = it->items[j], *val = it->items[j + 1];
			switch (field_index(c, it, j, keys, 2, seen)) {
			case 0:
				if (get_string(c, k, val, &se.name) > 0) {
					name_node = val;
					if (!valid_id(se.name, "_.-"))
						err_at(c, val, "a series name is letters, digits, '_', '.' and '-', got '%s'",
						       se.name);
				}
				break;
			case 1:
				if (!present(val))
					break;
				if (val->kind != Y_SEQUENCE) {
					err_type(c, k, val, "a non-empty list of run ids");
					break;
				}
				if (!val->n) {
					err_at(c, val, "a series needs at least one run in 'runs', got an empty list");
					break;
				}
				se.runs = xcalloc(val->n + 1, sizeof(*se.runs));
				for (size_t r = 0; r < val->n; r++) {
					const struct ynode *id = val->items[r];
					if (id->bad)
						continue;
					if (id->kind != Y_SCALAR || id->null) {
						err_type(c, k, id, "a run id");
						continue;
					}
					int dup = 0;
					for (size_t q = 0; q < se.nruns && !dup; q++)
						dup = !strcmp(se.runs[q], id->value);
					if (dup) {
						err_at(c, id, "run '%s' is in series '%s' twice", id->value,
						       se.name ? se.name : "?");
						continue;
					}
					*nodes = xgrow(*nodes, &cap, *nnodes + 1, sizeof(**nodes));
					(*nodes)[(*nnodes)++] = id;
					se.runs[se.nruns++] = xstrdup(id->value);
				}
				break;
			}
		}
		require(c, it, seen[0], "name");
		require(c, it, seen[1], "runs");
		for (size_t j = 0; name_node && j < m->nseries; j++)
			if (m->series[j].name && !strcmp(m->series[j].name, se.name))
				err_at(c, name_node, "duplicate series '%s'", se.name);
		m->series[m->nseries++] = se;
	}
}

/*
 * A run reference of 'comparisons': "run" or "experiment/run". Returns 0
 * and fills *ref, or -1 after reporting.
 */
static int get_ref(struct ctx *c, const struct ynode *v, struct manifest_ref *ref)
{
	if (v->bad)
		return -1;
	if (v->kind != Y_SCALAR || v->null || !v->value[0]) {
		char *got = describe(v);
		err_at(c, v, "expected a run id or 'experiment/run' in 'comparisons', got %s", got);
		free(got);
		return -1;
	}
	const char *slash = strchr(v->value, '/');
	char *exp = slash ? xstrndup(v->value, (size_t)(slash - v->value)) : NULL;
	const char *run = slash ? slash + 1 : v->value;
	lowercase(exp);
	if ((exp && !valid_id(exp, "_-")) || !valid_id(run, "._-")) {
		err_at(c, v, "invalid run reference '%s': expected a run id or 'experiment/run'", v->value);
		free(exp);
		return -1;
	}
	ref->exp = exp;
	ref->run = xstrdup(run);
	ref->line = v->line;
	ref->col = v->col;
	return 0;
}

static void get_comparison(struct ctx *c, const struct ynode *map, struct manifest_comparison *cp)
{
	static const char *const keys[] = {"id", "title", "metric", "runs", "baseline", "stack_by", "systems"};
	const struct ynode *seen[7] = {0}, *base = NULL;
	cp->line = map->line;
	cp->col = map->col;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		switch (field_index(c, map, i, keys, 7, seen)) {
		case 0:
			if (get_string(c, k, v, &cp->id) > 0 && !valid_id(cp->id, "_-")) {
				err_at(c, v, "invalid comparison id '%s': use letters, digits, '_' and '-'", cp->id);
				free(cp->id);
				cp->id = NULL;
			}
			lowercase(cp->id);
			break;
		case 1:
			get_string(c, k, v, &cp->title);
			break;
		case 2: {
			char *metric = NULL;
			if (get_string(c, k, v, &metric) <= 0)
				break;
			const char *dot = strchr(metric, '.');
			char *table = dot ? xstrndup(metric, (size_t)(dot - metric)) : NULL;
			if (!dot || !valid_id(table, "_") || !valid_id(dot + 1, "_")) {
				err_at(c, v, "expected 'table.column' for 'metric', e.g. 'throughput.samples_per_s', got '%s'",
					metric);
				free(table);
			} else {
				cp->table = table;
				cp->column = xstrdup(dot + 1);
			}
			free(metric);
			break;
		}
		case 3:
			if (!present(v))
				break;
			if (v->kind != Y_SEQUENCE || !v->n) {
				err_type(c, k, v, "a non-empty list of runs");
				break;
			}
			cp->runs = xcalloc(v->n, sizeof(*cp->runs));
			for (size_t j = 0; j < v->n; j++) {
				if (get_ref(c, v->items[j], &cp->runs[cp->nruns]) < 0)
					continue;
				for (size_t q = 0; q < cp->nruns; q++)
					if (!strcmp(cp->runs[q].run, cp->runs[cp->nruns].run) &&
					    !strcmp(cp->runs[q].exp ? cp->runs[q].exp : "", cp->runs[cp->nruns].exp ? cp->runs[cp->nruns].exp : ""))
						err_at(c, v->items[j], "run '%s' is twice in the comparison's 'runs'", v->items[j]->value);
				cp->nruns++;
			}
			break;
		case 4:
			if (present(v) && v->kind != Y_SCALAR)
				err_type(c, k, v, "a run of the comparison's 'runs'");
			else if (present(v))
				base = v;
			break;
		case 5:
			if (get_string(c, k, v, &cp->stack_by) > 0 && !valid_id(cp->stack_by, "_")) {
				err_at(c, v, "expected a column name for 'stack_by', got '%s'", cp->stack_by);
				free(cp->stack_by);
				cp->stack_by = NULL;
			}
			break;
		case 6:
			if (want_mapping(c, k, v) <= 0)
				break;
			cp->system_exp = xcalloc(v->n / 2 + 1, sizeof(char *));
			cp->system_label = xcalloc(v->n / 2 + 1, sizeof(char *));
			for (size_t j = 0; j < v->n; j += 2) {
				const struct ynode *sk = v->items[j], *sv = v->items[j + 1];
				if (sk->kind != Y_SCALAR || !valid_id(sk->value, "_-")) {
					char *got = describe(sk);
					err_at(c, sk, "expected an experiment id in 'systems', got %s", got);
					free(got);
					continue;
				}
				char *label = NULL;
				if (get_string(c, sk, sv, &label) <= 0)
					continue;
				cp->system_exp[cp->nsystems] = xstrdup(sk->value);
				lowercase(cp->system_exp[cp->nsystems]);
				cp->system_label[cp->nsystems++] = label;
			}
			break;
		}
	}
	require(c, map, seen[0], "id");
	require(c, map, seen[2], "metric");
	require(c, map, seen[3], "runs");
	if (base) {
		struct manifest_ref b = {0};
		if (get_ref(c, base, &b) == 0) {
			size_t j = 0;
			while (j < cp->nruns && (strcmp(cp->runs[j].run, b.run) ||
						 strcmp(cp->runs[j].exp ? cp->runs[j].exp : "", b.exp ? b.exp : "")))
				j++;
			if (j == cp->nruns)
				err_at(c, base, "'baseline' '%s' is not one of the comparison's 'runs'", base->value);
			else
				cp->baseline = j;
		}
		free(b.exp);
		free(b.run);
	}
}

/* 'comparisons': a list of comparisons; runs of this manifest are checked once all runs are read. */
static void get_comparisons(struct ctx *c, const struct ynode *key, const struct ynode *v)
{
	struct manifest *m = c->m;
	if (!present(v))
		return;
	if (v->kind != Y_SEQUENCE) {
		err_type(c, key, v, "a list of comparisons");
		return;
	}
	m->comparisons = xcalloc(v->n + 1, sizeof(*m->comparisons));
	for (size_t i = 0; i < v->n; i++) {
		const struct ynode *it = v->items[i];
		if (it->bad)
			continue;
		if (it->kind != Y_MAPPING) {
			err_type(c, key, it, "a mapping for a comparison");
			continue;
		}
		struct manifest_comparison *cp = &m->comparisons[m->ncomparisons++];
		get_comparison(c, it, cp);
		for (size_t j = 0; cp->id && j + 1 < m->ncomparisons; j++)
			if (m->comparisons[j].id && !strcmp(m->comparisons[j].id, cp->id))
				err_at(c, it, "duplicate comparison id '%s' (first at %d:%d)", cp->id, m->comparisons[j].line,
				       m->comparisons[j].col);
	}
}

/* Reports references to runs of this manifest that it does not have. */
static void check_comparison_runs(struct ctx *c)
{
	struct manifest *m = c->m;
	for (size_t i = 0; i < m->ncomparisons; i++)
		for (size_t j = 0; j < m->comparisons[i].nruns; j++) {
			const struct manifest_ref *r = &m->comparisons[i].runs[j];
			if (r->exp)
				continue; /* another experiment's: checked by the build, which has every manifest */
			size_t k = 0;
			while (k < m->nruns && (!m->runs[k].id || strcmp(m->runs[k].id, r->run)))
				k++;
			if (k == m->nruns)
				report_at(c, r->line, r->col, "unknown run '%s' in 'comparisons'", r->run);
		}
}

static void check_root(struct ctx *c, const struct ynode *root)
{
	static const char *const keys[] = {
		"version", "id", "title", "description", "hardware", "model", "runs",
		"classify", "figures", "phases", "compare", "software", "series", "thresholds", "comparisons",
		"memory_batches", "parallel_comm",
	};
	enum { NKEYS = sizeof(keys) / sizeof(keys[0]) };
	const struct ynode *seen[NKEYS] = {0};
	const struct ynode *id_node = NULL;
	const struct ynode **compare_nodes = NULL, **series_nodes = NULL;
	size_t nseries_nodes = 0;
	struct manifest *m = c->m;

	if (root->bad)
		return;
	if (root->kind != Y_MAPPING) {
		char *got = describe(root);
		err_at(c, root, "expected a mapping at the top of the manifest, got %s", got);
		free(got);
		return;
	}
	for (size_t i = 0; i < root->n; i += 2) {
		const struct ynode *k = root->items[i], *v = root->items[i + 1];
		int64_t x;
		switch (field_index(c, root, i, keys, NKEYS, seen)) {
		case 0:
			if (get_int(c, k, v, INT64_MIN, INT64_MAX, &x) > 0 && x != 1)
				err_at(c, v, "unsupported manifest version %lld (expected 1)", (long long)x);
			break;
		case 1:
			if (get_string(c, k, v, &m->id) > 0)
				id_node = v;
			break;
		case 2:
			if (get_string(c, k, v, &m->title) > 0 && !m->title[0])
				err_at(c, v, "'title' must not be empty");
			break;
		case 3:
			get_string(c, k, v, &m->description);
			break;
		case 4:
			get_hardware(c, k, v);
			break;
		case 5:
			get_model(c, &m->model, k, v);
			break;
		case 6:
			get_runs(c, k, v);
			break;
		case 7:
			get_classify(c, k, v);
			break;
		case 8:
			get_figures(c, k, v);
			break;
		case 9:
			get_phases(c, k, v);
			break;
		case 10:
			get_compare(c, k, v, &compare_nodes);
			break;
		case 11:
			get_software(c, k, v);
			break;
		case 12:
			get_series(c, k, v, &series_nodes, &nseries_nodes);
			break;
		case 13:
			get_thresholds(c, k, v);
			break;
		case 14:
			get_comparisons(c, k, v);
			break;
		case 15:
			get_memory_batches(c, k, v);
			break;
		case 16:
			get_parallel_comm(c, k, v);
			break;
		}
	}
	require(c, root, seen[2], "title");
	require(c, root, seen[6], "runs");
	for (size_t i = 0; i < 2 * m->ncompare; i++)
		if (run_index(m, compare_nodes[i]->value) == m->nruns)
			err_at(c, compare_nodes[i], "unknown run '%s' in 'compare'", compare_nodes[i]->value);
	free(compare_nodes);
	check_comparison_runs(c);
	for (size_t i = 0; c->baselines && i < m->nruns; i++) {
		const struct manifest_run *r = &m->runs[i];
		if (!c->baselines[i] || !r->id)
			continue;
		size_t j = run_index(m, r->scaling_baseline);
		if (j == m->nruns)
			err_at(c, c->baselines[i], "unknown run '%s' in 'scaling_baseline'", r->scaling_baseline);
		else if (j == i)
			err_at(c, c->baselines[i], "run '%s' is its own 'scaling_baseline'", r->id);
	}
	for (size_t i = 0; i < nseries_nodes; i++)
		if (run_index(m, series_nodes[i]->value) == m->nruns)
			err_at(c, series_nodes[i], "unknown run '%s' in 'series'", series_nodes[i]->value);
	free(series_nodes);
	/* The manifest's model may come after 'runs', so runs inherit it only now. */
	for (size_t i = 0; i < m->nruns; i++) {
		struct manifest_run *r = &m->runs[i];
		merge_model(&r->model, &m->model, &c->own[i]);
		if (!r->label && r->id)
			r->label = xstrdup(r->id);
	}
	if (seen[16])
		check_parallel_comm(c, pc_run_node(root, seen[16]));
	set_id(c, id_node);
}

/* Reads the whole file at path; returns NULL after reporting why not. */
static char *read_file(struct ctx *c, size_t *len)
{
	FILE *f = fopen(c->path, "rb");
	if (!f) {
		diag_syserror(c->path, "cannot open: %s", strerror(errno));
		c->errors++;
		return NULL;
	}
	struct buf b;
	buf_init(&b);
	char chunk[8192];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	if (ferror(f)) {
		diag_syserror(c->path, "cannot read: %s", strerror(errno));
		c->errors++;
		buf_release(&b);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = b.len;
	return take(&b);
}

int manifest_load(const char *path, struct manifest **out)
{
	struct ctx c = {.path = path};
	struct manifest *m = xcalloc(1, sizeof(*m));
	struct ynode *root = NULL;
	size_t len = 0;

	*out = NULL;
	c.m = m;
	m->path = xstrdup(path);
	char *tmp = xstrdup(path);
	m->dir = xstrdup(dirname(tmp));
	free(tmp);
	size_t dl = strlen(m->dir);
	if (!strcmp(m->dir, "."))
		c.prefix_len = 0;
	else if (dl && m->dir[dl - 1] == '/')
		c.prefix_len = dl;
	else
		c.prefix_len = dl + 1;
	m->figures.top_n = 10;
	m->figures.log_scale = -1;

	m->text = read_file(&c, &len);
	if (!m->text)
		goto out;
	root = load_tree(&c, m->text, len);
	if (!root)
		goto out;
	check_root(&c, root);
	if (!m->classify_preset && !m->nrules && !c.errors)
		m->classify_preset = xstrdup("default");
out:
	ynode_free(root);
	free(c.own);
	free(c.baselines);
	if (c.errors) {
		manifest_free(m);
		return -1;
	}
	*out = m;
	return 0;
}

double manifest_hardware_number(const struct manifest *m, const char *name)
{
	for (size_t i = 0; i < m->hardware.nfacts; i++)
		if (!strcmp(m->hardware.facts[i].key, name))
			return strtod(m->hardware.facts[i].value, NULL);
	return 0;
}

static void facts_free(struct manifest_fact *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].key);
		free(f[i].value);
	}
	free(f);
}

static void model_release(struct manifest_model *mm)
{
	free(mm->name);
	free(mm->arch);
	free(mm->precision);
	free(mm->framework);
	free(mm->objective);
	free(mm->flops_method);
}

void manifest_free(struct manifest *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nruns; i++) {
		struct manifest_run *r = &m->runs[i];
		free(r->id);
		free(r->label);
		free(r->strategy);
		free(r->scaling_baseline);
		free(r->measured.relative_to);
		model_release(&r->model);
		for (size_t j = 0; j < r->ntraces; j++)
			free(r->traces[j]);
		free(r->traces);
		for (size_t j = 0; j < r->ninputs; j++)
			free(r->inputs[j]);
		free(r->inputs);
	}
	free(m->runs);
	for (size_t i = 0; i < m->nrules; i++) {
		free(m->rules[i].group);
		free(m->rules[i].pattern);
	}
	free(m->rules);
	for (size_t i = 0; i < m->nphases; i++) {
		for (size_t j = 0; j < m->phases[i].nnames; j++)
			free(m->phases[i].names[j]);
		free(m->phases[i].names);
		free(m->phases[i].name);
	}
	free(m->phases);
	for (size_t i = 0; i < m->ncompare; i++) {
		free(m->compare[i].a);
		free(m->compare[i].b);
	}
	free(m->compare);
	for (size_t i = 0; i < m->nseries; i++) {
		for (size_t j = 0; j < m->series[i].nruns; j++)
			free(m->series[i].runs[j]);
		free(m->series[i].runs);
		free(m->series[i].name);
	}
	free(m->series);
	for (size_t i = 0; i < m->ncomparisons; i++) {
		struct manifest_comparison *cp = &m->comparisons[i];
		for (size_t j = 0; j < cp->nruns; j++) {
			free(cp->runs[j].exp);
			free(cp->runs[j].run);
		}
		free(cp->runs);
		for (size_t j = 0; j < cp->nsystems; j++) {
			free(cp->system_exp[j]);
			free(cp->system_label[j]);
		}
		free(cp->system_exp);
		free(cp->system_label);
		free(cp->id);
		free(cp->title);
		free(cp->table);
		free(cp->column);
		free(cp->stack_by);
	}
	free(m->comparisons);
	free(m->memory_batches);
	for (size_t i = 0; i < m->parallel_comm.nbandwidths; i++)
		free(m->parallel_comm.bandwidth_labels[i]);
	free(m->parallel_comm.bandwidth_labels);
	free(m->parallel_comm.bandwidth_gbs);
	free(m->parallel_comm.run);
	free(m->classify_preset);
	free(m->figures.size);
	free(m->figures.font);
	model_release(&m->model);
	facts_free(m->hardware.facts, m->hardware.nfacts);
	facts_free(m->software, m->nsoftware);
	free(m->hardware.nvidia_smi);
	free(m->hardware.topology);
	free(m->hardware.interconnect);
	free(m->title);
	free(m->description);
	free(m->id);
	free(m->text);
	free(m->dir);
	free(m->path);
	free(m);
}
