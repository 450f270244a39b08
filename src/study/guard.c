/*
 * study/guard.c: the checks a build makes before writing (guard.h). An
 * output path is compared with every input by file identity and by its
 * resolved path, since an output that does not exist yet has no inode.
 */
#include "study/guard.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "study/shard.h"
#include "util/cleanup.h"
#include "util/diag.h"
#include "util/fs.h"
#include "util/xalloc.h"

/*
 * The resolved absolute path of path, which need not exist: its parent
 * resolved, then its last component. NULL when even the parent does not
 * exist (then it cannot be an input).
 */
static char *resolve(const char *path)
{
	char *r = realpath(path, NULL);
	if (r)
		return r;
	char *copy = xstrdup(path);
	while (strlen(copy) > 1 && copy[strlen(copy) - 1] == '/')
		copy[strlen(copy) - 1] = '\0';
	char *slash = strrchr(copy, '/');
	const char *dir = ".", *base = copy;
	if (slash) {
		*slash = '\0';
		dir = slash == copy ? "/" : copy;
		base = slash + 1;
	}
	char *pdir = realpath(dir, NULL);
	char *out = pdir ? xasprintf("%s%s%s", pdir, strcmp(pdir, "/") ? "/" : "", base) : NULL;
	free(pdir);
	free(copy);
	return out;
}

/*
 * Calls fn on every input of the build: command-line inputs, manifests,
 * traces, runs' other inputs, hardware files; stops at its first nonzero.
 */
static int each_input(const struct plan *p, const char *const *inputs, size_t n, int (*fn)(const char *in, void *ctx),
		      void *ctx)
{
	for (size_t i = 0; i < n; i++)
		if (fn(inputs[i], ctx))
			return -1;
	for (size_t e = 0; e < p->nexp; e++) {
		const struct exp_plan *x = &p->exps[e];
		if (x->source && fn(x->source, ctx))
			return -1;
		for (size_t r = 0; r < x->nruns; r++) {
			for (size_t t = 0; t < x->runs[r].ntraces; t++)
				if (fn(x->runs[r].traces[t], ctx))
					return -1;
			for (size_t t = 0; t < x->runs[r].nlogs; t++)
				if (fn(x->runs[r].logs[t], ctx))
					return -1;
		}
		const struct manifest *m = x->manifest;
		if (!m)
			continue;
		if ((m->hardware.nvidia_smi && fn(m->hardware.nvidia_smi, ctx)) ||
		    (m->hardware.topology && fn(m->hardware.topology, ctx)))
			return -1;
		for (size_t r = 0; r < m->nruns; r++)
			for (size_t i = 0; i < m->runs[r].ninputs; i++)
				if (fn(m->runs[r].inputs[i], ctx))
					return -1;
	}
	return 0;
}

struct out_file {
	const char *out;
	char *real;        /* resolve(out), may be NULL */
	int have;          /* out exists: st is its identity */
	struct stat st;
};

static int same_as_out(const char *in, void *ctx)
{
	struct out_file *o = ctx;
	struct stat st;
	int same = o->have && stat(in, &st) == 0 && st.st_dev == o->st.st_dev && st.st_ino == o->st.st_ino;
	if (!same && o->real) {
		char *r = realpath(in, NULL);
		same = r && !strcmp(r, o->real);
		free(r);
	}
	if (same)
		diag_error(o->out, "the output is also an input (%s): refusing to overwrite it", in);
	return same;
}

int guard_output_file(const char *out, const struct plan *p, const char *const *inputs, size_t n)
{
	/* Prevents `ingest -o t.json t.json` replacing its own trace or manifest with a shard. */
	struct out_file o = {.out = out, .real = resolve(out)};
	o.have = stat(out, &o.st) == 0;
	int r = each_input(p, inputs, n, same_as_out, &o);
	free(o.real);
	if (r < 0)
		return -1;
	/*
	 * Only a shard may be replaced, and that is known before anything is
	 * read: `ingest -o thesis.db` once made a user's database (or notes.txt)
	 * a shard, and -o onto a directory failed after all the reading.
	 */
	if (o.have && S_ISDIR(o.st.st_mode)) {
		diag_error(out, "the output is a directory; expected the shard database file to write (-o FILE.db)");
		return -1;
	}
	if (o.have && (!S_ISREG(o.st.st_mode) || !shard_is_shard(out))) {
		diag_error(out, "exists and is not a perfstudy shard database: refusing to replace it "
				"(remove it or choose another -o)");
		return -1;
	}
	return 0;
}

struct out_dir {
	const char *dir;
	char *real;        /* resolve(dir) */
	size_t len;
};

static int inside_out(const char *in, void *ctx)
{
	struct out_dir *o = ctx;
	char *r = realpath(in, NULL);
	int inside = r && !strncmp(r, o->real, o->len) &&
		     (r[o->len] == '\0' || r[o->len] == '/' || !strcmp(o->real, "/"));
	free(r);
	if (inside)
		diag_error(in, "input is inside the output directory %s, which the build replaces whole: "
			       "move it out or choose another -o", o->dir);
	return inside;
}

int guard_output_dir(const char *dir, const struct plan *p, const char *const *inputs, size_t n)
{
	/* Prevents the swap deleting inputs stored in the output directory (`build site/tr -o site`). */
	struct out_dir o = {.dir = dir, .real = resolve(dir)};
	if (!o.real)
		return 0; /* its parent does not exist yet: no input can be inside */
	o.len = strlen(o.real);
	int r = each_input(p, inputs, n, inside_out, &o);
	free(o.real);
	return r;
}

/*
 * What perfstudy writes into a lock file it creates. A lock file that
 * exists already must hold this, or nothing (one being created right now,
 * or made by an older perfstudy): anything else is not perfstudy's to lock
 * and remove (`build -o flake` once deleted a user's flake.lock).
 */
#define LOCK_TEXT "perfstudy lock: a build or ingest is writing the output beside this file\n"

/* Whether the open file fd is a lock file perfstudy made (LOCK_TEXT or empty). */
static int lock_is_ours(int fd)
{
	struct stat st;
	char got[sizeof(LOCK_TEXT)];
	size_t n = sizeof(LOCK_TEXT) - 1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (st.st_size == 0)
		return 1;
	return (size_t)st.st_size == n && pread(fd, got, n, 0) == (ssize_t)n && !memcmp(got, LOCK_TEXT, n);
}

/* Opens DIR.lock, making its parent when missing; -1 after diag. */
static int open_lock(const char *path)
{
	int made = 1;
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 && errno == ENOENT) {
		char *parent = xstrdup(path), *slash = strrchr(parent, '/');
		if (slash && slash != parent) {
			*slash = '\0';
			fs_mkdirs(parent);
		}
		free(parent);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	}
	if (fd < 0 && errno == EEXIST) {
		made = 0;
		fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		if (fd >= 0 && !lock_is_ours(fd)) {
			close(fd);
			diag_error(path, "exists and is not a perfstudy lock file: refusing to use or remove it "
					 "(move it away, or choose another -o)");
			return -1;
		}
	}
	if (fd < 0) {
		diag_syserror(path, "cannot create the output's lock file: %s", strerror(errno));
		return -1;
	}
	if (made && write(fd, LOCK_TEXT, sizeof(LOCK_TEXT) - 1) != (ssize_t)(sizeof(LOCK_TEXT) - 1)) {
		diag_syserror(path, "cannot write the output's lock file: %s", strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	return fd;
}

static int lock_beside(const char *dir, const char *what);

int guard_lock(const char *dir)
{
	return lock_beside(dir, "directory");
}

int guard_lock_file(const char *file)
{
	return lock_beside(file, "file");
}

static int lock_beside(const char *dir, const char *what)
{
	/*
	 * Prevents two builds into one directory both saying "wrote" while
	 * the later swap silently discards the other's result. The lock file
	 * lies beside the directory, never in the site; its holder removes
	 * it when done (guard_unlock), so a build that locked the file just
	 * removed checks that it still is DIR.lock and tries again.
	 */
	char *path = xasprintf("%s.lock", dir);
	int fd;
	/*
	 * From before the file exists until cleanup_lock names it, signals wait
	 * (cleanup_hold) and the handlers are in place (cleanup_catch): a
	 * SIGINT in a build's first milliseconds left DIR.lock behind.
	 */
	cleanup_hold(1);
	cleanup_catch();
	for (;;) {
		fd = open_lock(path);
		if (fd < 0)
			break;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			if (errno == EWOULDBLOCK)
				diag_error(dir, "another perfstudy build is writing this output %s (it holds %s); "
					       "not waiting for it: run builds into one %s one after the other",
					   what, path, what);
			else
				diag_syserror(path, "cannot lock: %s", strerror(errno));
			close(fd);
			fd = -1;
			break;
		}
		struct stat held, now;
		if (fstat(fd, &held) == 0 && stat(path, &now) == 0 && held.st_dev == now.st_dev &&
		    held.st_ino == now.st_ino) {
			cleanup_lock(path); /* a signal or running out of memory removes it too */
			break;
		}
		close(fd); /* its holder removed it as we locked it: lock the new one */
	}
	cleanup_hold(0);
	free(path);
	return fd;
}

void guard_unlock(const char *dir, int fd)
{
	/* Removed while still held, so that no build locks a file no longer named DIR.lock (see guard_lock). */
	char *path = xasprintf("%s.lock", dir);
	cleanup_lock(NULL); /* first: once removed, the name may be the next build's lock */
	unlink(path);
	close(fd);
	free(path);
	cleanup_release();
}
