/*
 * study/guard.h: what a build checks before it writes anything, so that
 * it never destroys its own inputs or another build's output (issue #30).
 */
#ifndef PERFSTUDY_STUDY_GUARD_H
#define PERFSTUDY_STUDY_GUARD_H

#include <stddef.h>

#include "study/plan.h"

/*
 * Refuses an output file (ingest's shard database) that is one of the
 * inputs: a command-line input, a manifest or a trace of p, the same file
 * (device and inode) or, when it does not exist yet, the same resolved
 * path. Returns 0, or -1 after diag naming both.
 */
int guard_output_file(const char *out, const struct plan *p, const char *const *inputs, size_t n);

/*
 * Refuses an output directory that is, or holds, one of the inputs (the
 * swap would delete them); merge also passes its shards as inputs. Returns 0, or -1 after diag naming the input.
 */
int guard_output_dir(const char *dir, const struct plan *p, const char *const *inputs, size_t n);

/*
 * Takes the exclusive lock DIR.lock beside the output directory for the
 * whole build; fails at once (no waiting) when another build holds it.
 * Returns the descriptor to keep open (the kernel drops the lock when the
 * process ends, however it ends: a killed build leaves at most an unlocked
 * DIR.lock, which blocks nothing), or -1 after diag.
 */
int guard_lock(const char *dir);
/*
 * The same for the database `perfstudy ingest --shard -o FILE` writes
 * (FILE.lock): two ingests into one FILE each wrote their own temporary
 * file and renamed it, the last silently replacing the first.
 */
int guard_lock_file(const char *file);
/* Removes DIR.lock and drops the lock fd of guard_lock. */
void guard_unlock(const char *dir, int fd);

#endif
