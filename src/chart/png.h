/*
 * png.h: writing a cairo RGB24 image surface's pixels as a PNG file.
 */
#ifndef PERFSTUDY_PNG_H
#define PERFSTUDY_PNG_H

#include "util/buf.h"

/*
 * Appends the PNG (8-bit RGB, pHYs at dpi) of width x height pixels of
 * cairo's CAIRO_FORMAT_RGB24 layout (one native-endian uint32 0x00RRGGBB
 * per pixel, rows stride bytes apart) to out. Returns 0, or -1 when zlib
 * fails or the size is empty.
 */
int png_encode_rgb24(const unsigned char *data, int width, int height, int stride, double dpi, struct buf *out);

/*
 * Memory kept from one PNG to the next (the pixels, about 9 MB a figure at
 * 300 dpi; a batch of filtered rows and a chunk of compressed bytes). Made afresh for each, every
 * block of it was mapped and faulted in page by page (main.c has blocks of
 * 1 MiB and more mapped), some 5,000 page faults a figure. The contents
 * are not cleared between uses. Zeroed, the struct holds nothing;
 * png_scratch_release frees it.
 */
struct png_scratch {
	unsigned char *pixels, *rows, *z;
	size_t pixels_cap, rows_cap, z_cap;
};
void png_scratch_release(struct png_scratch *s);
/* n bytes of *p (capacity *cap), grown when needed; the contents are not kept. */
unsigned char *png_scratch_take(unsigned char **p, size_t *cap, size_t n);
/* As png_encode_rgb24, with its buffers from s (NULL: made and freed here). */
int png_encode_rgb24_with(struct png_scratch *s, const unsigned char *data, int width, int height, int stride,
			  double dpi, struct buf *out);

#endif
