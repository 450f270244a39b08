/*
 * embedded.h: templates/ and assets/ compiled into the binary.
 *
 * tools/embed.c generates the table at build time; paths are as in the
 * source tree ("templates/experiment.tpl", "assets/style.css"). The bytes are
 * NUL-terminated (the NUL is not counted in size).
 */
#ifndef PERFSTUDY_EMBEDDED_H
#define PERFSTUDY_EMBEDDED_H

struct embedded_file {
	const char *path;
	const char *data;
	unsigned long size;
};

extern const struct embedded_file embedded_files[];
extern const unsigned long embedded_count;

#endif
