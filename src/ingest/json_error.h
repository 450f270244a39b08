/*
 * json_error.h: the message of a JSON reader (kineto/kineto.c, jax/jax.c)
 * for a trace document that its simdjson walk rejected, so that both name
 * the place the same way: file, line and column, and the byte.
 */
#ifndef PERFSTUDY_JSON_ERROR_H
#define PERFSTUDY_JSON_ERROR_H

#include <stddef.h>

#include "ingest/source.h"

/*
 * One diag error "FILE:LINE:COL: MESSAGE at byte N[ of the uncompressed
 * JSON][: DETAIL]" for the JSON text that starts skip bytes into src->data
 * (a byte order mark left out), where offset is in that text and N in
 * src->data. message says what was expected; detail is simdjson's reason,
 * or "". An offset of 0 is where simdjson's first stage, which rejects a
 * document cut short, or one with content after its top-level object,
 * before it has a position to give, leaves it: a bracket scan of the text
 * (strings skipped) names the place and says which it is instead.
 */
void json_report_error(const struct source *src, size_t skip, size_t offset, const char *message, const char *detail);

#endif
