/*
 * tmpl.h: the report's one door to the template engine (ctemplate).
 *
 * C code fills a dictionary of plain strings and sections; the template
 * (a .tpl file in templates/, embedded in the binary) holds all the markup and starts
 * with {{%AUTOESCAPE context="HTML"}}, so ctemplate escapes every value for
 * the place it lands in (HTML text, attribute, URL). Values given here are
 * raw text, never pre-escaped HTML.
 *
 * Ownership: tmpl_dict_new() returns a top-level dictionary that the caller
 * frees with tmpl_dict_free(). A dictionary returned by tmpl_add_section()
 * belongs to its parent and goes away with it; never free it. Strings passed
 * in are copied. The C++ side catches every exception: running out of memory
 * ends the program like xmalloc does, anything else makes tmpl_expand fail.
 */
#ifndef PERFSTUDY_TMPL_H
#define PERFSTUDY_TMPL_H

#ifdef __cplusplus
extern "C" {
#endif

struct buf; /* util/buf.h */
struct tmpl_dict;

/* A new empty top-level dictionary, owned by the caller. */
struct tmpl_dict *tmpl_dict_new(void);
/* Frees a top-level dictionary and all its sections; NULL is fine. */
void tmpl_dict_free(struct tmpl_dict *d);
/* Sets {{KEY}} to value (copied); a NULL value sets the empty string. */
void tmpl_set(struct tmpl_dict *d, const char *key, const char *value);
/* Sets {{KEY}} to the decimal text of v. */
void tmpl_set_int(struct tmpl_dict *d, const char *key, long long v);
/*
 * Adds one repetition of {{#SECTION}}...{{/SECTION}} and returns its
 * dictionary (owned by d). Lookups that miss in it fall back to d.
 */
struct tmpl_dict *tmpl_add_section(struct tmpl_dict *d, const char *section);
/* Shows {{#SECTION}} once, with d's values. */
void tmpl_show_section(struct tmpl_dict *d, const char *section);

/*
 * Parses template_text (named template_name in messages) and appends its
 * expansion with d to out. Blank lines and lines holding only a section
 * marker are dropped; other whitespace is kept. Returns 0, or -1 after
 * diag_syserror when the template does not parse or expand (a perfstudy
 * bug, not bad input). Parsing is not cached between calls.
 */
int tmpl_expand(const char *template_name, const char *template_text,
		const struct tmpl_dict *d, struct buf *out);

#ifdef __cplusplus
}
#endif

#endif
