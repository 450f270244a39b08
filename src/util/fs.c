/* fs.c: directory creation, removal and the atomic swap of fs.h. */
#include "util/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/sha256.h"
#include "util/xalloc.h"

int fs_mkdirs(const char *path)
{
	char *p = xstrdup(path);
	int ret = 0;
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST) {
			diag_syserror(p, "cannot create directory: %s", strerror(errno));
			ret = -1;
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return ret;
}

int fs_remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(path) < 0) {
			diag_syserror(path, "cannot remove: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	DIR *d = opendir(path);
	if (!d) {
		diag_syserror(path, "cannot open directory: %s", strerror(errno));
		return -1;
	}
	int ret = 0;
	struct dirent *e;
	struct buf b;
	buf_init(&b);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		buf_reset(&b);
		buf_printf(&b, "%s/%s", path, e->d_name);
		if (fs_remove_tree(b.data) < 0)
			ret = -1;
	}
	buf_release(&b);
	closedir(d);
	if (rmdir(path) < 0) {
		diag_syserror(path, "cannot remove directory: %s", strerror(errno));
		ret = -1;
	}
	return ret;
}

int fs_is_dir(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -1;
	return S_ISDIR(st.st_mode) ? 1 : 0;
}

int fs_open_regular(const char *path, const char *what, long long *size)
{
	/*
	 * O_NONBLOCK so that a FIFO opens at once and is refused below instead of
	 * waiting for a writer; only regular files are read (a device such as
	 * /dev/zero or /dev/urandom would never end, a FIFO could block forever).
	 */
	int fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		diag_syserror(path, "cannot open: %s", strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		diag_syserror(path, "cannot stat: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		diag_error(path, "is a directory, expected %s", what);
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		diag_error(path, "is not a regular file (%s), expected %s",
			   S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) ? "a character device" :
			   S_ISBLK(st.st_mode) ? "a block device" : S_ISSOCK(st.st_mode) ? "a socket" : "a special file",
			   what);
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	*size = (long long)st.st_size;
	return fd;
}

int fs_replace_dir(const char *fresh, const char *target)
{
	struct stat st;
	if (lstat(target, &st) < 0) {
		if (rename(fresh, target) < 0) {
			diag_syserror(target, "cannot move the new output into place: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	/*
	 * Two renames: the old output stays whole until the new one is in
	 * place. It is marked first, as the DIR.old.<pid> it becomes, so that
	 * a build killed between the renames leaves something cleanup_stale
	 * knows for perfstudy's.
	 */
	char *old = xasprintf("%s.old.%ld", target, (long)getpid());
	const char *slash = strrchr(old, '/');
	int ret = 0;
	if (fs_mark_partial(target, slash ? slash + 1 : old) < 0) {
		ret = -1;
	} else if (rename(target, old) < 0) {
		diag_syserror(target, "cannot move the previous output aside: %s", strerror(errno));
		fs_unmark_partial(target);
		ret = -1;
	} else if (rename(fresh, target) < 0) {
		diag_syserror(target, "cannot move the new output into place: %s", strerror(errno));
		if (rename(old, target) == 0)
			fs_unmark_partial(target);
		ret = -1;
	} else {
		fs_remove_tree(old);
	}
	free(old);
	return ret;
}

/* The mark's text for a directory meant to be named name. */
static char *partial_text(const char *name)
{
	return xasprintf("perfstudy partial output: %s\n", name);
}

int fs_mark_partial(const char *dir, const char *name)
{
	/* Written in place, not through a temporary name: a kill leaves the mark or nothing. */
	char *path = xasprintf("%s/%s", dir, FS_PARTIAL_MARK), *text = partial_text(name);
	size_t n = strlen(text);
	int ret = -1;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd >= 0) {
		int wrote = write(fd, text, n) == (ssize_t)n;
		if (close(fd) == 0 && wrote)
			ret = 0;
	}
	if (ret < 0)
		diag_syserror(path, "cannot mark the output as perfstudy's partial output: %s", strerror(errno));
	free(path);
	free(text);
	return ret;
}

void fs_unmark_partial(const char *dir)
{
	char *path = xasprintf("%s/%s", dir, FS_PARTIAL_MARK);
	unlink(path);
	free(path);
}

int fs_is_partial(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, FS_PARTIAL_MARK), *want = partial_text(name);
	size_t n = strlen(want);
	char got[512];
	int same = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd >= 0) {
		struct stat st;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == n && n < sizeof(got)) {
			ssize_t r = read(fd, got, n);
			same = r == (ssize_t)n && !memcmp(got, want, n);
		}
		close(fd);
	}
	free(path);
	free(want);
	return same;
}


/* fs_create_tmp without the diagnostic: NULL with errno set. */
static FILE *create_tmp(const char *path, char **tmp)
{
	static unsigned long seq;
	int err = EEXIST;
	*tmp = NULL;
	for (int tries = 0; tries < 100 && err == EEXIST; tries++) {
		/* A name nobody else uses: the pid, a counter and the clock, tried until one is free. */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		unsigned long x = (unsigned long)ts.tv_nsec * 2654435761u ^ (unsigned long)ts.tv_sec ^ (++seq << 20);
		char *name = xasprintf("%s.tmp.%ld.%06lx", path, (long)getpid(), x & 0xffffff);
		/* O_EXCL: never an existing file, nor a symbolic link planted at the name. */
		int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd >= 0) {
			FILE *f = fdopen(fd, "wb");
			if (f) {
				*tmp = name;
				return f;
			}
			err = errno;
			close(fd);
			unlink(name);
		} else {
			err = errno;
		}
		free(name);
	}
	errno = err;
	return NULL;
}

FILE *fs_create_tmp(const char *path, char **tmp)
{
	FILE *f = create_tmp(path, tmp);
	if (!f)
		diag_syserror(path, "cannot create a temporary file beside it: %s", strerror(errno));
	return f;
}

int fs_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int fs_write_file_by(const char *path, const char *what, int (*fill)(FILE *f, void *ctx), void *ctx)
{
	char *tmp = NULL;
	const char *sp = what ? " " : "", *w = what ? what : "";
	FILE *f = create_tmp(path, &tmp);
	int ret = -1;

	if (!f) {
		diag_syserror(path, "cannot write%s%s: %s", sp, w, strerror(errno));
		goto out;
	}
	errno = 0;
	if (fill(f, ctx) < 0) {
		diag_syserror(path, "cannot write%s%s: %s", sp, w, strerror(errno ? errno : EIO));
		fclose(f);
		unlink(tmp);
		goto out;
	}
	/* A full disk often shows only when the last block is flushed. */
	if (fclose(f)) {
		diag_syserror(path, "cannot write%s%s: %s", sp, w, strerror(errno));
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path)) {
		diag_syserror(path, "cannot write%s%s: %s", sp, w, strerror(errno));
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	free(tmp);
	return ret;
}

struct bytes {
	const void *data;
	size_t len;
};

static int fill_bytes(FILE *f, void *ctx)
{
	const struct bytes *b = ctx;
	return fwrite(b->data, 1, b->len, f) == b->len ? 0 : -1;
}

int fs_write_file_as(const char *path, const void *data, size_t len, const char *what)
{
	struct bytes b = {data, len};
	return fs_write_file_by(path, what, fill_bytes, &b);
}

int fs_write_file(const char *path, const void *data, size_t len)
{
	return fs_write_file_as(path, data, len, NULL);
}

int fs_commit_tmp(FILE *f, const char *tmp, const char *path, int err)
{
	/* A full disk often shows only when the last block is flushed. */
	if (fclose(f) && !err)
		err = errno ? errno : EIO;
	if (err) {
		diag_syserror(tmp, "cannot write: %s", strerror(err));
		remove(tmp);
		return -1;
	}
	if (rename(tmp, path)) {
		diag_syserror(path, "cannot write: %s", strerror(errno));
		remove(tmp);
		return -1;
	}
	return 0;
}

/* Whether s ends in '_' and 16 lowercase hex digits, the form fs_name_stem gives hashed stems. */
static int looks_hashed(const char *s, size_t n)
{
	if (n < 17 || s[n - 17] != '_')
		return 0;
	for (size_t i = n - 16; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

char *fs_name_stem(const char *id)
{
	enum { MAX_STEM = 64 };
	size_t n = strlen(id);
	int plain = n > 0 && n <= MAX_STEM && !looks_hashed(id, n);
	for (size_t i = 0; plain && i < n; i++)
		if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= '0' && id[i] <= '9') || id[i] == '-'))
			plain = 0;
	if (plain)
		return xstrdup(id);
	/*
	 * A plain stem never holds '_', a hashed one always ends in
	 * "_<16 hex>": the two kinds cannot meet, and two hashed stems meet
	 * only when 64 bits of SHA-256 do.
	 */
	struct sha256 h;
	char hex[65];
	sha256_init(&h);
	sha256_update(&h, id, n);
	sha256_final_hex(&h, hex);
	size_t keep = n < MAX_STEM ? n : MAX_STEM;
	char *s = xmalloc(keep + 18);
	for (size_t i = 0; i < keep; i++) {
		char c = id[i];
		s[i] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ? c
		       : c >= 'A' && c <= 'Z'					     ? (char)(c - 'A' + 'a')
										     : '_';
	}
	s[keep] = '_';
	memcpy(s + keep + 1, hex, 16);
	s[keep + 17] = '\0';
	return s;
}

char *fs_figure_name(const char *prefix, const char *id, const char *suffix)
{
	char *stem = fs_name_stem(id);
	char *name = xasprintf("%s%s%s", prefix, stem, suffix ? suffix : "");
	free(stem);
	return name;
}

int fs_broken_link(const char *path, char *why, size_t n)
{
	struct stat st;
	if (lstat(path, &st) || !S_ISLNK(st.st_mode) || stat(path, &st) == 0)
		return 0;
	if (errno == ELOOP) {
		snprintf(why, n, "a symbolic link that loops");
		return 1;
	}
	char target[4096];
	ssize_t len = readlink(path, target, sizeof(target) - 1);
	if (len < 0)
		len = 0;
	target[len] = '\0';
	snprintf(why, n, "a symbolic link to '%s', which does not exist", target);
	return 1;
}
