/*
 * csv_read.h: a small RFC 4180 CSV record reader for the profilers' CSV
 * exports (Nsight Compute, nvprof).
 *
 * Reads records from a buffer the caller owns: fields separated by ',',
 * optionally quoted with '"' (a doubled quote inside is one quote; quoted
 * fields may span lines), records ended by LF or CRLF. Profilers mix their
 * own lines into the file (`==PROF== Connected to process ...`); lines that
 * start with skip_prefix at the start of a record are skipped and counted.
 *
 * A record's fields are NUL-terminated copies held by the record and valid
 * until the next csv_next() on it; csv_record_release() frees them. A NUL
 * byte inside a field is given as U+2400 (the three bytes E2 90 80), so
 * that a field is never cut short at it.
 */
#ifndef PERFSTUDY_CSV_READ_H
#define PERFSTUDY_CSV_READ_H

#include <stddef.h>

struct csv_reader {
	const char *data;
	size_t len, pos;
	int line;                /* 1-based line of the next record */
	const char *skip_prefix; /* may be NULL */
	size_t skipped;          /* lines skipped for skip_prefix */
	/* Set when csv_next() fails: where and what. */
	int err_line, err_col;
	size_t err_offset;
	const char *err_msg;
};

struct csv_record {
	int line;        /* line the record starts on */
	size_t offset;   /* byte offset of its start */
	size_t n;        /* fields */
	char **fields;   /* n fields, NUL-terminated */
	size_t cap_fields;
	char *store;     /* the fields' bytes */
	size_t cap_store;
};

/* The longest field csv_next() accepts, in raw bytes (quotes and doubled quotes included). */
#define CSV_MAX_FIELD (16 << 20)

void csv_init(struct csv_reader *r, const char *data, size_t len, const char *skip_prefix);
/*
 * Reads the next record. Returns 1 with rec filled, 0 at the end of the
 * data, -1 on malformed input (err_* set: an unterminated quoted field, or
 * text after a closing quote). Blank lines are skipped.
 */
int csv_next(struct csv_reader *r, struct csv_record *rec);
void csv_record_release(struct csv_record *rec);
/* Index of the field equal to name in rec, or -1. */
int csv_find(const struct csv_record *rec, const char *name);

#endif
