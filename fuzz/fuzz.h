/*
 * fuzz.h: what the fuzz harnesses share.
 *
 * Each harness defines LLVMFuzzerTestOneInput for one input format: a
 * fuzz/fuzz_<name>.c of its own, or fuzz/reader_harness.c built for one
 * reader of the ingest table (the Makefile's FUZZ_READERS). Built with clang -fsanitize=fuzzer it is a libFuzzer target
 * (`make fuzz`); built with fuzz/regress_main.c instead it is an ordinary
 * program that runs the function over files, which is how `make check` replays
 * the inputs in tests/fuzz-regress/<name>/ with any compiler.
 *
 * A harness checks more than "no crash": fuzz_check_sink() aborts when a
 * reader hands on a value that no valid input could produce (a negative
 * duration, an end time past int64, a string that is not NUL-terminated), so
 * a silently wrong number counts as a crash too.
 */
#ifndef PERFSTUDY_FUZZ_H
#define PERFSTUDY_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/ingest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A sink whose callbacks check every event's invariants and abort on a violation. */
void fuzz_check_sink(struct ingest_sink *sink);

/*
 * Runs reader r over data as if it were a file's (inflated) content: detect
 * (and detect_source), then read when detected, as ingest_file() does; or
 * read always, when force is set. Diagnostics are
 * forgotten afterwards so memory does not grow from one input to the next.
 */
void fuzz_read(const struct reader *r, const uint8_t *data, size_t size, int force);

/* The reader named name from the ingest table, or NULL. */
const struct reader *fuzz_reader(const char *name);

#endif
