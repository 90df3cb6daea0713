// colour.c — what a photo says its colours are, to sRGB, through lcms2.
//
// Every codec hands its tag (an embedded ICC profile; a HEIF's nclx code
// points) to ci_colour_convert_cell after drawing a cell, so colours are
// converted at cell size: a 12-megapixel photo costs a 640x540 cell's
// conversion, never its own. One transform per photo and call, built in
// a private lcms2 context (no global state: lcms2's default context holds
// the error handler and plugins, which threads would share).
//
// Untagged means sRGB (what browsers assume). A profile that is sRGB, or
// close enough that no 8-bit value moves by more than one level, is not
// applied: a tagged-sRGB photo comes out byte for byte as an untagged one.
// A profile lcms2 cannot read, or of a colour space the pixels are not
// in, is ignored, as browsers do.
//
// Intent: relative colorimetric with black-point compensation. The
// profiles phones and cameras embed (Display P3, Adobe RGB) are
// matrix-shapers without perceptual tables, for which every intent is
// colorimetric anyway; relative keeps in-gamut colours exact (a P3 red that
// is (230,30,30) in sRGB comes out (230,30,30)) and clips the rest.
#include "../internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lcms2.h>

// lcms2 reports through the context's handler; its messages are not ours
// to print (the caller decides what a bad profile means: ignored).
static void quiet(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)context;
    (void)code;
    (void)text;
}

// --- nclx: H.273 code points to an RGB profile -------------------------------

typedef struct {
    double rx, ry, gx, gy, bx, by, wx, wy;
} primaries;

// ITU-T H.273 table 2. 0 for code points with no fixed primaries.
static int primaries_for(int code, primaries *out) {
    switch (code) {
    case 1: case 2: *out = (primaries){0.64, 0.33, 0.30, 0.60, 0.15, 0.06, 0.3127, 0.3290}; return 1;  // BT.709, unspecified
    case 4: *out = (primaries){0.67, 0.33, 0.21, 0.71, 0.14, 0.08, 0.310, 0.316}; return 1;            // BT.470 M
    case 5: *out = (primaries){0.64, 0.33, 0.29, 0.60, 0.15, 0.06, 0.3127, 0.3290}; return 1;          // BT.601 625
    case 6: case 7: *out = (primaries){0.630, 0.340, 0.310, 0.595, 0.155, 0.070, 0.3127, 0.3290}; return 1;  // BT.601 525
    case 9: *out = (primaries){0.708, 0.292, 0.170, 0.797, 0.131, 0.046, 0.3127, 0.3290}; return 1;    // BT.2020
    case 11: *out = (primaries){0.680, 0.320, 0.265, 0.690, 0.150, 0.060, 0.314, 0.351}; return 1;    // DCI-P3
    case 12: *out = (primaries){0.680, 0.320, 0.265, 0.690, 0.150, 0.060, 0.3127, 0.3290}; return 1;  // Display P3
    case 22: *out = (primaries){0.630, 0.340, 0.295, 0.605, 0.155, 0.077, 0.3127, 0.3290}; return 1;  // EBU 3213
    default: return 0;
    }
}

// HDR to SDR: the reference white of BT.2408 (203 cd/m2) is 1.0, what is
// above it is rolled off smoothly towards 1.0 instead of clipped, from a
// knee at 0.8 (an exponential shoulder: continuous, with slope 1 at the
// knee, so mid-tones are untouched and highlights keep their gradation).
#define REFERENCE_WHITE_NITS 203.0
static double tone_map(double relative) {
    const double knee = 0.8;
    if (relative <= knee) return relative;
    return knee + (1 - knee) * (1 - exp(-(relative - knee) / (1 - knee)));
}

// SMPTE ST 2084: a PQ code value (0-1) to cd/m2.
static double pq_to_nits(double v) {
    const double m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128;
    const double c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32;
    double p = pow(v, 1 / m2);
    double num = p - c1 > 0 ? p - c1 : 0;
    return 10000 * pow(num / (c2 - c3 * p), 1 / m1);
}

// ARIB STD-B67 (HLG): the signal (0-1) to display light relative to
// reference white, for a 1000 cd/m2 display (system gamma 1.2, applied per
// channel: near the luminance-based OOTF for the colours photos have).
static double hlg_to_relative(double v) {
    const double a = 0.17883277, b = 0.28466892, c = 0.55991073;
    double scene = v <= 0.5 ? v * v / 3 : (exp((v - c) / a) + b) / 12;
    return pow(scene, 1.2) * 1000.0 / REFERENCE_WHITE_NITS;
}

// Whether pixels of an H.273 transfer are shown as sRGB: sRGB itself (and
// 2, unspecified), and BT.709, BT.601 and BT.2020's SDR transfer. Those are
// a camera's OETF: how a display shows such pixels is BT.1886's business
// (about gamma 2.4), not the OETF's inverse, which gives scene light and
// lifts the shadows (a phone HEIF tagged 5/1/5 came out washed out, 26.5 dB
// from libheif's decode: ours about 0.93 x reference + 19). Shown as sRGB,
// as libheif (heif-convert), Chromium ("closer to how they're displayed")
// and video players show them.
static int shown_as_srgb(int transfer) {
    switch (transfer) {
    case 1: case 2: case 6: case 13: case 14: case 15: return 1;
    default: return 0;
    }
}

// The tone curve (code value -> linear light, 0-1) of an H.273 transfer,
// or NULL for one without a formula here.
static cmsToneCurve *transfer_curve(cmsContext context, int code) {
    if (shown_as_srgb(code)) {
        const double params[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
        return cmsBuildParametricToneCurve(context, 4, params);
    }
    switch (code) {
    case 4: case 5: case 8: {  // gamma 2.2, 2.8, linear
        const double gamma[1] = {code == 4 ? 2.2 : code == 5 ? 2.8 : 1.0};
        return cmsBuildParametricToneCurve(context, 1, gamma);
    }
    case 16: case 18: {  // PQ, HLG: tabulated, tone-mapped to SDR
        enum { ENTRIES = 4096 };
        cmsFloat32Number table[ENTRIES];
        for (int i = 0; i < ENTRIES; i++) {
            double v = (double)i / (ENTRIES - 1);
            double relative = code == 16 ? pq_to_nits(v) / REFERENCE_WHITE_NITS : hlg_to_relative(v);
            table[i] = (cmsFloat32Number)tone_map(relative);
        }
        return cmsBuildTabulatedToneCurveFloat(context, ENTRIES, table);
    }
    default: return NULL;
    }
}

// An RGB profile for the nclx code points, or NULL when they mean sRGB (or
// nothing this knows).
static cmsHPROFILE nclx_profile(cmsContext context, const ci_colour_tag *tag) {
    primaries p;
    int known_primaries = primaries_for(tag->primaries, &p);
    int srgb_primaries = tag->primaries == 1 || tag->primaries == 2;
    int srgb_transfer = shown_as_srgb(tag->transfer);
    if (!known_primaries || (srgb_primaries && srgb_transfer)) return NULL;
    cmsToneCurve *curve = transfer_curve(context, tag->transfer);
    if (!curve) return NULL;
    cmsCIExyY white = {p.wx, p.wy, 1.0};
    cmsCIExyYTRIPLE rgb = {{p.rx, p.ry, 1.0}, {p.gx, p.gy, 1.0}, {p.bx, p.by, 1.0}};
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE profile = cmsCreateRGBProfileTHR(context, &white, &rgb, curves);
    cmsFreeToneCurve(curve);
    return profile;
}

// --- The transform -------------------------------------------------------------

// The tag's profile: the embedded ICC profile, else one built from nclx;
// NULL for untagged, sRGB by nclx, or unreadable.
static cmsHPROFILE source_profile(cmsContext context, const ci_colour_tag *tag) {
    cmsHPROFILE source = NULL;
    if (tag->icc && tag->icc_size >= 128 && tag->icc_size <= UINT32_MAX)
        source = cmsOpenProfileFromMemTHR(context, tag->icc, (cmsUInt32Number)tag->icc_size);
    if (!source && tag->has_nclx) source = nclx_profile(context, tag);
    return source;
}

// lcms2's transform from `source` to sRGB for pixels of `channels` (3, or 4
// with the fourth left as it is), or NULL when the profile does not describe
// RGB or grey pixels. Built in `context`, freed with it.
static cmsHTRANSFORM transform_for(cmsContext context, cmsHPROFILE source, int channels) {
    // The pixels are RGB; a grey profile reads the first of each pixel's
    // bytes (they are all equal) and writes RGB.
    cmsColorSpaceSignature space = cmsGetColorSpace(source);
    cmsUInt32Number in_format, out_format = channels == 4 ? TYPE_RGBA_8 : TYPE_RGB_8;
    if (space == cmsSigRgbData) {
        in_format = out_format;
    } else if (space == cmsSigGrayData) {
        in_format = COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(1) | EXTRA_SH(channels - 1);
    } else {
        return NULL;  // a CMYK or Lab profile on RGB pixels: not these pixels' description
    }
    cmsHPROFILE srgb = cmsCreate_sRGBProfileTHR(context);
    if (!srgb) return NULL;
    // Alpha (the fourth byte) is left as it is: converted in place, an extra
    // channel is not written without cmsFLAGS_COPY_ALPHA.
    cmsHTRANSFORM transform = cmsCreateTransformTHR(context, source, in_format, srgb, out_format,
                                                    INTENT_RELATIVE_COLORIMETRIC,
                                                    cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_NOCACHE);
    cmsCloseProfile(srgb);
    return transform;
}

// --- Matrix-shaper profiles: the fast path ---------------------------------------
//
// The profiles photos carry (Display P3, Adobe RGB, the ones built from nclx)
// are matrix-shapers: a tone curve per channel, then a 3x3 matrix to XYZ.
// Their conversion to sRGB is curves -> one matrix -> sRGB's inverse curve.
// lcms2 evaluates that at about 11 ns a pixel after 2.6 ms of set-up per
// transform (measured on the W6 machine); W6 tagged Display P3 then cost 15%
// more than untagged, against a budget of 5%. So for these profiles the
// tables come from lcms2 (it parses the profile and evaluates its curves;
// its sRGB profile gives the output side) and are applied here with three
// lookups and a matrix a pixel. Other profiles (LUT-based, CMYK) go through
// lcms2's own transform.
#define OUTPUT_LEVELS 4096
typedef struct {
    float curve[3][256];             // code value -> linear light, per channel
    float matrix[9];                 // linear source RGB -> linear sRGB
    uint8_t encode[OUTPUT_LEVELS];   // linear sRGB (0-1, 4096 steps) -> sRGB code value
    int grey;                        // one curve, R = G = B
} shaper;

// The colorant matrix (columns: red, green, blue in D50 XYZ) of a profile.
static int colorants(cmsHPROFILE profile, double m[9]) {
    static const cmsTagSignature tags[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    for (int c = 0; c < 3; c++) {
        const cmsCIEXYZ *xyz = cmsReadTag(profile, tags[c]);
        if (!xyz) return 0;
        m[c] = xyz->X;
        m[3 + c] = xyz->Y;
        m[6 + c] = xyz->Z;
    }
    return 1;
}

static int invert3(const double m[9], double out[9]) {
    double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
                 m[2] * (m[3] * m[7] - m[4] * m[6]);
    if (fabs(det) < 1e-12) return 0;
    out[0] = (m[4] * m[8] - m[5] * m[7]) / det;
    out[1] = (m[2] * m[7] - m[1] * m[8]) / det;
    out[2] = (m[1] * m[5] - m[2] * m[4]) / det;
    out[3] = (m[5] * m[6] - m[3] * m[8]) / det;
    out[4] = (m[0] * m[8] - m[2] * m[6]) / det;
    out[5] = (m[2] * m[3] - m[0] * m[5]) / det;
    out[6] = (m[3] * m[7] - m[4] * m[6]) / det;
    out[7] = (m[1] * m[6] - m[0] * m[7]) / det;
    out[8] = (m[0] * m[4] - m[1] * m[3]) / det;
    return 1;
}

// Fills `s` for a matrix-shaper (or grey) source; 0 when it is not one.
static int shaper_for(cmsContext context, cmsHPROFILE source, shaper *s) {
    cmsColorSpaceSignature space = cmsGetColorSpace(source);
    s->grey = space == cmsSigGrayData;
    if (!s->grey && (space != cmsSigRgbData || !cmsIsMatrixShaper(source))) return 0;
    cmsHPROFILE srgb = cmsCreate_sRGBProfileTHR(context);
    if (!srgb) return 0;
    double to_xyz[9], srgb_xyz[9], from_xyz[9];
    int ok = colorants(srgb, srgb_xyz) && invert3(srgb_xyz, from_xyz);
    if (ok && !s->grey) ok = colorants(source, to_xyz);
    if (ok) {
        if (s->grey) {
            // Grey: the curve gives Y; R = G = B = Y in sRGB (whites agree).
            for (int i = 0; i < 9; i++) s->matrix[i] = (i % 4 == 0) ? 1.0f : 0.0f;
        } else {
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++)
                    s->matrix[r * 3 + c] = (float)(from_xyz[r * 3] * to_xyz[c] + from_xyz[r * 3 + 1] * to_xyz[3 + c] +
                                                   from_xyz[r * 3 + 2] * to_xyz[6 + c]);
        }
        static const cmsTagSignature trc[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
        for (int c = 0; c < 3 && ok; c++) {
            const cmsToneCurve *curve = cmsReadTag(source, s->grey ? cmsSigGrayTRCTag : trc[c]);
            if (!curve) {
                ok = 0;
                break;
            }
            for (int i = 0; i < 256; i++) s->curve[c][i] = cmsEvalToneCurveFloat(curve, (cmsFloat32Number)i / 255.0f);
        }
        // sRGB's own inverse curve, from its profile (so both ends agree
        // with lcms2's idea of sRGB).
        const cmsToneCurve *out = ok ? cmsReadTag(srgb, cmsSigRedTRCTag) : NULL;
        cmsToneCurve *inverse = out ? cmsReverseToneCurve(out) : NULL;
        if (inverse) {
            for (int i = 0; i < OUTPUT_LEVELS; i++) {
                float v = cmsEvalToneCurveFloat(inverse, (cmsFloat32Number)i / (OUTPUT_LEVELS - 1)) * 255.0f + 0.5f;
                s->encode[i] = v <= 0 ? 0 : v >= 255 ? 255 : (uint8_t)v;
            }
            cmsFreeToneCurve(inverse);
        } else {
            ok = 0;
        }
    }
    cmsCloseProfile(srgb);
    return ok;
}

static inline uint8_t encode_linear(const shaper *s, float linear) {
    int index = (int)(linear * (OUTPUT_LEVELS - 1) + 0.5f);
    if (index < 0) index = 0;
    if (index >= OUTPUT_LEVELS) index = OUTPUT_LEVELS - 1;
    return s->encode[index];
}

static void shaper_apply(const shaper *s, const uint8_t *in, uint8_t *out, uint32_t count, int channels) {
    const float *m = s->matrix;
    for (uint32_t i = 0; i < count; i++, in += channels, out += channels) {
        float r = s->curve[0][in[0]], g = s->grey ? r : s->curve[1][in[1]], b = s->grey ? r : s->curve[2][in[2]];
        out[0] = encode_linear(s, m[0] * r + m[1] * g + m[2] * b);
        out[1] = encode_linear(s, m[3] * r + m[4] * g + m[5] * b);
        out[2] = encode_linear(s, m[6] * r + m[7] * g + m[8] * b);
    }
}

// Whether `transform` moves no colour by more than one level: probed on a
// 6 x 6 x 6 lattice of the cube (and a grey ramp), the colours where a real
// difference in primaries or curves shows.
static int is_near_identity(cmsHTRANSFORM transform, const shaper *fast, int channels, int grey) {
    enum { STEPS = 6, COUNT = STEPS * STEPS * STEPS + 16 };
    uint8_t in[COUNT * 4], out[COUNT * 4];
    int n = 0;
    for (int r = 0; r < STEPS; r++)
        for (int g = 0; g < STEPS; g++)
            for (int b = 0; b < STEPS; b++, n++) {
                uint8_t *px = in + n * channels;
                px[0] = (uint8_t)(r * 51);
                px[1] = (uint8_t)(grey ? r * 51 : g * 51);
                px[2] = (uint8_t)(grey ? r * 51 : b * 51);
                if (channels == 4) px[3] = 255;
            }
    for (int i = 0; i < 16; i++, n++) {
        uint8_t *px = in + n * channels;
        px[0] = px[1] = px[2] = (uint8_t)(i * 17);
        if (channels == 4) px[3] = 255;
    }
    if (fast)
        shaper_apply(fast, in, out, (cmsUInt32Number)n, channels);
    else
        cmsDoTransform(transform, in, out, (cmsUInt32Number)n);
    for (int i = 0; i < n * channels; i++) {
        if (channels == 4 && i % 4 == 3) continue;
        int d = (int)in[i] - (int)out[i];
        if (d > 1 || d < -1) return 0;
    }
    return 1;
}

// Converts `rows` rows of `width` pixels at `pixels` (stride bytes apart).
static ci_status convert(const ci_colour_tag *tag, uint8_t *pixels, uint32_t width, uint32_t rows,
                         size_t stride, int channels, const char *name, ci_error *err) {
    if (!tag || (!tag->icc && !tag->has_nclx) || width == 0 || rows == 0) return CI_OK;
    cmsContext context = cmsCreateContext(NULL, NULL);
    if (!context) return ci_fail(err, CI_ERR_NO_MEMORY, "%s: out of memory converting colours", name);
    cmsSetLogErrorHandlerTHR(context, quiet);
    cmsHPROFILE source = source_profile(context, tag);
    shaper *fast = source ? malloc(sizeof *fast) : NULL;
    if (fast && shaper_for(context, source, fast)) {
        if (!is_near_identity(NULL, fast, channels, fast->grey))
            for (uint32_t y = 0; y < rows; y++)
                shaper_apply(fast, pixels + (size_t)y * stride, pixels + (size_t)y * stride, width, channels);
    } else if (source) {
        cmsHTRANSFORM transform = transform_for(context, source, channels);
        if (transform) {
            int grey = (cmsGetTransformInputFormat(transform) & COLORSPACE_SH(31)) == COLORSPACE_SH(PT_GRAY);
            if (!is_near_identity(transform, NULL, channels, grey)) {
                // In place: lcms2 converts pixel by pixel, input and output
                // formats the same size.
                cmsDoTransformLineStride(transform, pixels, pixels, width, rows, (cmsUInt32Number)stride,
                                         (cmsUInt32Number)stride, 0, 0);
            }
            cmsDeleteTransform(transform);
        }
    }
    free(fast);
    if (source) cmsCloseProfile(source);
    cmsDeleteContext(context);
    return CI_OK;
}

ci_status ci_colour_convert_cell(const ci_colour_tag *tag, ci_image *canvas, ci_rect cell,
                                 const char *name, ci_error *err) {
    if (!canvas || canvas->channels != 3) return CI_OK;
    // The part of the cell on the canvas.
    int64_t left = cell.x < 0 ? 0 : cell.x, top = cell.y < 0 ? 0 : cell.y;
    int64_t right = (int64_t)cell.x + cell.width, bottom = (int64_t)cell.y + cell.height;
    if (right > canvas->width) right = canvas->width;
    if (bottom > canvas->height) bottom = canvas->height;
    if (right <= left || bottom <= top) return CI_OK;
    uint8_t *origin = canvas->pixels + (size_t)top * canvas->stride + (size_t)left * 3;
    return convert(tag, origin, (uint32_t)(right - left), (uint32_t)(bottom - top), canvas->stride, 3,
                   name, err);
}

ci_status ci_colour_convert_image(const ci_colour_tag *tag, ci_image *image, const char *name,
                                  ci_error *err) {
    if (!image || !image->pixels || (image->channels != 3 && image->channels != 4)) return CI_OK;
    return convert(tag, image->pixels, image->width, image->height, image->stride, image->channels,
                   name, err);
}

// --- CMYK and Lab rows ---------------------------------------------------------

struct ci_row_converter {
    cmsContext context;
    cmsHTRANSFORM transform;
    int channels;
};

// A converter from `in` samples of `source` (made in the converter's context
// by `make`, which may return NULL) to sRGB, or NULL.
static ci_row_converter *rows_open(cmsHPROFILE (*make)(cmsContext context, const void *data), const void *data,
                                   cmsColorSpaceSignature space, cmsUInt32Number in, int channels) {
    ci_row_converter *converter = calloc(1, sizeof *converter);
    if (!converter) return NULL;
    converter->channels = channels;
    converter->context = cmsCreateContext(NULL, NULL);
    if (converter->context) {
        cmsSetLogErrorHandlerTHR(converter->context, quiet);
        cmsHPROFILE source = make(converter->context, data);
        cmsHPROFILE srgb = cmsCreate_sRGBProfileTHR(converter->context);
        if (source && srgb && cmsGetColorSpace(source) == space)
            converter->transform = cmsCreateTransformTHR(converter->context, source, in, srgb,
                                                         channels == 4 ? TYPE_RGBA_8 : TYPE_RGB_8,
                                                         INTENT_RELATIVE_COLORIMETRIC,
                                                         cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_NOCACHE);
        if (source) cmsCloseProfile(source);
        if (srgb) cmsCloseProfile(srgb);
    }
    if (!converter->transform) {
        ci_colour_rows_close(converter);
        return NULL;
    }
    return converter;
}

static cmsHPROFILE tag_profile(cmsContext context, const void *data) {
    const ci_colour_tag *tag = data;
    return cmsOpenProfileFromMemTHR(context, tag->icc, (cmsUInt32Number)tag->icc_size);
}

ci_row_converter *ci_colour_cmyk_open(const ci_colour_tag *tag, int adobe_inverted, int channels) {
    if (!tag || !tag->icc || tag->icc_size < 128 || tag->icc_size > UINT32_MAX) return NULL;
    // Photoshop's inverted samples are lcms2's "reversed" flavour.
    return rows_open(tag_profile, tag, cmsSigCmykData, adobe_inverted ? TYPE_CMYK_8_REV : TYPE_CMYK_8, channels);
}

static cmsHPROFILE lab_profile(cmsContext context, const void *data) {
    (void)data;
    return cmsCreateLab4ProfileTHR(context, NULL);  // D50, ICC's Lab
}

ci_row_converter *ci_colour_lab_open(int channels) {
    // L*, a*, b* and a byte skipped (TYPE_Lab_8 with one extra channel).
    const cmsUInt32Number labx = COLORSPACE_SH(PT_Lab) | CHANNELS_SH(3) | BYTES_SH(1) | EXTRA_SH(1);
    return rows_open(lab_profile, NULL, cmsSigLabData, labx, channels);
}

void ci_colour_row(ci_row_converter *converter, const uint8_t *samples, uint8_t *out, uint32_t width) {
    cmsDoTransform(converter->transform, samples, out, width);
    if (converter->channels == 4)
        for (uint32_t x = 0; x < width; x++) out[x * 4 + 3] = 255;
}

void ci_colour_rows_close(ci_row_converter *converter) {
    if (!converter) return;
    if (converter->transform) cmsDeleteTransform(converter->transform);
    if (converter->context) cmsDeleteContext(converter->context);
    free(converter);
}
