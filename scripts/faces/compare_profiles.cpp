// Dev only, not part of the build: compares cf_find_profiles
// (Sources/CollageFaces/cascades.cpp, compiled into this program) with
// OpenCV's own cv::CascadeClassifier on Debian's haarcascade_profileface.xml,
// scanned as is and mirrored, and times both (the least of --runs runs: ours in processor time, OpenCV's,
// which uses threads, in wall-clock time).
// Needs libopencv-objdetect-dev, libopencv-imgcodecs-dev and opencv-data;
// compile it by hand, from the repository's root (one command):
//
//   g++ -O2 -std=c++17 -I/usr/include/opencv4 -ISources/CollageFaces/include
//       [-DPROFILE_SCALE_FACTOR=1.2 -DPROFILE_MIN_NEIGHBOURS=4]
//       scripts/faces/compare_profiles.cpp -o /tmp/compare_profiles
//       -lopencv_objdetect -lopencv_imgcodecs -lopencv_imgproc -lopencv_core
//   /tmp/compare_profiles [--short N] [--min-size M] [--mirror] [--runs R]
//       [--region FROM,TO,BEFORE,AFTER] PICTURE...
//
// --short reduces each picture first (INTER_AREA) so its short side is N
// pixels, as the engine's search does; --mirror searches the picture
// mirrored (to check that a face is found facing the other way too);
// --region is in fractions of the width (axis 1), and only cf_find_profiles
// honours it (OpenCV's faces are then filtered by it).
#include "../../Sources/CollageFaces/cascades.cpp"

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char *kCascade = "/usr/share/opencv4/haarcascades/haarcascade_profileface.xml";

double now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// This thread's processor time: on a busy machine closer to the work done
// than the wall clock (cf_find_profiles runs on the calling thread;
// OpenCV's detection spreads over threads, so it is timed by the clock).
double cpu_ms() {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

struct Found {
    int x, y, w, h, score, pass;
};

// OpenCV as the engine would use it: as is and mirrored, each grouped, the
// mirrored boxes brought back, merged as cf_find_profiles merges them.
std::vector<cf_face> opencv_faces(cv::CascadeClassifier &cascade, const cv::Mat &grey, int min_size,
                                  const cf_region *region) {
    std::vector<Found> all;
    for (int pass = 0; pass < 2; pass++) {
        cv::Mat picture = grey;
        if (pass == 1) cv::flip(grey, picture, 1);
        std::vector<cv::Rect> rects;
        std::vector<int> counts;
        cascade.detectMultiScale(picture, rects, counts, PROFILE_SCALE_FACTOR, PROFILE_MIN_NEIGHBOURS, 0,
                                 cv::Size(min_size, min_size));
        for (size_t i = 0; i < rects.size(); i++) {
            cv::Rect r = rects[i];
            if (pass == 1) r.x = grey.cols - r.x - r.width;
            all.push_back(Found{r.x, r.y, r.width, r.height, counts[i], pass});
        }
    }
    std::stable_sort(all.begin(), all.end(), [](const Found &a, const Found &b) { return a.score > b.score; });
    std::vector<cf_face> out;
    std::vector<bool> kept(all.size());
    for (size_t i = 0; i < all.size(); i++) {
        const Found &f = all[i];
        bool in = true;
        if (region && region->axis == 1)
            in = f.x - region->reach_before * f.w < region->from || f.x + (1 + region->reach_after) * f.w > region->to;
        kept[i] = in;
        for (size_t k = 0; k < i && kept[i]; k++) {
            const Found &g = all[k];
            if (!kept[k] || g.pass == f.pass) continue;
            int ix = std::min(f.x + f.w, g.x + g.w) - std::max(f.x, g.x);
            int iy = std::min(f.y + f.h, g.y + g.h) - std::max(f.y, g.y);
            long long smaller = std::min((long long)f.w * f.h, (long long)g.w * g.h);
            if (ix > 0 && iy > 0 && 2LL * ix * iy >= smaller) kept[i] = false;
        }
        if (kept[i]) out.push_back(cf_face{(float)f.x, (float)f.y, (float)f.w, (float)f.h, (float)f.score});
    }
    return out;
}

bool same(const cf_face &a, const cf_face &b) {
    return a.x == b.x && a.y == b.y && a.width == b.width && a.height == b.height && a.score == b.score;
}

void print(const char *who, const std::vector<cf_face> &faces) {
    std::printf("  %-7s %zu:", who, faces.size());
    for (const cf_face &f : faces) std::printf(" [%g,%g %gx%g n%g]", f.x, f.y, f.width, f.height, f.score);
    std::printf("\n");
}

}  // namespace

int main(int argc, char **argv) {
    int short_side = 0, min_size = 0, runs = 1;
    bool mirror = false, have_region = false;
    double rf = 0, rt = 0, rb = 0, ra = 0;
    std::vector<std::string> paths;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--short") && i + 1 < argc) short_side = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--min-size") && i + 1 < argc) min_size = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--mirror")) mirror = true;
        else if (!std::strcmp(argv[i], "--region") && i + 1 < argc) {
            have_region = std::sscanf(argv[++i], "%lf,%lf,%lf,%lf", &rf, &rt, &rb, &ra) == 4;
        } else paths.push_back(argv[i]);
    }
    cv::CascadeClassifier cascade;
    if (!cascade.load(kCascade)) {
        std::fprintf(stderr, "cannot load %s\n", kCascade);
        return 1;
    }
    int agreed = 0, total = 0;
    for (const std::string &path : paths) {
        cv::Mat grey = cv::imread(path, cv::IMREAD_GRAYSCALE);
        if (grey.empty()) {
            std::fprintf(stderr, "cannot read %s\n", path.c_str());
            return 1;
        }
        if (short_side > 0) {
            double f = (double)short_side / std::min(grey.cols, grey.rows);
            cv::Mat small;
            cv::resize(grey, small, cv::Size((int)std::lround(grey.cols * f), (int)std::lround(grey.rows * f)), 0, 0,
                       cv::INTER_AREA);
            grey = small;
        }
        if (mirror) {
            cv::Mat flipped;
            cv::flip(grey, flipped, 1);
            grey = flipped;
        }
        cf_region region{1, rf * grey.cols, rt * grey.cols, rb, ra};
        const cf_region *r = have_region ? &region : nullptr;

        std::vector<cf_face> ours(64);
        double best_ours = 1e9, best_cv = 1e9;
        int n = 0;
        std::vector<cf_face> theirs;
        for (int run = 0; run < runs; run++) {
            double t0 = cpu_ms();
            n = cf_find_profiles(grey.data, grey.cols, grey.rows, grey.step, r, min_size, ours.data(), 64);
            best_ours = std::min(best_ours, cpu_ms() - t0);
            double t1 = now_ms();
            theirs = opencv_faces(cascade, grey, min_size, r);
            best_cv = std::min(best_cv, now_ms() - t1);
        }
        if (n < 0) {
            std::fprintf(stderr, "cf_find_profiles: out of memory\n");
            return 1;
        }
        ours.resize(std::min(n, 64));
        bool agree = ours.size() == theirs.size();
        for (size_t i = 0; agree && i < ours.size(); i++) agree = same(ours[i], theirs[i]);
        std::printf("%s %dx%d%s: %s (ours %.2f ms of processor time, OpenCV's detection %.2f ms)\n", path.c_str(), grey.cols, grey.rows,
                    mirror ? " mirrored" : "", agree ? "agree" : "DIFFER", best_ours, best_cv);
        print("ours", ours);
        print("OpenCV", theirs);
        agreed += agree;
        total++;
    }
    std::printf("%d of %d agree\n", agreed, total);
    return 0;
}
