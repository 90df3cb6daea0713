/*
 * Where a photo was taken, offline: the nearest populated place in GeoNames'
 * places of more than 1,000 people (CC BY 4.0; LICENSE-geonames.txt), a table
 * the binary carries (places.bin, made by scripts/places/make-places.py).
 *
 * One call, no handle and no state: the table is read in place, so it is
 * thread-safe and costs nothing until it is asked.
 */
#ifndef COLLAGE_PLACES_H
#define COLLAGE_PLACES_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cp_place {
    const char *name;    /* the place, UTF-8 ("Arezzo"); static storage */
    const char *region;  /* its first-level region ("Tuscany"), "" when unknown */
    char country[3];     /* ISO 3166 code ("IT") */
    double distance_km;  /* from the point asked about, along the Earth */
} cp_place;

/*
 * The place nearest to (latitude, longitude), in degrees (WGS 84, as GPS
 * EXIF gives them), no farther than max_km (at most 500): 1 with *out
 * filled; 0 when no place is that near, or the point is not on the Earth.
 */
int cp_nearest_place(double latitude, double longitude, double max_km, cp_place *out);

/* The distance between two points in degrees, in km along the Earth
 * (haversine on a sphere of the Earth's mean radius). */
double cp_distance_km(double latitude1, double longitude1, double latitude2, double longitude2);

#ifdef __cplusplus
}
#endif

#endif
