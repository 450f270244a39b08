/*
 * rankpack.c: one rank's arrays packed and unpacked exactly (rankpack.h),
 * for rankdata.c's cache of loaded ranks.
 */
#include "analyze/lib/rankpack.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

struct packer {
	unsigned char *p;
	size_t n, cap;
};

static void put_varint(struct packer *w, int64_t v)
{
	uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	if (w->n + 10 > w->cap)
		w->p = xgrow(w->p, &w->cap, w->n + 10, 1);
	while (z >= 0x80) {
		w->p[w->n++] = (unsigned char)(z | 0x80);
		z >>= 7;
	}
	w->p[w->n++] = (unsigned char)z;
}

static int64_t get_varint(const unsigned char **p)
{
	uint64_t z = 0;
	int shift = 0;
	for (;;) {
		unsigned char b = *(*p)++;
		z |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
	}
	return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}

static void pack_ranges(struct packer *w, const struct rk_range *r, size_t n)
{
	put_varint(w, (int64_t)n);
	int64_t start = 0, tid = 0, key = 0;
	for (size_t i = 0; i < n; i++) {
		put_varint(w, (int64_t)((uint64_t)r[i].start - (uint64_t)start));
		put_varint(w, (int64_t)((uint64_t)r[i].end - (uint64_t)r[i].start));
		put_varint(w, (int64_t)((uint64_t)r[i].tid - (uint64_t)tid));
		put_varint(w, (int64_t)((uint64_t)r[i].key - (uint64_t)key));
		start = r[i].start;
		tid = r[i].tid;
		key = r[i].key;
	}
}

static struct rk_range *unpack_ranges(const unsigned char **p, size_t *n)
{
	*n = (size_t)get_varint(p);
	struct rk_range *r = *n ? xmalloc(*n * sizeof(*r)) : NULL;
	int64_t start = 0, tid = 0, key = 0;
	for (size_t i = 0; i < *n; i++) {
		start = (int64_t)((uint64_t)start + (uint64_t)get_varint(p));
		r[i].start = start;
		r[i].end = (int64_t)((uint64_t)start + (uint64_t)get_varint(p));
		tid = (int64_t)((uint64_t)tid + (uint64_t)get_varint(p));
		r[i].tid = tid;
		key = (int64_t)((uint64_t)key + (uint64_t)get_varint(p));
		r[i].key = key;
	}
	return r;
}

unsigned char *rank_pack(const struct rank_data *d, size_t *bytes)
{
	struct packer w = {0};
	put_varint(&w, (int64_t)d->nacts);
	int64_t start = 0, corr = 0, name = 0;
	for (size_t i = 0; i < d->nacts; i++) {
		const struct rk_act *a = &d->acts[i];
		size_t ck = strnlen(a->copy_kind, sizeof(a->copy_kind));
		put_varint(&w, (int64_t)((uint64_t)a->start - (uint64_t)start));
		put_varint(&w, (int64_t)((uint64_t)a->end - (uint64_t)a->start));
		put_varint(&w, (int64_t)((uint64_t)a->corr - (uint64_t)corr));
		put_varint(&w, (int64_t)((uint64_t)a->name_id - (uint64_t)name));
		put_varint(&w, a->bytes);
		put_varint(&w, a->stream);
		/* kind and class (three values each) and the copy kind's length, in one number */
		put_varint(&w, (int64_t)a->kind + 4 * (int64_t)a->cls + 16 * (int64_t)ck);
		if (w.n + ck > w.cap)
			w.p = xgrow(w.p, &w.cap, w.n + ck, 1);
		memcpy(w.p + w.n, a->copy_kind, ck);
		w.n += ck;
		start = a->start;
		corr = a->corr;
		name = a->name_id;
	}
	pack_ranges(&w, d->launches, d->nlaunches);
	pack_ranges(&w, d->annots, d->nannots);
	pack_ranges(&w, d->gpu_annots, d->ngpu_annots);
	pack_ranges(&w, d->cpu_ops, d->ncpu_ops);
	pack_ranges(&w, d->steps, d->nsteps);
	*bytes = w.n;
	/* give back what doubling did not use */
	void *q = w.p && w.n ? realloc(w.p, w.n) : NULL;
	return q ? q : w.p;
}

void rank_unpack(const unsigned char *p, struct rank_data *d)
{
	memset(d, 0, sizeof(*d));
	d->nacts = (size_t)get_varint(&p);
	d->acts = d->nacts ? xcalloc(d->nacts, sizeof(*d->acts)) : NULL;
	int64_t start = 0, corr = 0, name = 0;
	for (size_t i = 0; i < d->nacts; i++) {
		struct rk_act *a = &d->acts[i];
		start = (int64_t)((uint64_t)start + (uint64_t)get_varint(&p));
		a->start = start;
		a->end = (int64_t)((uint64_t)start + (uint64_t)get_varint(&p));
		corr = (int64_t)((uint64_t)corr + (uint64_t)get_varint(&p));
		a->corr = corr;
		name = (int64_t)((uint64_t)name + (uint64_t)get_varint(&p));
		a->name_id = name;
		a->bytes = get_varint(&p);
		a->stream = get_varint(&p);
		int64_t m = get_varint(&p);
		a->kind = (enum activity_kind)(m % 4);
		a->cls = (enum rk_class)(m / 4 % 4);
		size_t ck = (size_t)(m / 16);
		memcpy(a->copy_kind, p, ck);
		p += ck;
	}
	d->launches = unpack_ranges(&p, &d->nlaunches);
	d->annots = unpack_ranges(&p, &d->nannots);
	d->gpu_annots = unpack_ranges(&p, &d->ngpu_annots);
	d->cpu_ops = unpack_ranges(&p, &d->ncpu_ops);
	d->steps = unpack_ranges(&p, &d->nsteps);
}
