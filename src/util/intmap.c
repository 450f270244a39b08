/* intmap.c: see intmap.h. */
#include "util/intmap.h"

#include <stdlib.h>
#include <string.h>

#include "util/hashkey.h"
#include "util/xalloc.h"

static size_t slot_of(const struct intmap *m, int64_t key)
{
	size_t i = (size_t)hashkey_u64((uint64_t)key) & (m->cap - 1);
	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

size_t intmap_index(struct intmap *m, int64_t key, size_t n)
{
	if ((m->n + 1) * 2 > m->cap) {
		struct intmap g = {.cap = m->cap ? m->cap * 2 : 64};
		g.keys = xcalloc(g.cap, sizeof(*g.keys));
		g.vals = xcalloc(g.cap, sizeof(*g.vals));
		for (size_t i = 0; i < m->cap; i++)
			if (m->vals[i]) {
				size_t j = slot_of(&g, m->keys[i]);
				g.keys[j] = m->keys[i];
				g.vals[j] = m->vals[i];
			}
		g.n = m->n;
		free(m->keys);
		free(m->vals);
		*m = g;
	}
	size_t i = slot_of(m, key);
	if (!m->vals[i]) {
		m->keys[i] = key;
		m->vals[i] = n + 1;
		m->n++;
	}
	return m->vals[i] - 1;
}

size_t intmap_get(const struct intmap *m, int64_t key)
{
	if (!m->cap)
		return SIZE_MAX;
	size_t i = slot_of(m, key);
	return m->vals[i] ? m->vals[i] - 1 : SIZE_MAX;
}

void intmap_free(struct intmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
