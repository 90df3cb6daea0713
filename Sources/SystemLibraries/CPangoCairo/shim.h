#include <pango/pangocairo.h>
#include <cairo-pdf.h>
