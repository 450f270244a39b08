/*
 * fuzz_ingest.c: a whole file through ingest_file(): gzip inflating, format
 * detection and whichever reader claims the content. The bytes are handed
 * over as an in-memory file (memfd), so nothing touches the disk.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "util/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	diag_set_quiet(1);
	int fd = memfd_create("fuzz", 0);
	if (fd < 0) {
		perror("memfd_create");
		abort();
	}
	size_t off = 0;
	while (off < size) {
		ssize_t w = write(fd, data + off, size - off);
		if (w <= 0) {
			perror("write");
			abort();
		}
		off += (size_t)w;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct ingest_sink sink;
	struct ingest_counts counts;
	struct source_meta meta;
	const char *format;
	fuzz_check_sink(&sink);
	ingest_file(path, &sink, &counts, &format, &meta);
	close(fd);
	diag_reset();
	return 0;
}
