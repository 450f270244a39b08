/*
 * png.h: writing a cairo RGB24 image surface's pixels as a PNG file.
 */
#ifndef PERFSTUDY_PNG_H
#define PERFSTUDY_PNG_H

#include "../util/buf.h"

/*
 * Appends the PNG (8-bit RGB, pHYs at dpi) of width x height pixels of
 * cairo's CAIRO_FORMAT_RGB24 layout (one native-endian uint32 0x00RRGGBB
 * per pixel, rows stride bytes apart) to out. Returns 0, or -1 when zlib
 * fails or the size is empty.
 */
int png_encode_rgb24(const unsigned char *data, int width, int height, int stride, double dpi, struct buf *out);

#endif
