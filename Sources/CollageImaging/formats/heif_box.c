// heif_box.c — the geometric transformations (clap, irot, imir) of a HEIF's
// primary image, read from its boxes.
//
// Why by hand: the engine decodes with libheif's ignore_transformations and
// applies the transformations itself at cell size (libheif 1.15 rotates the
// full-size image with a byte-by-byte strided copy that took 28% of a phone
// photo's decode), and libheif 1.15 has no public API for an item's
// transformative properties (heif_properties.h came with 1.16). This reads
// only what that needs: ftyp..meta -> pitm, iprp -> ipco + ipma, in memory,
// every length checked against its parent; libheif has parsed (and
// validated) the same file before this runs.
#include "../internal.h"

#include <string.h>

typedef ci_bytes span;

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

// The next box of `parent` from `*at`: its type and payload. 0 at the end or
// on a box that does not fit.
static int next_box(span parent, size_t *at, char type[4], span *payload) {
    if (*at + 8 > parent.size) return 0;
    const uint8_t *p = parent.data + *at;
    uint64_t size = be32(p);
    size_t header = 8;
    if (size == 1) {
        if (*at + 16 > parent.size) return 0;
        size = (uint64_t)be32(p + 8) << 32 | be32(p + 12);
        header = 16;
    } else if (size == 0) {
        size = parent.size - *at;  // to the end of the parent
    }
    if (size < header || size > parent.size - *at) return 0;
    memcpy(type, p + 4, 4);
    payload->data = p + header;
    payload->size = (size_t)size - header;
    *at += (size_t)size;
    return 1;
}

// The payload of the first child box of `type`.
static int find_box(span parent, const char *type, span *payload) {
    size_t at = 0;
    char found[4];
    while (next_box(parent, &at, found, payload))
        if (memcmp(found, type, 4) == 0) return 1;
    return 0;
}

// The map from the shown image to the stored one (ci_heif_mapping): each
// transformation composes onto it.
typedef ci_heif_mapping mapping;

// `m` followed by: current pixel (u, v) = previous pixel (p*u + q*v + s, r*u + t*v + w).
static void compose(mapping *m, int64_t p, int64_t q, int64_t s, int64_t r, int64_t t, int64_t w,
                    int64_t width, int64_t height) {
    mapping n;
    n.a = m->a * p + m->b * r;
    n.b = m->a * q + m->b * t;
    n.c = m->c * p + m->d * r;
    n.d = m->c * q + m->d * t;
    n.x = m->a * s + m->b * w + m->x;
    n.y = m->c * s + m->d * w + m->y;
    n.width = width;
    n.height = height;
    *m = n;
}

// floor(numerator / denominator) for a positive denominator.
static int64_t floor_div(int64_t numerator, int64_t denominator) {
    int64_t q = numerator / denominator;
    if ((numerator % denominator != 0) && ((numerator < 0) != (denominator < 0))) q--;
    return q;
}

// clap: the crop libheif 1.15 applies (Box_clap::left_rounded and friends):
// the aperture's centre is the image's centre ((size - 1) / 2) plus the
// offset, its first pixel that centre minus (aperture - 1) / 2, rounded
// down. Returns 0 for an aperture that is empty or reaches outside.
static int apply_clap(mapping *m, span box) {
    if (box.size < 32) return 0;
    int64_t wn = be32(box.data), wd = be32(box.data + 4);
    int64_t hn = be32(box.data + 8), hd = be32(box.data + 12);
    int64_t xn = (int32_t)be32(box.data + 16), xd = be32(box.data + 20);
    int64_t yn = (int32_t)be32(box.data + 24), yd = be32(box.data + 28);
    if (wd <= 0 || hd <= 0 || xd <= 0 || yd <= 0) return 0;
    // left = xn/xd + (W - 1)/2 - (wn/wd - 1)/2, over the common denominator 2*xd*wd.
    int64_t den_x = 2 * xd * wd, den_y = 2 * yd * hd;
    int64_t left = floor_div(2 * xn * wd + (m->width - 1) * xd * wd - (wn - wd) * xd, den_x);
    int64_t top = floor_div(2 * yn * hd + (m->height - 1) * yd * hd - (hn - hd) * yd, den_y);
    // right = left + width - 1 (rounded the same way): the width in whole pixels.
    int64_t right = floor_div(2 * xn * wd + (m->width - 1) * xd * wd + (wn - wd) * xd, den_x);
    int64_t bottom = floor_div(2 * yn * hd + (m->height - 1) * yd * hd + (hn - hd) * yd, den_y);
    if (left < 0) left = 0;
    if (top < 0) top = 0;
    if (right >= m->width) right = m->width - 1;
    if (bottom >= m->height) bottom = m->height - 1;
    return ci_heif_mapping_crop(m, left, top, right, bottom);
}

int ci_heif_mapping_crop(ci_heif_mapping *m, int64_t left, int64_t top, int64_t right, int64_t bottom) {
    if (left < 0 || top < 0 || right >= m->width || bottom >= m->height || right < left || bottom < top) return 0;
    compose(m, 1, 0, left, 0, 1, top, right - left + 1, bottom - top + 1);
    return 1;
}

// irot: `turns` quarter turns anticlockwise.
void ci_heif_mapping_rotate(ci_heif_mapping *m, int turns) {
    int64_t w = m->width, h = m->height;
    switch (turns & 3) {
    case 1: compose(m, 0, -1, w - 1, 1, 0, 0, h, w); break;          // N(u,v) = C(W-1-v, u)
    case 2: compose(m, -1, 0, w - 1, 0, -1, h - 1, w, h); break;     // N(u,v) = C(W-1-u, H-1-v)
    case 3: compose(m, 0, 1, 0, -1, 0, h - 1, h, w); break;          // N(u,v) = C(v, H-1-u)
    default: break;
    }
}

// imir: libheif 1.15 reads axis 0 as "vertical" and flips top to bottom
// (heif_transform_mirror_direction_vertical), axis 1 left to right; this
// follows it, so a file looks as heif-convert shows it.
void ci_heif_mapping_mirror(ci_heif_mapping *m, int axis) {
    if (axis & 1)
        compose(m, -1, 0, m->width - 1, 0, 1, 0, m->width, m->height);
    else
        compose(m, 1, 0, 0, 0, -1, m->height - 1, m->width, m->height);
}

// The EXIF orientation (1-8) whose turn the matrix is (see orient.c's walks).
static int orientation_of(const mapping *m) {
    if (m->b == 0) {
        if (m->a > 0) return m->d > 0 ? 1 : 4;
        return m->d > 0 ? 2 : 3;
    }
    if (m->b > 0) return m->c > 0 ? 5 : 6;
    return m->c > 0 ? 8 : 7;
}

// The index-th (1-based) property of ipco.
static int property_at(span ipco, unsigned index, char kind[4], span *property) {
    size_t cursor = 0;
    unsigned i = 0;
    while (next_box(ipco, &cursor, kind, property))
        if (++i == index) return 1;
    return 0;
}

// Calls `visit` with each property of `item` that iprp's ipma boxes list,
// in their order (found = 0 for an index ipco does not have), until it
// returns nonzero. Returns what it returned (1: stop, -1: give up), 0 when
// every property was visited, -1 for an ipma box that breaks off.
typedef int (*property_visitor)(const char kind[4], span property, int found, void *context);

static int for_each_property(span iprp, span ipco, uint32_t item, property_visitor visit, void *context) {
    size_t at = 0;
    char type[4];
    span ipma;
    while (next_box(iprp, &at, type, &ipma)) {
        if (memcmp(type, "ipma", 4) != 0 || ipma.size < 8) continue;
        int version = ipma.data[0], wide_index = ipma.data[3] & 1;
        uint32_t entries = be32(ipma.data + 4);
        size_t p = 8;
        for (uint32_t e = 0; e < entries; e++) {
            size_t id_bytes = version < 1 ? 2 : 4;
            if (p + id_bytes + 1 > ipma.size) return -1;
            uint32_t id = version < 1 ? be16(ipma.data + p) : be32(ipma.data + p);
            p += id_bytes;
            unsigned count = ipma.data[p++];
            size_t bytes = (size_t)count * (wide_index ? 2 : 1);
            if (p + bytes > ipma.size) return -1;
            for (unsigned k = 0; id == item && k < count; k++) {
                unsigned index = wide_index ? (be16(ipma.data + p + 2 * k) & 0x7FFF) : (ipma.data[p + k] & 0x7F);
                if (index == 0) continue;
                char kind[4] = {0, 0, 0, 0};
                span property = {NULL, 0};
                int found = property_at(ipco, index, kind, &property);
                int verdict = visit(kind, property, found, context);
                if (verdict != 0) return verdict;
            }
            p += bytes;
        }
    }
    return 0;
}

// A transformation property applied to the mapping: for_each_property's
// visitor. A property ipco lacks, or a clap that does not fit, gives up.
static int apply_transform(const char kind[4], span property, int found, void *context) {
    mapping *m = context;
    if (!found) return -1;
    if (memcmp(kind, "irot", 4) == 0 && property.size >= 1) ci_heif_mapping_rotate(m, property.data[0] & 3);
    else if (memcmp(kind, "imir", 4) == 0 && property.size >= 1) ci_heif_mapping_mirror(m, property.data[0] & 1);
    else if (memcmp(kind, "clap", 4) == 0 && !apply_clap(m, property)) return -1;
    return 0;
}

int ci_heif_transform(const uint8_t *data, size_t size, uint32_t stored_width,
                      uint32_t stored_height, ci_heif_geometry *out) {
    memset(out, 0, sizeof *out);
    out->orientation = 1;
    out->crop_width = stored_width;
    out->crop_height = stored_height;
    out->width = stored_width;
    out->height = stored_height;

    span file = {data, size}, meta, iprp, ipco, pitm;
    if (!find_box(file, "meta", &meta) || meta.size < 4) return 0;
    meta.data += 4;  // FullBox: version and flags
    meta.size -= 4;
    if (!find_box(meta, "pitm", &pitm) || pitm.size < 6) return 0;
    uint32_t primary = pitm.data[0] == 0 ? be16(pitm.data + 4)
                                         : (pitm.size >= 8 ? be32(pitm.data + 4) : 0);
    if (!find_box(meta, "iprp", &iprp) || !find_box(iprp, "ipco", &ipco)) return 1;

    mapping m;
    ci_heif_mapping_start(&m, stored_width, stored_height);
    // The primary item's properties in the order listed, which is the order
    // the transformations apply in (ISO/IEC 23008-12 6.5.1).
    if (for_each_property(iprp, ipco, primary, apply_transform, &m) < 0) return 0;
    return ci_heif_mapping_finish(&m, stored_width, stored_height, out);
}

void ci_heif_mapping_start(ci_heif_mapping *m, uint32_t stored_width, uint32_t stored_height) {
    *m = (ci_heif_mapping){1, 0, 0, 1, 0, 0, stored_width, stored_height};
}

int ci_heif_mapping_finish(const ci_heif_mapping *m, uint32_t stored_width, uint32_t stored_height,
                           ci_heif_geometry *out) {
    // The crop: the stored pixels the displayed image covers.
    int64_t x0 = m->x, y0 = m->y;
    int64_t x1 = m->a * (m->width - 1) + m->b * (m->height - 1) + m->x;
    int64_t y1 = m->c * (m->width - 1) + m->d * (m->height - 1) + m->y;
    int64_t left = x0 < x1 ? x0 : x1, right = x0 < x1 ? x1 : x0;
    int64_t top = y0 < y1 ? y0 : y1, bottom = y0 < y1 ? y1 : y0;
    if (left < 0 || top < 0 || right >= stored_width || bottom >= stored_height) return 0;
    out->crop_x = (uint32_t)left;
    out->crop_y = (uint32_t)top;
    out->crop_width = (uint32_t)(right - left + 1);
    out->crop_height = (uint32_t)(bottom - top + 1);
    out->orientation = orientation_of(m);
    out->width = (uint32_t)m->width;
    out->height = (uint32_t)m->height;
    return 1;
}

// ---------------------------------------------------------------------------
// The primary image as HEVC tiles (heif_load.c decodes the ones a cell shows)

// An unsigned big-endian field of `bytes` (0, 4 or 8) at *at, advancing it.
static int read_field(span s, size_t *at, unsigned bytes, uint64_t *value) {
    *value = 0;
    if (bytes != 0 && bytes != 4 && bytes != 8) return 0;
    if (*at + bytes > s.size) return 0;
    for (unsigned i = 0; i < bytes; i++) *value = *value << 8 | s.data[*at + i];
    *at += bytes;
    return 1;
}

// The item's type from iinf (infe version 2 or 3).
static int item_type(span meta, uint32_t item, char type[4]) {
    span iinf, infe;
    if (!find_box(meta, "iinf", &iinf) || iinf.size < 6) return 0;
    size_t at = iinf.data[0] == 0 ? 6 : 8;  // FullBox, then a 16- or 32-bit count
    if (at > iinf.size) return 0;
    span children = {iinf.data + at, iinf.size - at};
    size_t cursor = 0;
    char kind[4];
    while (next_box(children, &cursor, kind, &infe)) {
        if (memcmp(kind, "infe", 4) != 0 || infe.size < 4) continue;
        int version = infe.data[0];
        if (version < 2) continue;
        size_t id_bytes = version == 2 ? 2 : 4;
        if (infe.size < 4 + id_bytes + 2 + 4) continue;
        uint32_t id = version == 2 ? be16(infe.data + 4) : be32(infe.data + 4);
        if (id == item) {
            memcpy(type, infe.data + 4 + id_bytes + 2, 4);
            return 1;
        }
    }
    return 0;
}

// The one extent of `item` from iloc.
static int item_bytes(span file, span meta, uint32_t item, span *out) {
    span iloc;
    if (!find_box(meta, "iloc", &iloc) || iloc.size < 8) return 0;
    int version = iloc.data[0];
    if (version > 2) return 0;
    unsigned offset_size = iloc.data[4] >> 4, length_size = iloc.data[4] & 15;
    unsigned base_size = iloc.data[5] >> 4, index_size = version >= 1 ? (iloc.data[5] & 15) : 0;
    size_t at = 6;
    uint64_t count;
    if (version < 2) {
        count = be16(iloc.data + at);  // 8 bytes checked above
        at += 2;
    } else if (!read_field(iloc, &at, 4, &count)) {
        return 0;
    }
    for (uint64_t i = 0; i < count; i++) {
        uint64_t id, method = 0, base, extents;
        if (version < 2) {
            if (at + 2 > iloc.size) return 0;
            id = be16(iloc.data + at);
            at += 2;
        } else if (!read_field(iloc, &at, 4, &id)) {
            return 0;
        }
        if (version >= 1) {
            if (at + 2 > iloc.size) return 0;
            method = be16(iloc.data + at) & 15;
            at += 2;
        }
        if (at + 2 > iloc.size) return 0;
        uint16_t reference = be16(iloc.data + at);
        at += 2;
        if (!read_field(iloc, &at, base_size, &base)) return 0;
        if (at + 2 > iloc.size) return 0;
        extents = be16(iloc.data + at);
        at += 2;
        uint64_t offset = 0, length = 0, index;
        for (uint64_t e = 0; e < extents; e++) {
            if (!read_field(iloc, &at, index_size, &index) || !read_field(iloc, &at, offset_size, &offset) ||
                !read_field(iloc, &at, length_size, &length))
                return 0;
        }
        if (id != item) continue;
        // One extent, of a known length, in this file (method 0) or in the
        // meta box's idat (method 1, where phones keep a grid's layout):
        // anything else is left to libheif.
        span within = file;
        if (method == 1 && !find_box(meta, "idat", &within)) return 0;
        if (method > 1 || reference != 0 || extents != 1 || length == 0) return 0;
        uint64_t start = base + offset;
        if (start > within.size || length > within.size - start) return 0;
        out->data = within.data + start;
        out->size = (size_t)length;
        return 1;
    }
    return 0;
}

// The properties of `type` of one item (the first one): for_each_property's visitor.
typedef struct {
    const char *type;
    span *out;
} property_search;

static int match_property(const char kind[4], span property, int found, void *context) {
    property_search *search = context;
    if (!found || memcmp(kind, search->type, 4) != 0) return 0;
    *search->out = property;
    return 1;
}

static int item_property(span iprp, span ipco, uint32_t item, const char *type, span *out) {
    property_search search = {type, out};
    return for_each_property(iprp, ipco, item, match_property, &search) == 1;
}

// An hvc1 item's coded size (ispe) and decoder configuration (hvcC).
static int hevc_item(span iprp, span ipco, uint32_t item, uint32_t *width, uint32_t *height, span *config) {
    span ispe;
    if (!item_property(iprp, ipco, item, "ispe", &ispe) || ispe.size < 12) return 0;
    if (!item_property(iprp, ipco, item, "hvcC", config) || config->size < 23) return 0;
    *width = be32(ispe.data + 4);
    *height = be32(ispe.data + 8);
    return *width > 0 && *height > 0;
}

ci_status ci_heif_hevc_layout(const uint8_t *data, size_t size, ci_hevc_layout *out) {
    memset(out, 0, sizeof *out);
    span file = {data, size}, meta, pitm, iprp, ipco;
    if (!find_box(file, "meta", &meta) || meta.size < 4) return CI_ERR_UNSUPPORTED;
    meta.data += 4;
    meta.size -= 4;
    if (!find_box(meta, "pitm", &pitm) || pitm.size < 6) return CI_ERR_UNSUPPORTED;
    uint32_t primary = pitm.data[0] == 0 ? be16(pitm.data + 4) : (pitm.size >= 8 ? be32(pitm.data + 4) : 0);
    if (!find_box(meta, "iprp", &iprp) || !find_box(iprp, "ipco", &ipco)) return CI_ERR_UNSUPPORTED;
    char type[4];
    if (!item_type(meta, primary, type)) return CI_ERR_UNSUPPORTED;

    uint32_t ids[CI_HEVC_MAX_TILES];
    uint32_t count = 0;
    if (memcmp(type, "hvc1", 4) == 0) {
        ids[0] = primary;
        count = out->columns = out->rows = 1;
    } else if (memcmp(type, "grid", 4) == 0) {
        span grid, iref, reference;
        if (!item_bytes(file, meta, primary, &grid) || grid.size < 8) return CI_ERR_UNSUPPORTED;
        int wide = grid.data[1] & 1;
        if (grid.data[0] != 0 || grid.size < (size_t)(wide ? 12 : 8)) return CI_ERR_UNSUPPORTED;
        out->rows = (uint32_t)grid.data[2] + 1;
        out->columns = (uint32_t)grid.data[3] + 1;
        out->width = wide ? be32(grid.data + 4) : be16(grid.data + 4);
        out->height = wide ? be32(grid.data + 8) : be16(grid.data + 6);
        if (out->rows * out->columns > CI_HEVC_MAX_TILES) return CI_ERR_UNSUPPORTED;
        // iref dimg: the tiles, row by row.
        if (!find_box(meta, "iref", &iref) || iref.size < 4) return CI_ERR_UNSUPPORTED;
        int iref_version = iref.data[0];
        span references = {iref.data + 4, iref.size - 4};
        size_t cursor = 0;
        char kind[4];
        while (count == 0 && next_box(references, &cursor, kind, &reference)) {
            size_t id_bytes = iref_version == 0 ? 2 : 4;
            if (memcmp(kind, "dimg", 4) != 0 || reference.size < id_bytes + 2) continue;
            uint32_t from = iref_version == 0 ? be16(reference.data) : be32(reference.data);
            if (from != primary) continue;
            uint32_t n = be16(reference.data + id_bytes);
            if (n != out->rows * out->columns || reference.size < id_bytes + 2 + n * id_bytes)
                return CI_ERR_UNSUPPORTED;
            for (uint32_t i = 0; i < n; i++) {
                const uint8_t *p = reference.data + id_bytes + 2 + i * id_bytes;
                ids[i] = iref_version == 0 ? be16(p) : be32(p);
            }
            count = n;
        }
        if (count == 0) return CI_ERR_UNSUPPORTED;
    } else {
        return CI_ERR_UNSUPPORTED;
    }

    // Every tile: an hvc1 item of one size and one configuration.
    span first_config = {NULL, 0};
    for (uint32_t i = 0; i < count; i++) {
        uint32_t w, h;
        span config;
        if (!item_type(meta, ids[i], type) || memcmp(type, "hvc1", 4) != 0 ||
            !hevc_item(iprp, ipco, ids[i], &w, &h, &config) || !item_bytes(file, meta, ids[i], &out->tile[i]))
            return CI_ERR_UNSUPPORTED;
        if (i == 0) {
            out->tile_width = w;
            out->tile_height = h;
            first_config = config;
        } else if (w != out->tile_width || h != out->tile_height || config.size != first_config.size ||
                   memcmp(config.data, first_config.data, config.size) != 0) {
            return CI_ERR_UNSUPPORTED;
        }
    }
    if (count == 1 && out->width == 0) {
        out->width = out->tile_width;
        out->height = out->tile_height;
    }
    // The tiles must cover the output, and not by more than a tile.
    if ((uint64_t)out->columns * out->tile_width < out->width ||
        (uint64_t)out->rows * out->tile_height < out->height ||
        (uint64_t)(out->columns - 1) * out->tile_width >= out->width ||
        (uint64_t)(out->rows - 1) * out->tile_height >= out->height)
        return CI_ERR_UNSUPPORTED;
    out->config = first_config.data;
    out->config_size = first_config.size;
    return CI_OK;
}
