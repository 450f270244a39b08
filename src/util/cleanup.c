/* cleanup.c: the signal handler and the stale-directory sweep of cleanup.h. */
#include "util/cleanup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/diag.h"
#include "util/fs.h"
#include "util/xalloc.h"

static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NSIGNALS (sizeof(signals) / sizeof(signals[0]))
/*
 * A crash cleans up too: a division by zero or a bad pointer in an analysis
 * left DIR.tmp.<pid> and DIR.lock behind (issue #51). These are never held
 * back (cleanup_hold): one raised by the code itself while blocked kills at once.
 */
static const int fatal[] = {SIGFPE, SIGSEGV, SIGBUS, SIGILL, SIGABRT};
#define NFATAL (sizeof(fatal) / sizeof(fatal[0]))

static char tmp_path[PATH_MAX];
/* tmp_path as the messages print it, escaped (diag_escape) when armed: the handler may not allocate. */
static char tmp_said[4 * PATH_MAX];
static volatile sig_atomic_t armed;
static char lock_path[PATH_MAX];
static volatile sig_atomic_t have_lock;

void cleanup_lock(const char *lockpath)
{
	have_lock = 0;
	if (!lockpath || strlen(lockpath) >= sizeof(lock_path))
		return;
	memcpy(lock_path, lockpath, strlen(lockpath) + 1);
	have_lock = 1;
}

/* The lock file, removed while still held (as guard_unlock does). */
static void drop_lock(void)
{
	if (have_lock) {
		have_lock = 0;
		unlink(lock_path);
	}
}
static struct sigaction saved[NSIGNALS], saved_fatal[NFATAL];
static int have_saved;
/*
 * The stack the handlers run on, so that a stack overflow (SIGSEGV) still
 * cleans up: room for remove_at's 4 KiB per level, 17 levels deep.
 */
static char alt_stack[1 << 18] __attribute__((aligned(16)));

struct dirent64_raw {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/*
 * rm -rf of name under dirfd with calls that are safe in a signal handler
 * (no malloc, no stdio: getdents64, unlinkat, openat). The output tree is a
 * few levels deep; deeper than 16 is left alone.
 */
static void remove_at(int dirfd, const char *name, int depth)
{
	if (unlinkat(dirfd, name, 0) == 0 || (errno != EISDIR && errno != EPERM) || depth > 16)
		return;
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	if (fd < 0)
		return;
	/* Removing entries while reading the directory may skip some: read again until none is left. */
	for (int pass = 0; pass < 64; pass++) {
		char buf[4096] __attribute__((aligned(8)));
		int removed = 0;
		lseek(fd, 0, SEEK_SET);
		long n;
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
			for (long off = 0; off < n;) {
				struct dirent64_raw *d = (struct dirent64_raw *)(buf + off);
				off += d->d_reclen;
				if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
					continue;
				remove_at(fd, d->d_name, depth + 1);
				removed = 1;
			}
		}
		if (!removed)
			break;
	}
	close(fd);
	unlinkat(dirfd, name, AT_REMOVEDIR);
}

static void say(const char *s)
{
	ssize_t r = write(2, s, strlen(s));
	(void)r;
}

static int is_fatal(int sig)
{
	for (size_t i = 0; i < NFATAL; i++)
		if (fatal[i] == sig)
			return 1;
	return 0;
}

/*
 * SIGINT, SIGTERM, SIGHUP: exit 128 + sig. A crash (fatal[]): the same
 * cleanup, then the signal again with its default action, so that the exit
 * status (and a core dump) still says what happened.
 */
static void on_signal(int sig)
{
	int crash = is_fatal(sig);
	if (armed) {
		armed = 0;
		remove_at(AT_FDCWD, tmp_path, 0);
		say(crash ? "perfstudy: crashed; removed " : "perfstudy: interrupted; removed ");
		say(tmp_said);
		say(", the previous output is unchanged\n");
	}
	drop_lock();
	if (!crash)
		_exit(128 + sig);
	/*
	 * The disposition from before: the default action, or a sanitizer's
	 * handler that still reports the crash. Delivered when this handler
	 * returns (sig is blocked in it); a fault also recurs then.
	 */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	for (size_t i = 0; i < NFATAL; i++)
		if (fatal[i] == sig && have_saved && saved_fatal[i].sa_handler != SIG_IGN)
			dfl = saved_fatal[i];
	sigaction(sig, &dfl, NULL);
	raise(sig);
}

/* Out of memory (xalloc.h): the same as a signal, in the thread that ran out; exit 3 follows. */
static void on_oom(void)
{
	if (armed) {
		armed = 0;
		remove_at(AT_FDCWD, tmp_path, 0);
		say("perfstudy: removed ");
		say(tmp_said);
		say(", the previous output is unchanged\n");
	}
	drop_lock();
}

/* Installs the handlers, once; the dispositions before are kept for restore_signals. */
static void catch_signals(void)
{
	if (have_saved)
		return;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSIGNALS; i++)
		sigaddset(&sa.sa_mask, signals[i]);
	/* A signal the caller ignores (nohup) stays ignored. */
	for (size_t i = 0; i < NSIGNALS; i++) {
		sigaction(signals[i], NULL, &saved[i]);
		if (saved[i].sa_handler != SIG_IGN)
			sigaction(signals[i], &sa, NULL);
	}
	/* One already set up (a sanitizer's) is kept: its handler may run on it after ours. */
	stack_t ss;
	memset(&ss, 0, sizeof(ss));
	if (sigaltstack(NULL, &ss) == 0 && !(ss.ss_flags & SS_DISABLE)) {
		sa.sa_flags |= SA_ONSTACK;
	} else {
		memset(&ss, 0, sizeof(ss));
		ss.ss_sp = alt_stack;
		ss.ss_size = sizeof(alt_stack);
		if (sigaltstack(&ss, NULL) == 0)
			sa.sa_flags |= SA_ONSTACK;
	}
	for (size_t i = 0; i < NFATAL; i++) {
		sigaction(fatal[i], NULL, &saved_fatal[i]);
		sigaction(fatal[i], &sa, NULL);
	}
	have_saved = 1;
}

static void restore_signals(void)
{
	if (!have_saved)
		return;
	for (size_t i = 0; i < NSIGNALS; i++)
		sigaction(signals[i], &saved[i], NULL);
	for (size_t i = 0; i < NFATAL; i++)
		sigaction(fatal[i], &saved_fatal[i], NULL);
	have_saved = 0;
}

void cleanup_catch(void)
{
	catch_signals();
}

void cleanup_arm(const char *tmpdir)
{
	size_t n = strlen(tmpdir);
	if (n >= sizeof(tmp_path))
		n = sizeof(tmp_path) - 1;
	memcpy(tmp_path, tmpdir, n);
	tmp_path[n] = '\0';
	/* A newline or an escape sequence in -o would forge a line or drive the terminal (issue #51). */
	char *said = diag_escape(tmp_path);
	n = strlen(said);
	if (n >= sizeof(tmp_said))
		n = sizeof(tmp_said) - 1;
	memcpy(tmp_said, said, n);
	tmp_said[n] = '\0';
	free(said);
	catch_signals();
	armed = 1;
	xalloc_on_oom(on_oom);
}

void cleanup_disarm(void)
{
	armed = 0;
	xalloc_on_oom(NULL);
	/* While a lock file is held the handlers stay: a signal still removes it (cleanup_release ends that). */
	if (!have_lock)
		restore_signals();
}

void cleanup_release(void)
{
	if (!armed && !have_lock)
		restore_signals();
}

void cleanup_in_child(void)
{
	armed = 0;
	have_lock = 0;
	xalloc_on_oom(NULL);
	restore_signals();
}

void cleanup_hold(int on)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < NSIGNALS; i++)
		sigaddset(&set, signals[i]);
	sigprocmask(on ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

int cleanup_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t set, old;
	sigemptyset(&set);
	for (size_t i = 0; i < NSIGNALS; i++)
		sigaddset(&set, signals[i]);
	/* the new thread inherits the mask; the caller's own comes back as it was */
	pthread_sigmask(SIG_BLOCK, &set, &old);
	int r = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

/* The pid in name = base + ".tmp." or ".old." + digits, or 0. */
static long stale_pid(const char *name, const char *base, const char **kind)
{
	size_t n = strlen(base);
	if (strncmp(name, base, n))
		return 0;
	name += n;
	if (!strncmp(name, ".tmp.", 5))
		*kind = "tmp";
	else if (!strncmp(name, ".old.", 5))
		*kind = "old";
	else
		return 0;
	name += 5;
	if (!*name || strspn(name, "0123456789") != strlen(name) || strlen(name) > 9)
		return 0;
	return strtol(name, NULL, 10);
}

int cleanup_stale(const char *outdir, int quiet)
{
	char *copy = xstrdup(outdir);
	char *slash = strrchr(copy, '/');
	const char *dir = ".", *base = copy;
	if (slash) {
		*slash = '\0';
		dir = slash == copy ? "/" : copy;
		base = slash + 1;
	}
	int ret = 0;
	DIR *d = opendir(dir);
	if (!d) {
		free(copy);
		return 0; /* the parent does not exist yet: nothing stale */
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *kind;
		long pid = stale_pid(e->d_name, base, &kind);
		if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		/* Only what perfstudy made and marked (fs.h), or an empty directory, is its to remove. */
		if (!fs_is_partial(p, e->d_name)) {
			if (rmdir(p) == 0 && !quiet)
				diag_line(stderr, "perfstudy: removed the empty directory %s", p);
			free(p);
			continue;
		}
		if (!strcmp(kind, "old") && fs_is_dir(outdir) < 0) {
			if (rename(p, outdir) == 0) {
				fs_unmark_partial(outdir);
				if (!quiet)
					diag_line(stderr, "perfstudy: restored the previous output from %s (a build was killed)", p);
			} else {
				diag_syserror(p, "cannot move the previous output back to '%s': %s", outdir, strerror(errno));
				ret = -1;
			}
		} else {
			if (!quiet)
				diag_line(stderr, "perfstudy: removing %s, left by a build that was killed", p);
			if (fs_remove_tree(p) < 0)
				ret = -1;
		}
		free(p);
	}
	closedir(d);
	free(copy);
	return ret;
}
