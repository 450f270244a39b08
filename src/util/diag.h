/*
 * diag.h: the one place diagnostics go through.
 *
 * Library code reports problems here and returns -1; only cmd_* and main
 * turn them into exit codes. A message reads like a compiler's:
 *   experiments/a.yaml:12:5: error: unknown key 'rnus'
 * Every error is counted; warnings are also kept in a list so that the
 * report's Provenance section can show what was met while reading.
 */
#ifndef PERFSTUDY_DIAG_H
#define PERFSTUDY_DIAG_H

#include <stdio.h>

#include <stddef.h>

/* Exit codes, documented in docs/cli.md and the man page. */
enum {
	EXIT_OK = 0,
	EXIT_INPUT = 1,  /* bad input: a trace, a manifest, a value */
	EXIT_USAGE = 2,  /* bad command line */
	EXIT_SYSTEM = 3, /* I/O or system failure */
};

/* What kind of failure the last error was; cmd_* map it to an exit code. */
enum diag_kind { DIAG_INPUT = 1, DIAG_SYSTEM = 3 };

/* "where" is "file", "file:line:col", "file: byte N" ... or NULL. */
void diag_error(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Like diag_error but marks the failure as I/O or system (exit 3). */
void diag_syserror(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_warning(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Every message is printed (and kept) with its control characters escaped:
 * names from inputs (kernels, files, ids) reach the terminal inside
 * messages, and a newline or an escape sequence in one forged whole lines
 * ("perfstudy: wrote site/index.html") or drove the terminal. Escaped are
 * C0 and DEL (as \n, \r, \t or \xNN), bytes that are not valid UTF-8 (\xNN:
 * a lone 0x9b is CSI to some terminals) and U+0080-U+009F (\u0080-\u009f);
 * a backslash stays as it is. diag_escape() returns s so escaped (the
 * caller frees), for the few lines printed outside diag.
 */
char *diag_escape(const char *s);
/*
 * A line outside diag (a subcommand's output, a note on stderr): fmt
 * formatted, the whole escaped as above, then a newline, on f; so that no
 * path or name in it can forge a line (`perfstudy diff` printed input
 * paths as they were).
 */
void diag_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

size_t diag_error_count(void);
/* EXIT_SYSTEM if any system error was reported, else EXIT_INPUT if any error, else EXIT_OK. */
int diag_exit_code(void);
/* Warnings recorded so far, in order; owned by diag. */
size_t diag_warning_count(void);
const char *diag_warning_text(size_t i);
/* Silences warnings on stderr (they are still recorded). */
void diag_set_quiet(int quiet);
/* Forgets all errors and warnings (tests). */
void diag_reset(void);

/*
 * Worker threads that read a trace ahead of the store (src/ingest/parallel.c)
 * must not print: their messages would interleave and come out of order.
 * diag_divert(fn, ctx) hands every later message of the calling thread, as
 * formatted text ("where: error: what"), to fn instead of printing or
 * counting it; diag_divert(NULL, NULL) ends that. While diverted,
 * diag_error_count() counts the errors the thread ever diverted. diag_replay()
 * reports such a text in the calling thread as if it were reported now.
 */
enum diag_level { DIAG_WARNING = 0, DIAG_ERROR = 1, DIAG_SYSERROR = 2 };
void diag_divert(void (*fn)(void *ctx, enum diag_level level, const char *text), void *ctx);
void diag_replay(enum diag_level level, const char *text);

#endif
