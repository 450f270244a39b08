/*
 * tmpl.cpp: the C shim of tmpl.h over ctemplate.
 *
 * The only C++ in perfstudy. A struct tmpl_dict is a ctemplate
 * TemplateDictionary seen from C. Every entry point catches all exceptions,
 * because none may unwind through C frames: std::bad_alloc ends the program
 * as xmalloc would, anything else turns into a failed tmpl_expand.
 *
 * Each tmpl_expand parses into its own TemplateCache rather than ctemplate's
 * global one: the global cache refuses a second string under a known key,
 * and a private cache leaves nothing behind for valgrind to report.
 */
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>

#include <ctemplate/template.h>
#include <ctemplate/template_cache.h>
#include <ctemplate/template_dictionary.h>

extern "C" {
#include "util/buf.h"
#include "util/diag.h"
}

#include "report/tmpl.h"

using ctemplate::TemplateDictionary;

/*
 * STRIP_BLANK_LINES drops empty lines and lines that hold only a section
 * marker, so the HTML stays tidy; STRIP_WHITESPACE would also join template
 * lines, gluing together words of prose that wrap in the template.
 */
static const ctemplate::Strip strip_mode = ctemplate::STRIP_BLANK_LINES;

[[noreturn]] static void out_of_memory(void)
{
	std::fputs("perfstudy: error: out of memory\n", stderr);
	std::exit(EXIT_SYSTEM);
}

static TemplateDictionary *dict(struct tmpl_dict *d)
{
	return reinterpret_cast<TemplateDictionary *>(d);
}

static const TemplateDictionary *dict(const struct tmpl_dict *d)
{
	return reinterpret_cast<const TemplateDictionary *>(d);
}

extern "C" struct tmpl_dict *tmpl_dict_new(void)
{
	try {
		return reinterpret_cast<struct tmpl_dict *>(new TemplateDictionary("perfstudy"));
	} catch (...) {
		out_of_memory();
	}
}

extern "C" void tmpl_dict_free(struct tmpl_dict *d)
{
	try {
		delete dict(d);
	} catch (...) {
		/* A destructor that throws leaves nothing to recover; carry on. */
	}
}

extern "C" void tmpl_set(struct tmpl_dict *d, const char *key, const char *value)
{
	try {
		dict(d)->SetValue(key, value ? value : "");
	} catch (...) {
		out_of_memory();
	}
}

extern "C" void tmpl_set_int(struct tmpl_dict *d, const char *key, long long v)
{
	try {
		dict(d)->SetValue(key, std::to_string(v));
	} catch (...) {
		out_of_memory();
	}
}

extern "C" struct tmpl_dict *tmpl_add_section(struct tmpl_dict *d, const char *section)
{
	try {
		return reinterpret_cast<struct tmpl_dict *>(dict(d)->AddSectionDictionary(section));
	} catch (...) {
		out_of_memory();
	}
}

extern "C" void tmpl_show_section(struct tmpl_dict *d, const char *section)
{
	try {
		dict(d)->ShowSection(section);
	} catch (...) {
		out_of_memory();
	}
}

extern "C" int tmpl_expand(const char *template_name, const char *template_text,
			   const struct tmpl_dict *d, struct buf *out)
{
	try {
		ctemplate::TemplateCache cache;
		std::string text;
		if (!cache.StringToTemplateCache(template_name, template_text, strip_mode)) {
			diag_syserror(template_name, "internal error: template does not parse");
			return -1;
		}
		if (!cache.ExpandWithData(template_name, strip_mode, dict(d), NULL, &text)) {
			diag_syserror(template_name, "internal error: template does not expand");
			return -1;
		}
		buf_add(out, text.data(), text.size());
		return 0;
	} catch (const std::bad_alloc &) {
		out_of_memory();
	} catch (const std::exception &ex) {
		diag_syserror(template_name, "internal error: %s", ex.what());
	} catch (...) {
		diag_syserror(template_name, "internal error: unknown exception");
	}
	return -1;
}
