#include <climits>
#include <cstdio>
#include <exception>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "cvsafe.h"

// OpenCV reports a bad image (a header claiming more pixels than its
// limit, for one) by throwing; a C++ exception must not cross into Go,
// where it aborts the process, so it is caught here and passed back as
// text.
int dw_imdecode(const unsigned char* buf, size_t len, void* dst, char* err, size_t errlen) {
    cv::Mat* out = static_cast<cv::Mat*>(dst);
    if (len == 0 || len > INT_MAX) {
        std::snprintf(err, errlen, "%zu bytes", len);
        return -1;
    }
    try {
        // A header over the caller's bytes: imdecode reads them and
        // keeps nothing of them.
        cv::Mat data(1, static_cast<int>(len), CV_8UC1, const_cast<unsigned char*>(buf));
        *out = cv::imdecode(data, cv::IMREAD_COLOR);
        return 0;
    } catch (const std::exception& e) {
        std::snprintf(err, errlen, "%s", e.what());
    } catch (...) {
        std::snprintf(err, errlen, "unknown exception");
    }
    out->release();
    return -1;
}
