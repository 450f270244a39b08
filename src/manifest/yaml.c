/*
 * yaml.c: the manifest's first pass: libyaml's events into a tree of
 * struct ynode that keeps every node's line and column, so the second pass
 * can point at the line of every error. A syntax error ends the pass
 * (libyaml cannot resume).
 */
#include "manifest/manifest_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util/diag.h"
#include "util/xalloc.h"

/* Deeper nesting than any manifest needs; it bounds the recursion below. */
#define MAX_DEPTH 64

void mf_ynode_free(struct ynode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++)
		mf_ynode_free(n->items[i]);
	free(n->items);
	free(n->value);
	free(n);
}

static void err_mark(struct ctx *c, yaml_mark_t mark, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void err_mark(struct ctx *c, yaml_mark_t mark, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	mf_report(c, (int)mark.line + 1, (int)mark.column + 1, 0, fmt, ap);
	va_end(ap);
}

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
			mf_err_at(c, n, "a NUL character (\\0) is not allowed in a value");
			n->bad = 1;
		}
		yaml_event_delete(ev);
		return n;
	case YAML_ALIAS_EVENT:
		mf_err_at(c, n, "alias '*%s' is not supported, repeat the value instead",
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
		mf_err_at(c, n, "unexpected YAML event");
		yaml_event_delete(ev);
		free(n);
		return NULL;
	}
	yaml_event_delete(ev);
	if (depth >= MAX_DEPTH) {
		mf_err_at(c, n, "nesting deeper than %d levels", MAX_DEPTH);
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
	mf_ynode_free(n);
	return NULL;
}

/*
 * Reads the single document of the manifest. Returns its root node, or NULL
 * after reporting a syntax error or an empty file.
 */
struct ynode *mf_load_tree(struct ctx *c, const char *text, size_t len)
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
		mf_ynode_free(root);
		root = NULL;
		goto empty;
	}
	goto out;
empty:
	err_mark(c, (yaml_mark_t){0}, "empty manifest, expected a mapping with 'title' and 'runs'");
	goto out;
fail:
	mf_ynode_free(root);
	root = NULL;
out:
	yaml_parser_delete(&p);
	return root;
}
