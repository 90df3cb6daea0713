// jpeglib.h needs the declarations of stdio.h (FILE, size_t) before it.
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
