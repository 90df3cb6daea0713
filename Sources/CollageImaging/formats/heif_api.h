// heif_api.h — the libheif and libde265 functions heif_load.c calls, looked up
// at run time (heif_api.c says why). Not part of the public API.
#ifndef COLLAGE_IMAGING_HEIF_API_H
#define COLLAGE_IMAGING_HEIF_API_H

#include "../internal.h"

#include <libde265/de265.h>
#include <libheif/heif.h>

// libheif 1.16 lists an item's transformations itself (heif_load.c's
// `transformations`); with 1.15 (Debian 12) heif_box.c reads them.
#if LIBHEIF_HAVE_VERSION(1, 16, 0)
#include <libheif/heif_properties.h>
#define CI_HEIF_FUNCTIONS_1_16(X)                     \
    X(heif_image_handle_get_item_id)                  \
    X(heif_item_get_transformation_properties)        \
    X(heif_item_get_property_type)                    \
    X(heif_item_get_property_transform_rotation_ccw)  \
    X(heif_item_get_property_transform_mirror)        \
    X(heif_item_get_property_transform_crop_borders)
#else
#define CI_HEIF_FUNCTIONS_1_16(X)
#endif

// libheif 1.19 decodes one tile of a grid (heif_load.c's `tile_layout`);
// with an older one libde265 decodes the tiles' HEVC data itself.
#if LIBHEIF_HAVE_VERSION(1, 19, 0)
#if __has_include(<libheif/heif_tiling.h>)
#include <libheif/heif_tiling.h>
#endif
#define CI_HEIF_FUNCTIONS_1_19(X)           \
    X(heif_image_handle_get_image_tiling)   \
    X(heif_image_handle_decode_image_tile)
#else
#define CI_HEIF_FUNCTIONS_1_19(X)
#endif

#define CI_HEIF_FUNCTIONS(X)                      \
    X(heif_get_version)                           \
    X(heif_context_alloc)                         \
    X(heif_context_free)                          \
    X(heif_context_read_from_memory_without_copy) \
    X(heif_context_get_primary_image_handle)      \
    X(heif_image_handle_release)                  \
    X(heif_image_handle_get_width)                \
    X(heif_image_handle_get_height)               \
    X(heif_image_handle_get_ispe_width)           \
    X(heif_image_handle_get_ispe_height)          \
    X(heif_image_handle_has_alpha_channel)        \
    X(heif_image_handle_get_list_of_thumbnail_IDs) \
    X(heif_image_handle_get_thumbnail)            \
    X(heif_image_handle_get_raw_color_profile_size) \
    X(heif_image_handle_get_raw_color_profile)    \
    X(heif_image_handle_get_list_of_metadata_block_IDs) \
    X(heif_image_handle_get_metadata_size)        \
    X(heif_image_handle_get_metadata)             \
    X(heif_image_handle_get_nclx_color_profile)   \
    X(heif_nclx_color_profile_free)               \
    X(heif_decoding_options_alloc)                \
    X(heif_decoding_options_free)                 \
    X(heif_decode_image)                          \
    X(heif_image_release)                         \
    X(heif_image_get_colorspace)                  \
    X(heif_image_get_chroma_format)               \
    X(heif_image_get_width)                       \
    X(heif_image_get_height)                      \
    X(heif_image_get_bits_per_pixel_range)        \
    X(heif_image_get_plane_readonly)              \
    X(heif_image_has_channel)                     \
    X(heif_image_get_nclx_color_profile)          \
    X(heif_context_get_encoder_for_format)        \
    X(heif_encoder_release)                       \
    X(heif_encoder_set_lossy_quality)             \
    X(heif_encoder_set_parameter_integer)         \
    X(heif_encoder_set_parameter_string)          \
    X(heif_image_create)                          \
    X(heif_image_add_plane)                       \
    X(heif_image_get_plane)                       \
    X(heif_image_set_raw_color_profile)           \
    X(heif_encoding_options_alloc)                \
    X(heif_encoding_options_free)                 \
    X(heif_context_encode_image)                  \
    X(heif_context_add_exif_metadata)             \
    X(heif_context_write)                         \
    CI_HEIF_FUNCTIONS_1_16(X)                     \
    CI_HEIF_FUNCTIONS_1_19(X)

#define CI_DE265_FUNCTIONS(X)   \
    X(de265_get_version)        \
    X(de265_new_decoder)        \
    X(de265_free_decoder)       \
    X(de265_push_NAL)           \
    X(de265_flush_data)         \
    X(de265_decode)             \
    X(de265_peek_next_picture)  \
    X(de265_get_next_picture)   \
    X(de265_get_error_text)     \
    X(de265_isOK)               \
    X(de265_get_chroma_format)  \
    X(de265_get_bits_per_pixel) \
    X(de265_get_image_plane)    \
    X(de265_get_image_width)    \
    X(de265_get_image_height)   \
    X(de265_set_parameter_bool)     \
    X(de265_get_image_full_range_flag) \
    X(de265_get_image_colour_primaries) \
    X(de265_get_image_transfer_characteristics) \
    X(de265_get_image_matrix_coefficients)

typedef struct {
    void *heif, *de265;  // dlopen handles, one reference each
#define CI_API_MEMBER(function) __typeof__(&function) function;
    CI_HEIF_FUNCTIONS(CI_API_MEMBER)
    CI_DE265_FUNCTIONS(CI_API_MEMBER)
#undef CI_API_MEMBER
} ci_heif_api;

// Opens the libraries (loaded once per process) and looks the functions up.
// On failure nothing is left open and the message says what is missing.
ci_status ci_heif_api_open(ci_heif_api *api, const char *name, ci_error *err);
void ci_heif_api_close(ci_heif_api *api);  // safe on a zeroed or failed api

#endif
