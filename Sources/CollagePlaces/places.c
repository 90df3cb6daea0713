/*
 * The nearest populated place, from the table scripts/places/make-places.py
 * writes (its docstring gives the layout): one-degree cells, each listing its
 * places, so a lookup reads the few cells that a circle of max_km touches.
 * Written by hand because no Debian library does offline reverse geocoding;
 * a grid over a sorted table needs no index built at run time, so there is
 * nothing to allocate, cache or free.
 */
#include "collage_places.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#pragma clang diagnostic ignored "-Wc23-extensions"
/* The table, carried by the binary: #embed (C23) keeps it a file of its own. */
static const unsigned char places_table[] = {
#embed "places.bin"
};

enum { HEADER_BYTES = 32, PLACE_BYTES = 10, REGION_BYTES = 6 };

static uint32_t u32_at(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t u16_at(const unsigned char *p) {
    return (uint16_t)(p[0] | p[1] << 8);
}

typedef struct {
    uint32_t places, regions, name_bytes;
    int32_t south, west;
    uint32_t rows, columns;
    const unsigned char *cells, *place_records, *region_records;
    const char *names;
} table_view;

/* The table's parts, checked against its length: 0 if it is not the
 * table this code reads (a table made by another version of the script). */
static int open_table(table_view *t) {
    const unsigned char *p = places_table;
    if (sizeof places_table < HEADER_BYTES || memcmp(p, "CPL1", 4) != 0) return 0;
    t->places = u32_at(p + 4);
    t->regions = u32_at(p + 8);
    t->name_bytes = u32_at(p + 12);
    t->south = (int32_t)u32_at(p + 16);
    t->west = (int32_t)u32_at(p + 20);
    t->rows = u32_at(p + 24);
    t->columns = u32_at(p + 28);
    uint64_t cells = (uint64_t)t->rows * t->columns + 1;
    uint64_t size = HEADER_BYTES + cells * 4 + (uint64_t)t->places * PLACE_BYTES
                    + (uint64_t)t->regions * REGION_BYTES + t->name_bytes;
    if (t->rows == 0 || t->columns == 0 || size != sizeof places_table) return 0;
    t->cells = p + HEADER_BYTES;
    t->place_records = t->cells + cells * 4;
    t->region_records = t->place_records + (uint64_t)t->places * PLACE_BYTES;
    t->names = (const char *)(t->region_records + (uint64_t)t->regions * REGION_BYTES);
    return 1;
}

static const double earth_radius_km = 6371.0088;

static double radians(double degrees) { return degrees * (M_PI / 180.0); }

/* Great-circle distance (haversine): exact enough at every distance asked. */
double cp_distance_km(double lat1, double lon1, double lat2, double lon2) {
    double dlat = radians(lat2 - lat1), dlon = radians(lon2 - lon1);
    double a = sin(dlat / 2) * sin(dlat / 2)
               + cos(radians(lat1)) * cos(radians(lat2)) * sin(dlon / 2) * sin(dlon / 2);
    return 2 * earth_radius_km * asin(fmin(1.0, sqrt(a)));
}

int cp_nearest_place(double latitude, double longitude, double max_km, cp_place *out) {
    table_view t;
    if (!out || !open_table(&t)) return 0;
    if (!(latitude >= -90 && latitude <= 90 && longitude >= -180 && longitude <= 180)) return 0;
    if (!(max_km > 0)) return 0;
    if (max_km > 500) max_km = 500;

    /* The cells a circle of max_km can touch: a degree of latitude is about
     * 111 km everywhere; one of longitude shrinks with the latitude's cosine
     * (near a pole the whole band of longitudes is read). */
    double dlat = max_km / 110.5 + 0.01;
    double cosine = cos(radians(fmin(89.0, fabs(latitude) + dlat)));
    double dlon = cosine > 0.01 ? max_km / (111.3 * cosine) + 0.01 : 360;
    int row_lo = (int)floor(latitude - dlat - t.south), row_hi = (int)floor(latitude + dlat - t.south);
    if (row_lo < 0) row_lo = 0;
    if (row_hi > (int)t.rows - 1) row_hi = (int)t.rows - 1;
    int span = dlon >= 180 ? (int)t.columns : (int)ceil(2 * dlon) + 1;
    int col_lo = (int)floor(longitude - dlon - t.west);

    double best = max_km;
    int64_t found = -1;
    for (int row = row_lo; row <= row_hi; row++) {
        for (int k = 0; k < span && k < (int)t.columns; k++) {
            /* Longitudes wrap at the antimeridian. */
            int col = ((col_lo + k) % (int)t.columns + (int)t.columns) % (int)t.columns;
            uint64_t cell = (uint64_t)row * t.columns + (uint64_t)col;
            uint32_t first = u32_at(t.cells + cell * 4), end = u32_at(t.cells + (cell + 1) * 4);
            if (end > t.places || first > end) return 0;
            for (uint32_t i = first; i < end; i++) {
                const unsigned char *rec = t.place_records + (uint64_t)i * PLACE_BYTES;
                double plat = t.south + row + u16_at(rec) / 65535.0;
                double plon = t.west + col + u16_at(rec + 2) / 65535.0;
                double d = cp_distance_km(latitude, longitude, plat, plon);
                if (d <= best) {
                    best = d;
                    found = i;
                }
            }
        }
    }
    if (found < 0) return 0;

    const unsigned char *rec = t.place_records + (uint64_t)found * PLACE_BYTES;
    uint16_t region = u16_at(rec + 4);
    uint32_t name = u32_at(rec + 6);
    if (region >= t.regions || name >= t.name_bytes) return 0;
    const unsigned char *reg = t.region_records + (uint64_t)region * REGION_BYTES;
    uint32_t region_name = u32_at(reg);
    if (region_name >= t.name_bytes) return 0;
    out->name = t.names + name;
    out->region = t.names + region_name;
    out->country[0] = (char)reg[4];
    out->country[1] = (char)reg[5];
    out->country[2] = 0;
    out->distance_km = best;
    return 1;
}
