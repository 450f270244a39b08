/*
 * scratch.h: an unlinked temporary file for what does not stay in memory.
 *
 * A study of a thousand ranks makes more per-step rows and more loaded
 * ranks than its memory bound (1.2x the largest trace + 64 MiB) holds; the
 * long tables (table.c) and the rank cache (analyze/lib/rankdata.c) keep what
 * is over their share here and read it back with pread, so the bytes sit in
 * the kernel's page cache, not in the process. The file is made in $TMPDIR
 * (else /tmp) and unlinked at once: nothing is left behind, even after
 * SIGKILL. It holds this process's own bytes (pointers included) and is
 * never read by anything else. A failure to create, write or read it (a
 * full disk) is not the input's fault and cannot be handed back through the
 * callers (table_set_* return nothing): it says what failed and where, and
 * exits 3 through xalloc_fatal, as running out of memory does.
 */
#ifndef PERFSTUDY_SCRATCH_H
#define PERFSTUDY_SCRATCH_H

#include <stddef.h>
#include <sys/types.h>

struct scratch {
	int fd;    /* -1 until the first write */
	off_t end; /* bytes appended so far */
};

#define SCRATCH_INIT {-1, 0}

/* Appends n bytes and returns their offset; opens the file on first use. */
off_t scratch_append(struct scratch *s, const void *p, size_t n);
/* Writes n bytes at off (within what was appended, or at the end). */
void scratch_write(struct scratch *s, const void *p, size_t n, off_t off);
/* Reads back n bytes written at off. */
void scratch_read(const struct scratch *s, void *p, size_t n, off_t off);
/* Closes the file (its blocks are freed); s is empty again. */
void scratch_close(struct scratch *s);

#endif
