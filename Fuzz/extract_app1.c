// extract_app1.c — writes the first EXIF APP1 payload ("Exif\0\0...") of a
// JPEG to a file: the seeds of the EXIF harness. Exits 1 when there is none.
//   extract_app1 IN.jpg OUT.app1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: extract_app1 IN.jpg OUT.app1\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    if (!in) return 1;
    static unsigned char data[1 << 24];
    size_t size = fread(data, 1, sizeof data, in);
    fclose(in);
    if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return 1;
    size_t at = 2;
    while (at + 4 <= size && data[at] == 0xFF) {
        unsigned marker = data[at + 1];
        if (marker == 0xDA || marker == 0xD9) break;  // start of scan, end of image
        size_t length = ((size_t)data[at + 2] << 8) | data[at + 3];
        if (length < 2 || at + 2 + length > size) break;
        const unsigned char *payload = data + at + 4;
        size_t payload_size = length - 2;
        if (marker == 0xE1 && payload_size >= 6 && memcmp(payload, "Exif\0\0", 6) == 0) {
            FILE *out = fopen(argv[2], "wb");
            if (!out) return 1;
            fwrite(payload, 1, payload_size, out);
            return fclose(out) == 0 ? 0 : 1;
        }
        at += 2 + length;
    }
    return 1;
}
