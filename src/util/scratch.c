/* scratch.c: the temporary file of scratch.h. */
#include "util/scratch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/diag.h"
#include "util/xalloc.h"

static const char *scratch_dir(void)
{
	const char *d = getenv("TMPDIR");
	return d && *d ? d : "/tmp";
}

/* Says what failed and exits 3 (xalloc_fatal allocates nothing after this). */
static void fail(const char *doing, int err) __attribute__((noreturn));
static void fail(const char *doing, int err)
{
	static char msg[700];
	char *dir = diag_escape(scratch_dir());
	snprintf(msg, sizeof(msg), "cannot %s perfstudy's temporary file in %s: %s", doing, dir, strerror(err));
	free(dir);
	xalloc_fatal(msg);
}

static void open_file(struct scratch *s)
{
	char *path = xasprintf("%s/perfstudy-scratch-XXXXXX", scratch_dir());
	int fd = mkstemp(path);
	int err = errno;
	if (fd >= 0)
		unlink(path); /* gone once closed, or once the process dies */
	free(path);
	if (fd < 0)
		fail("create", err);
	s->fd = fd;
	s->end = 0;
}

void scratch_write(struct scratch *s, const void *p, size_t n, off_t off)
{
	if (s->fd < 0)
		open_file(s);
	const char *c = p;
	while (n) {
		ssize_t w = pwrite(s->fd, c, n, off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			fail("write", w < 0 ? errno : ENOSPC);
		c += w;
		n -= (size_t)w;
		off += w;
	}
	if (off > s->end)
		s->end = off;
}

off_t scratch_append(struct scratch *s, const void *p, size_t n)
{
	off_t at = s->fd < 0 ? 0 : s->end;
	scratch_write(s, p, n, at);
	return at;
}

void scratch_read(const struct scratch *s, void *p, size_t n, off_t off)
{
	char *c = p;
	while (n) {
		ssize_t r = pread(s->fd, c, n, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			fail("read back", r < 0 ? errno : EIO);
		c += r;
		n -= (size_t)r;
		off += r;
	}
}

void scratch_close(struct scratch *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->end = 0;
}
