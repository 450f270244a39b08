/*
 * nvsmi_topo.c: the matrix `nvidia-smi topo -m` prints, into device links.
 *
 *         GPU0    GPU1    CPU Affinity    NUMA Affinity   GPU NUMA ID
 *   GPU0   X      NV18    0-31            0               N/A
 *   GPU1  NV18     X      0-31            0               N/A
 *
 *   Legend: ...
 *
 * Cells are tab-separated; the header is underlined with terminal escapes
 * (ESC[4m ... ESC[0m), which are dropped. The header's leading cells name
 * the devices (GPU0.., NIC0.., or a NIC's own name on older drivers) up to
 * "CPU Affinity"; a row is a device name, one cell per device, then the
 * affinities. Each unordered pair of devices becomes one link, in matrix
 * order (row before column), with the row's cell ("NV18", "SYS", "NODE",
 * "PHB", "PXB", "PIX", ...) and the row device's CPU and NUMA affinity as
 * printed. The matrix ends at the first empty line (the legend follows).
 */
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest.h"
#include "ingest/source.h"
#include "util/diag.h"
#include "util/xalloc.h"

#define MAX_DEV 64
#define MAX_CELLS (MAX_DEV + 8)

static int topo_detect(const char *head, size_t n)
{
	const char *e = memchr(head, '\n', n);
	size_t first = e ? (size_t)(e - head) : n;
	return source_find(head, first, "GPU0") && source_find(head, first, "CPU Affinity");
}

/* Copies the line [p, p + n) without terminal escapes and CR into a NUL-terminated string. */
static char *clean_line(const char *p, size_t n)
{
	char *s = xmalloc(n + 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\x1b' && i + 1 < n && p[i + 1] == '[') {
			i += 2;
			while (i < n && !((p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= 'a' && p[i] <= 'z')))
				i++;
			continue;
		}
		if (p[i] != '\r')
			s[k++] = p[i];
	}
	s[k] = '\0';
	return s;
}

/* Splits s at tabs in place, each cell trimmed of spaces; returns the number of cells. */
static size_t split_tabs(char *s, char **cells, size_t max)
{
	size_t n = 0;
	for (char *p = s;; ) {
		char *tab = strchr(p, '\t');
		if (tab)
			*tab = '\0';
		while (*p == ' ')
			p++;
		size_t len = strlen(p);
		while (len && p[len - 1] == ' ')
			p[--len] = '\0';
		if (n < max)
			cells[n++] = p;
		if (!tab)
			break;
		p = tab + 1;
	}
	return n;
}

static int topo_read(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	char *lines[MAX_DEV + 1] = {0};
	char *cells[MAX_DEV + 1][MAX_CELLS];
	size_t ncells[MAX_DEV + 1];
	size_t nlines = 0, pos = 0, ndev = 0;
	int ret = -1;
	/* The header and one row per device, up to the first empty line. */
	while (pos < src->len && nlines <= MAX_DEV) {
		const char *p = src->data + pos, *e = memchr(p, '\n', src->len - pos);
		size_t n = e ? (size_t)(e - p) : src->len - pos;
		pos += n + (e != NULL);
		char *l = clean_line(p, n);
		if (!l[strspn(l, " \t")]) {
			free(l);
			break;
		}
		lines[nlines] = l;
		ncells[nlines] = split_tabs(l, cells[nlines], MAX_CELLS);
		nlines++;
	}
	if (!nlines) { /* a blank first line: no header at all */
		diag_error(src->path, "line 1: expected device names then 'CPU Affinity' in the topology header");
		goto out;
	}
	/* Header: an empty corner cell, then device names up to "CPU Affinity". */
	size_t h = ncells[0], first = cells[0][0][0] ? 0 : 1;
	for (size_t i = first; i < h && strcmp(cells[0][i], "CPU Affinity"); i++)
		ndev++;
	if (!ndev || first + ndev >= h) {
		diag_error(src->path, "line 1: expected device names then 'CPU Affinity' in the topology header");
		goto out;
	}
	if (ndev > MAX_DEV || nlines - 1 < ndev) {
		diag_error(src->path, "line %d: %zu devices in the header but %zu matrix rows", (int)nlines + 1, ndev,
			   nlines - 1);
		goto out;
	}
	for (size_t r = 1; r <= ndev; r++) {
		if (ncells[r] < ndev + 1 || strcmp(cells[r][0], cells[0][first + r - 1])) {
			diag_error(src->path, "line %zu: expected the row of '%s' with %zu cells, got '%s' with %zu", r + 1,
				   cells[0][first + r - 1], ndev + 1, cells[r][0], ncells[r] - 1);
			goto out;
		}
		if (strcmp(cells[r][r], "X")) {
			diag_error(src->path, "line %zu: expected 'X' where '%s' meets itself, got '%s'", r + 1,
				   cells[r][0], cells[r][r]);
			goto out;
		}
	}
	for (size_t r = 1; r <= ndev; r++) {
		if (!strncmp(cells[r][0], "GPU", 3))
			counts->gpus++;
		for (size_t c = r + 1; c <= ndev; c++) {
			struct gpu_link l = {
				.a = cells[r][0],
				.b = cells[0][first + c - 1],
				.link = cells[r][c],
				.cpu_affinity = ncells[r] > ndev + 1 && cells[r][ndev + 1][0] ? cells[r][ndev + 1] : NULL,
				.numa_affinity = ncells[r] > ndev + 2 && cells[r][ndev + 2][0] ? cells[r][ndev + 2] : NULL,
			};
			counts->links++;
			counts->events++;
			if (sink->link && sink->link(sink->ctx, &l) < 0)
				goto out;
		}
	}
	struct trace_info info = {.format = "nvidia-smi-topo", .rank = -1, .world_size = -1, .epoch_offset_ns = -1};
	ret = sink->info && sink->info(sink->ctx, &info) < 0 ? -1 : 0;
out:
	for (size_t i = 0; i < nlines; i++)
		free(lines[i]);
	return ret;
}

const struct reader nvsmi_topo_reader = {
	.name = "nvidia-smi-topo",
	.detect = topo_detect,
	.read = topo_read,
};
