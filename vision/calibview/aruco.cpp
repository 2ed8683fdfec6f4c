// Implementation of aruco.h over cv::aruco (OpenCV 4.6 contrib module).
#include "aruco.h"

#include <cstring>
#include <exception>
#include <vector>

#include <opencv2/aruco.hpp>
#include <opencv2/core.hpp>

static void dw_set_err(char *err, int errlen, const char *msg) {
    if (err == nullptr || errlen <= 0) {
        return;
    }
    std::strncpy(err, msg, static_cast<size_t>(errlen) - 1);
    err[errlen - 1] = '\0';
}

int dw_aruco_detect(const unsigned char *gray, int rows, int cols, int step, int dict,
                    int max, int *ids, float *corners, char *err, int errlen) {
    try {
        cv::Mat img(rows, cols, CV_8UC1, const_cast<unsigned char *>(gray), static_cast<size_t>(step));
        cv::Ptr<cv::aruco::Dictionary> d = cv::aruco::getPredefinedDictionary(dict);
        cv::Ptr<cv::aruco::DetectorParameters> p = cv::aruco::DetectorParameters::create();
        p->cornerRefinementMethod = cv::aruco::CORNER_REFINE_SUBPIX;
        p->cornerRefinementWinSize = 3;
        p->cornerRefinementMaxIterations = 60;
        p->cornerRefinementMinAccuracy = 0.01;
        std::vector<std::vector<cv::Point2f>> found;
        std::vector<int> foundIds;
        cv::aruco::detectMarkers(img, d, found, foundIds, p);
        int n = static_cast<int>(foundIds.size());
        if (n > max) {
            n = max;
        }
        for (int i = 0; i < n; i++) {
            ids[i] = foundIds[i];
            for (int k = 0; k < 4; k++) {
                corners[i * 8 + 2 * k] = found[i][k].x;
                corners[i * 8 + 2 * k + 1] = found[i][k].y;
            }
        }
        return n;
    } catch (const std::exception &e) {
        dw_set_err(err, errlen, e.what());
        return -1;
    }
}

int dw_aruco_bits(int dict, int id, unsigned char *out, int outlen, char *err, int errlen) {
    try {
        cv::Ptr<cv::aruco::Dictionary> d = cv::aruco::getPredefinedDictionary(dict);
        if (id < 0 || id >= d->bytesList.rows) {
            dw_set_err(err, errlen, "marker id out of range for the dictionary");
            return -1;
        }
        int side = d->markerSize + 2;
        if (side * side > outlen) {
            dw_set_err(err, errlen, "output buffer too small");
            return -1;
        }
        cv::Mat m;
        d->drawMarker(id, side, m, 1);
        for (int y = 0; y < side; y++) {
            for (int x = 0; x < side; x++) {
                out[y * side + x] = m.at<unsigned char>(y, x);
            }
        }
        return side;
    } catch (const std::exception &e) {
        dw_set_err(err, errlen, e.what());
        return -1;
    }
}
