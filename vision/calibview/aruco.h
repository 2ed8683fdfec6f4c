// Small C interface over OpenCV 4.6's cv::aruco, written for dicewatch.
#ifndef DICEWATCH_CALIBVIEW_ARUCO_H
#define DICEWATCH_CALIBVIEW_ARUCO_H

#ifdef __cplusplus
extern "C" {
#endif

// dw_aruco_detect finds markers of predefined dictionary dict in an 8-bit
// grey image (rows x cols, step bytes per row). It writes up to max ids and
// 8 floats of corners per marker (x0 y0 ... x3 y3, subpixel refined) and
// returns how many markers it found, or -1 on an OpenCV error (message in
// err, NUL-terminated, at most errlen bytes).
int dw_aruco_detect(const unsigned char *gray, int rows, int cols, int step, int dict,
                    int max, int *ids, float *corners, char *err, int errlen);

// dw_aruco_bits writes marker id's cells, including a one-cell black
// border, as side*side bytes (0 black, 255 white) into out, where side is
// the dictionary's marker size + 2. It returns side, or -1 on error.
int dw_aruco_bits(int dict, int id, unsigned char *out, int outlen, char *err, int errlen);

#ifdef __cplusplus
}
#endif

#endif
