/*
 * cleanup.h: what an interrupted build leaves behind: nothing.
 *
 * A build writes into DIR.tmp.<pid> and swaps it in at the end (fs.h). When
 * it is stopped by SIGINT, SIGTERM or SIGHUP, the handler installed by
 * cleanup_arm() removes that temporary directory with async-signal-safe
 * calls only and exits 130, 143 or 129 (128 + the signal); the previous
 * output was never touched. A crash (SIGSEGV, SIGFPE, SIGBUS, SIGILL,
 * SIGABRT) removes it and the lock file the same way, on a stack of its
 * own, then raises the signal again with the disposition from before (the
 * default action, or a sanitizer's report), so that the exit status still
 * names the signal. Running out of memory (xalloc.h) removes it the
 * same way before exit 3. The notes print the path escaped as diag.h
 * says, made when armed: the handler may not allocate. SIGKILL cannot be caught: what it leaves
 * (a DIR.tmp.<pid>, or, killed between the two renames of the swap, the
 * previous output still at DIR.old.<pid>) is put right by cleanup_stale() at
 * the start of the next build into DIR.
 */
#ifndef PERFSTUDY_CLEANUP_H
#define PERFSTUDY_CLEANUP_H

#include <pthread.h>

/* Installs the handlers; tmpdir (copied) is removed if a signal comes. */
void cleanup_arm(const char *tmpdir);
/*
 * The lock file held now (study/guard.c: DIR.lock, FILE.lock), or NULL when
 * it is released: a signal or running out of memory removes it with the
 * temporary output, as guard_unlock would (the kernel releases the lock
 * itself), so that nothing is left beside the output. Set it after the lock
 * is taken and clear it before the file is removed: a path cleared late
 * could name the next build's lock.
 */
void cleanup_lock(const char *lockpath);
/*
 * Installs the handlers without a temporary output yet: from then on a
 * signal removes the lock file cleanup_lock() names (study/guard.c calls it,
 * signals held back, before it creates DIR.lock, so that no moment is left
 * in which a signal leaves the lock file behind).
 */
void cleanup_catch(void);
/*
 * Forgets tmpdir (it was moved into place or removed); the handlers before
 * cleanup_arm() or cleanup_catch() again, unless a lock file is still held.
 */
void cleanup_disarm(void);
/* The handlers before again once neither a temporary output nor a lock file is held (after guard_unlock). */
void cleanup_release(void);
/*
 * In a process forked to help the build (chart_many.c draws figures in
 * several): it owns neither the temporary output nor the lock file, so a
 * signal or running out of memory there must not remove them. Forgets both
 * and puts back the signal dispositions from before cleanup_arm(); the
 * parent, which still holds them, cleans up.
 */
void cleanup_in_child(void);
/* Holds the signals back (on) or lets them through (off), around the swap. */
void cleanup_hold(int on);
/*
 * pthread_create(t, NULL, fn, arg) for a thread that never takes SIGINT,
 * SIGTERM or SIGHUP (it starts with them blocked): the handler then runs
 * on the thread that writes DIR.tmp.<pid> (the store, the site), between
 * two of its calls, so that no write there races the handler's removal of
 * it. Other threads only read and parse. Returns pthread_create's value.
 */
int cleanup_thread(pthread_t *t, void *(*fn)(void *), void *arg);
/*
 * Removes DIR.tmp.<pid> and DIR.old.<pid> of processes that no longer run,
 * first moving DIR.old.<pid> back to DIR when DIR is missing (a build killed
 * mid-swap), but only those that hold perfstudy's mark naming them
 * (fs_is_partial), and empty ones: anything else of that name is the
 * user's, and stays. Says what it did on stderr unless quiet. Returns 0
 * or -1 after diag.
 */
int cleanup_stale(const char *outdir, int quiet);

#endif
