#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include "jpegbgr.h"

struct dw_jpeg {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr pub;
    jmp_buf jump;
};

static void dw_error_exit(j_common_ptr cinfo) {
    dw_jpeg* j = (dw_jpeg*)cinfo; // cinfo is the first member
    longjmp(j->jump, 1);
}

static void dw_quiet(j_common_ptr cinfo) {
    (void)cinfo;
}

static unsigned dw_u16(const unsigned char* p, int le) {
    return le ? (unsigned)p[0] | (unsigned)p[1] << 8 : (unsigned)p[0] << 8 | (unsigned)p[1];
}

static unsigned long dw_u32(const unsigned char* p, int le) {
    return le ? (unsigned long)p[0] | (unsigned long)p[1] << 8 | (unsigned long)p[2] << 16 | (unsigned long)p[3] << 24
              : (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | (unsigned long)p[3];
}

// dw_upright is whether OpenCV would leave the image as decoded: its Exif
// reader looks at the first APP1 marker, past 6 bytes, for an orientation
// entry in the first IFD. 1 (or none) is upright; anything this cannot
// parse is taken as not (the caller then decodes with OpenCV).
static int dw_upright(struct jpeg_decompress_struct* cinfo) {
    jpeg_saved_marker_ptr m = cinfo->marker_list;
    while (m && m->marker != JPEG_APP0 + 1) {
        m = m->next;
    }
    if (!m || m->data_length <= 6) {
        return 1;
    }
    const unsigned char* t = m->data + 6;
    size_t n = m->data_length - 6;
    if (n < 8) {
        return 0;
    }
    int le;
    if (t[0] == 'I' && t[1] == 'I') {
        le = 1;
    } else if (t[0] == 'M' && t[1] == 'M') {
        le = 0;
    } else {
        return 0;
    }
    if (dw_u16(t + 2, le) != 42) {
        return 0;
    }
    unsigned long off = dw_u32(t + 4, le);
    if (off < 8 || off + 2 > n) {
        return 0;
    }
    unsigned cnt = dw_u16(t + off, le);
    if (off + 2 + 12 * (unsigned long)cnt > n) {
        return 0;
    }
    for (unsigned k = 0; k < cnt; k++) {
        const unsigned char* e = t + off + 2 + 12 * k;
        if (dw_u16(e, le) == 0x0112) {
            return dw_u16(e + 8, le) == 1;
        }
    }
    return 1;
}

dw_jpeg* dw_jpeg_open(const unsigned char* buf, size_t len, int* w, int* h) {
    dw_jpeg* j = (dw_jpeg*)calloc(1, sizeof(dw_jpeg));
    if (!j) {
        return NULL;
    }
    j->cinfo.err = jpeg_std_error(&j->pub);
    j->pub.error_exit = dw_error_exit;
    // Quiet: a file this refuses goes to OpenCV, which prints its own
    // warning.
    j->pub.output_message = dw_quiet;
    if (setjmp(j->jump)) {
        jpeg_destroy_decompress(&j->cinfo);
        free(j);
        return NULL;
    }
    jpeg_create_decompress(&j->cinfo);
    jpeg_mem_src(&j->cinfo, buf, (unsigned long)len);
    jpeg_save_markers(&j->cinfo, JPEG_APP0 + 1, 0xffff);
    if (jpeg_read_header(&j->cinfo, TRUE) != JPEG_HEADER_OK ||
        j->cinfo.num_components != 3 || j->cinfo.jpeg_color_space != JCS_YCbCr ||
        j->cinfo.ac_huff_tbl_ptrs[0] == NULL || j->cinfo.ac_huff_tbl_ptrs[1] == NULL ||
        j->cinfo.dc_huff_tbl_ptrs[0] == NULL || j->cinfo.dc_huff_tbl_ptrs[1] == NULL ||
        !dw_upright(&j->cinfo)) {
        jpeg_destroy_decompress(&j->cinfo);
        free(j);
        return NULL;
    }
    *w = (int)j->cinfo.image_width;
    *h = (int)j->cinfo.image_height;
    return j;
}

int dw_jpeg_read(dw_jpeg* j, unsigned char* dst, size_t step) {
    if (setjmp(j->jump)) {
        return -1;
    }
    j->cinfo.out_color_space = JCS_EXT_BGR;
    j->cinfo.out_color_components = 3;
    jpeg_start_decompress(&j->cinfo);
    if (j->cinfo.output_width != j->cinfo.image_width || j->cinfo.output_height != j->cinfo.image_height ||
        j->cinfo.output_components != 3) {
        return -1;
    }
    while (j->cinfo.output_scanline < j->cinfo.output_height) {
        JSAMPROW row = dst + (size_t)j->cinfo.output_scanline * step;
        jpeg_read_scanlines(&j->cinfo, &row, 1);
    }
    jpeg_finish_decompress(&j->cinfo);
    // A warning is data libjpeg made up or skipped: a file cut short
    // (its source then feeds a fake end marker and the rest comes out
    // grey) or corrupt entropy data. OpenCV's own source stops where the
    // data stops instead, so the pixels differ; such a file goes to
    // OpenCV.
    return j->pub.num_warnings ? -1 : 0;
}

void dw_jpeg_close(dw_jpeg* j) {
    if (j) {
        jpeg_destroy_decompress(&j->cinfo);
        free(j);
    }
}
