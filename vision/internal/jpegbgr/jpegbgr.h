#ifndef DICEWATCH_JPEGBGR_H
#define DICEWATCH_JPEGBGR_H

#include <stddef.h>

typedef struct dw_jpeg dw_jpeg;

// dw_jpeg_open reads the header of the JPEG in buf (which must stay until
// dw_jpeg_close). It returns NULL when the image is not one this package
// decodes as OpenCV would (see decode.go), else the decoder, with the
// image's size in *w and *h.
dw_jpeg* dw_jpeg_open(const unsigned char* buf, size_t len, int* w, int* h);

// dw_jpeg_read decodes the image into dst as BGR rows step bytes apart.
// It returns 0, or -1 on a libjpeg error.
int dw_jpeg_read(dw_jpeg* j, unsigned char* dst, size_t step);

// dw_jpeg_close frees the decoder.
void dw_jpeg_close(dw_jpeg* j);

#endif
