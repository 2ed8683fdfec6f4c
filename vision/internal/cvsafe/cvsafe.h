#ifndef DICEWATCH_CVSAFE_H
#define DICEWATCH_CVSAFE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// dw_imdecode decodes buf as a colour image into *dst (a cv::Mat*). It
// returns 0, or -1 with OpenCV's exception text in err.
int dw_imdecode(const unsigned char* buf, size_t len, void* dst, char* err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
