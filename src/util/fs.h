/*
 * fs.h: the few file-system operations the build needs.
 *
 * The build writes its whole output into a fresh directory beside the
 * target and swaps it in at the end (fs_replace_dir), so a failed build
 * never leaves a half-written site. All functions report through diag and
 * return 0 or -1.
 */
#ifndef PERFSTUDY_FS_H
#define PERFSTUDY_FS_H

#include <stddef.h>
#include <stdio.h>

/* mkdir -p. */
int fs_mkdirs(const char *path);
/* rm -rf; does not follow symlinks. */
int fs_remove_tree(const char *path);
/* Replaces target by fresh (both in the same parent directory). */
int fs_replace_dir(const char *fresh, const char *target);
/*
 * The mark of a partial output: a file FS_PARTIAL_MARK inside a directory
 * perfstudy made or moved aside (DIR.tmp.<pid>, DIR.old.<pid>) holding
 * "perfstudy partial output: <name>\n", name the directory's own file name
 * as it is meant to be swept. fs_mark_partial writes it into dir naming
 * name (0, or -1 after diag); fs_unmark_partial removes it; fs_is_partial
 * says whether dir holds the mark naming name: only such directories, and
 * empty ones, are perfstudy's to remove (cleanup_stale), so that a user's
 * site.old.2024/ is never taken for a killed build's leftover.
 */
#define FS_PARTIAL_MARK ".perfstudy-partial"
int fs_mark_partial(const char *dir, const char *name);
void fs_unmark_partial(const char *dir);
int fs_is_partial(const char *dir, const char *name);
/* 1 when path is a directory, 0 when not, -1 when it does not exist. */
int fs_is_dir(const char *path);
/*
 * Opens path for reading when it is a regular file: returns the descriptor
 * (blocking, the caller closes it) with *size set to the file's size, or -1
 * after diag. A directory, FIFO, device or socket is an input error that
 * names what it is and that `what` ("a trace file", "a manifest") was
 * expected; opening never blocks (a FIFO without a writer).
 */
int fs_open_regular(const char *path, const char *what, long long *size);
/*
 * A file-name stem for an id (a run id, a series name) that is unique per
 * exact id: the id itself when it is [a-z0-9-] only, at most 64 bytes and
 * not of the hashed form; otherwise [a-z0-9_-] (upper case lowered, every
 * other byte '_', cut at 64 bytes) plus '_' and the first 16 hex digits of
 * the id's SHA-256. So "UP" and "up", "a.b" and "a_b", "a b" and "a_b" get
 * different files. The caller frees the result.
 */
char *fs_name_stem(const char *id);
/*
 * The name of a figure (or another output file) made for one id, a run or
 * a series: prefix, the id's fs_name_stem, then suffix (NULL: none), as
 * "memory_timeline_" "a_b_<16 hex>". Every figure named after an id gets
 * its name here, so that no figure kind can again map two ids to one file
 * (memory_timeline_<run> replaced characters itself: runs "UP" and "up"
 * shared a file, a 300-byte run id made a name too long to create). The
 * caller frees the result.
 */
char *fs_figure_name(const char *prefix, const char *id, const char *suffix);
/*
 * When path is a symbolic link that cannot be followed (its target does not
 * exist, or links loop), says so in words into why ("a symbolic link to
 * 'x.json', which does not exist", "a symbolic link that loops") and
 * returns 1; else 0. Directory inputs and manifest globs report such a link
 * as an input error naming it, rather than dropping it.
 */
int fs_broken_link(const char *path, char *why, size_t n);
/*
 * Creates a fresh temporary file beside path, "<path>.tmp.<pid>.<6 hex>",
 * with O_CREAT|O_EXCL|O_NOFOLLOW: never an existing file of that name nor
 * the target of a symbolic link planted there (a user's bench.json.tmp,
 * a link at diff.json.tmp). Returns the stream with *tmp set to the name
 * (the caller frees it, and removes the file unless it renames it), or
 * NULL after diag.
 */
FILE *fs_create_tmp(const char *path, char **tmp);
/* 1 when a and b both exist and are one file (device and inode, links followed), else 0. */
int fs_same_file(const char *a, const char *b);
/*
 * Writes len bytes to path through a fresh temporary file beside it
 * (fs_create_tmp) and a rename, so a failure
 * leaves any previous file at path in place and no temporary file behind.
 * Returns 0, or -1 after reporting "<path>: cannot write <what>: <reason>"
 * through diag (what NULL: "cannot write: <reason>").
 */
int fs_write_file_as(const char *path, const void *data, size_t len, const char *what);
/*
 * fs_write_file_as where fill writes the bytes into f (a temporary file
 * beside path) as it makes them, so they need not all be in memory at
 * once; fill returns 0, or -1 when a write failed (errno set, or 0: EIO).
 */
int fs_write_file_by(const char *path, const char *what, int (*fill)(FILE *f, void *ctx), void *ctx);
/* fs_write_file_as(path, data, len, NULL). */
int fs_write_file(const char *path, const void *data, size_t len);
/*
 * The end of a file written through a temporary one by a stream (a page,
 * a CSV, a merged trace): closes f, which wrote tmp, and renames tmp over
 * path. err is the errno of a write that already failed (0: none; a failed
 * close then counts, EIO where it sets no errno). Returns 0, or -1 with tmp
 * removed and any previous file at path in place, after reporting
 * "<tmp>: cannot write: <reason>" (the write or close) or
 * "<path>: cannot write: <reason>" (the rename) through diag.
 */
int fs_commit_tmp(FILE *f, const char *tmp, const char *path, int err);

#endif
