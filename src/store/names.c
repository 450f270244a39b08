/*
 * names.c: the interning of names. Every event names a kernel, operator or
 * range; a trace has thousands of events but a few hundred distinct names,
 * so an in-memory hash table in front of the `names` table gives each its
 * id without a query.
 */
#include "store/store_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/xalloc.h"

void store_names_init(struct store *s)
{
	s->nslots = 1024;
	s->slots = xcalloc(s->nslots, sizeof(*s->slots));
}

void store_names_release(struct store *s)
{
	for (size_t i = 0; i < s->nslots; i++)
		free(s->slots[i].name);
	free(s->slots);
}

/*
 * The name index's hash: eight bytes at a time (multiply, fold the high
 * half in), about 8x faster than byte-wise FNV-1a on kernel names of 100
 * bytes and more; it is called for every stored event. Ids are given in
 * order of first appearance, so the hash never shows in the store.
 */
static uint64_t name_hash(const char *p, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
	for (; n >= 8; n -= 8, p += 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	uint64_t w = 0;
	memcpy(&w, p, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

/*
 * Moves the name index into a fresh table of n slots, keeping the names
 * with ids up to last_id (freeing the others): open addressing cannot just
 * clear a slot.
 */
static void reinsert(struct store *s, size_t n, size_t last_id)
{
	struct name_slot *slots = xcalloc(n, sizeof(*slots));
	for (size_t i = 0; i < s->nslots; i++) {
		if (!s->slots[i].name)
			continue;
		if ((size_t)s->slots[i].id > last_id) {
			free(s->slots[i].name);
			continue;
		}
		size_t j = s->slots[i].hash & (n - 1);
		while (slots[j].name)
			j = (j + 1) & (n - 1);
		slots[j] = s->slots[i];
	}
	free(s->slots);
	s->slots = slots;
	s->nslots = n;
}

static void rehash(struct store *s)
{
	reinsert(s, s->nslots * 2, SIZE_MAX);
}

void store_names_forget_after(struct store *s, size_t last_id)
{
	if (s->nnames <= last_id)
		return;
	reinsert(s, s->nslots, last_id);
	s->nnames = last_id;
}

/* The NAME_* flags of a name, when it is first interned. */
static unsigned name_flags(const char *name)
{
	return (store_is_model_op(name) ? NAME_MODEL_OP : 0) |
	       (!strncmp(name, "enumerate(DataLoader)", 21) ? NAME_LOADER : 0);
}

/*
 * A slot matches on hash, then length, then bytes: memcmp on the length
 * already known, not strcmp, for the hit that every event makes (issue 55).
 */
static int slot_is(const struct name_slot *sl, uint64_t h, const char *name, size_t len)
{
	return sl->hash == h && sl->len == len && !memcmp(sl->name, name, len);
}

int64_t store_name_id(struct store *s, const char *name)
{
	unsigned flags;
	return store_name_id_flags(s, name, &flags);
}

int64_t store_name_id_flags(struct store *s, const char *name, unsigned *flags)
{
	/*
	 * A name past STORE_MAX_NAME is refused here, naming the input: every
	 * reader's names pass this way (a 20 MiB kernel name in a CSV cost 22 s
	 * and 486 MB, one past SQLite's limit was blamed on the store).
	 */
	size_t len = strlen(name);
	if (len > STORE_MAX_NAME) {
		diag_error(s->reading ? s->reading : s->path,
			   "a name of %zu bytes, more than %d MiB (it begins '%.40s'); refused", len,
			   STORE_MAX_NAME >> 20, name);
		return -1;
	}
	uint64_t h = name_hash(name, len);
	size_t j = h & (s->nslots - 1);
	while (s->slots[j].name) {
		if (slot_is(&s->slots[j], h, name, len)) {
			*flags = s->slots[j].flags;
			return s->slots[j].id;
		}
		j = (j + 1) & (s->nslots - 1);
	}
	int64_t id = (int64_t)s->nnames + 1;
	sqlite3_bind_int64(s->ins_name, 1, id);
	sqlite3_bind_text(s->ins_name, 2, name, -1, SQLITE_STATIC);
	int rc = sqlite3_step(s->ins_name);
	sqlite3_reset(s->ins_name);
	if (rc != SQLITE_DONE)
		return store_fail(s, "insert name");
	s->slots[j].name = xstrdup(name);
	s->slots[j].hash = h;
	s->slots[j].id = id;
	s->slots[j].len = len;
	s->slots[j].flags = *flags = name_flags(name);
	if (++s->nnames * 2 > s->nslots)
		rehash(s);
	return id;
}

int store_reload_names(struct store *s)
{
	sqlite3_stmt *st;
	if (store_sql_prepare(s, "prepare", "SELECT id, name FROM names", &st) < 0)
		return -1;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		size_t len = strlen(name);
		uint64_t h = name_hash(name, len);
		size_t j = h & (s->nslots - 1);
		while (s->slots[j].name && !slot_is(&s->slots[j], h, name, len))
			j = (j + 1) & (s->nslots - 1);
		if (!s->slots[j].name) {
			s->slots[j].name = xstrdup(name);
			s->slots[j].hash = h;
			s->slots[j].id = id;
			s->slots[j].len = len;
			s->slots[j].flags = name_flags(name);
			/* New names continue after the largest id; nnames >= names held keeps the table sparse. */
			if ((size_t)id > s->nnames)
				s->nnames = (size_t)id;
			while (s->nnames * 2 > s->nslots)
				rehash(s);
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, "read names");
	return 0;
}
