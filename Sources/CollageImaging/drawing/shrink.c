// shrink.c — the shrink-on-load rule, in one place.
//
// Which reduced size a photo is decoded at decides both the quality of a cell
// and most of the time a collage takes, so the engine's draws, its decode
// API, the fuzz harnesses' reference model and the Swift side (which
// predicts sizes to enforce the pixel limit) all ask these functions rather
// than each computing it (in the spirit of turbojpeg's TJSCALED).
#include "../internal.h"

// ceil(a * b / c) for 32-bit operands, exact: a * b + c - 1 < 2^64.
static uint64_t mul_div_ceil(uint32_t a, uint32_t b, uint32_t c) {
    return ((uint64_t)a * b + c - 1) / c;
}

// 4/3, rounded to nearest. The reduced IDCTs are a crude filter (they drop
// frequencies without anti-aliasing), and the Lanczos pass after them can
// only repair that when it shrinks by a factor of at most 3/4. Measured
// against a full-size Lanczos reference (W6 photos, docs/performance.md):
// PSNR 51.0 dB when the resampler shrinks by 0.71, 49.8 at 0.79, 44.6 at 1.0
// (the DCT output copied as it is); default 2- and 4-photo collages of 12 MP
// photos scored 47.9 and 47.2 dB without it.
static uint64_t with_filter_headroom(uint64_t size) {
    return (size * 4 + 2) / 3;
}

uint32_t ci_scaled_size(uint32_t dimension, unsigned scale_num) {
    if (scale_num == 0 || scale_num > 8) scale_num = 8;
    // libjpeg's jpeg_calc_output_dimensions rounds up the same way.
    return (uint32_t)(((uint64_t)dimension * scale_num + 7) / 8);
}

ci_shrink_target ci_shrink_target_for_box(uint32_t display_width, uint32_t display_height,
                                          uint32_t box_width, uint32_t box_height, int contain) {
    ci_shrink_target target = {0, 0, 0, 0};
    if (display_width == 0 || display_height == 0) return target;
    // The photo scaled by the factor max (cover) or min (contain) of
    // boxW / dw and boxH / dh, rounded up, in integers so that the deciding
    // axis comes out exactly as the box (a floating-point ceil could ask for
    // one pixel more and defeat a DCT scale).
    int width_decides = (uint64_t)box_width * display_height >= (uint64_t)box_height * display_width;
    if (contain) width_decides = !width_decides;
    uint64_t w, h;
    if (width_decides) {
        w = box_width;
        h = mul_div_ceil(display_height, box_width, display_width);
    } else {
        h = box_height;
        w = mul_div_ceil(display_width, box_height, display_height);
    }
    // Never more than the photo itself: decoders do not upscale for us (the
    // resampler does that better).
    if (w > display_width) w = display_width;
    if (h > display_height) h = display_height;
    target.width = (uint32_t)w;
    target.height = (uint32_t)h;
    // The headroom of what the photo can give, in that order, and not
    // clamped again: a photo of 7 px or less needing all of itself then asks
    // for more than it has, which is full size (8/8). Clamping after the
    // headroom would let 7/8 "cover" it, a reduced IDCT for no gain (the fuzz
    // model once did that, and disagreed with the draw).
    target.filter_width = (uint32_t)with_filter_headroom(w);
    target.filter_height = (uint32_t)with_filter_headroom(h);
    return target;
}

unsigned ci_shrink_scale(uint32_t width, uint32_t height, uint32_t need_width, uint32_t need_height) {
    if (need_width == 0 && need_height == 0) return 8;
    for (unsigned n = 1; n < 8; n++)
        if (ci_scaled_size(width, n) >= need_width && ci_scaled_size(height, n) >= need_height) return n;
    return 8;
}

unsigned ci_shrink_scale_upright(uint32_t width, uint32_t height, int orientation, uint32_t need_width,
                                 uint32_t need_height) {
    uint32_t need_w, need_h;
    ci_oriented_size(orientation, need_width, need_height, &need_w, &need_h);  // upright to stored
    return ci_shrink_scale(width, height, need_w, need_h);
}

unsigned ci_draw_scale(uint32_t width, uint32_t height, int orientation, uint32_t cell_width,
                       uint32_t cell_height, const ci_limits *limits) {
    uint32_t display_w, display_h;
    ci_oriented_size(orientation, width, height, &display_w, &display_h);
    ci_shrink_target target = ci_shrink_target_for_box(display_w, display_h, cell_width, cell_height, 0);
    // The target is upright; the decoder scales the stored image (the same swap back).
    uint32_t filter_w, filter_h, cover_w, cover_h;
    ci_oriented_size(orientation, target.filter_width, target.filter_height, &filter_w, &filter_h);
    ci_oriented_size(orientation, target.width, target.height, &cover_w, &cover_h);
    unsigned n = ci_shrink_scale(width, height, filter_w, filter_h);
    // The headroom is for quality only: where it alone would break the pixel
    // limit, the scale that just covers the cell still does the job.
    if ((uint64_t)ci_scaled_size(width, n) * ci_scaled_size(height, n) > ci_max_pixels(limits))
        n = ci_shrink_scale(width, height, cover_w, cover_h);
    return n;
}

void ci_any_scale(uint32_t display_width, uint32_t display_height, int orientation, uint32_t cell_width,
                  uint32_t cell_height, const ci_limits *limits, uint32_t *width, uint32_t *height) {
    // The filter target (4/3 headroom), or the covering size where that
    // alone would break the pixel limit: ci_draw_scale's rule without steps.
    uint32_t dw = display_width, dh = display_height;
    ci_shrink_target target = ci_shrink_target_for_box(dw, dh, cell_width, cell_height, 0);
    uint32_t want_w = target.filter_width < dw ? target.filter_width : dw;
    uint32_t want_h = target.filter_height < dh ? target.filter_height : dh;
    if ((uint64_t)want_w * want_h > ci_max_pixels(limits)) {
        want_w = target.width;
        want_h = target.height;
    }
    // Keep the photo's aspect exactly on one axis: the other follows it.
    if ((uint64_t)want_w * dh >= (uint64_t)want_h * dw)
        want_h = (uint32_t)(((uint64_t)want_w * dh + dw - 1) / dw);
    else
        want_w = (uint32_t)(((uint64_t)want_h * dw + dh - 1) / dh);
    if (want_w > dw) want_w = dw;
    if (want_h > dh) want_h = dh;
    // The decoder scales the stored image.
    ci_oriented_size(orientation, want_w, want_h, width, height);
}
