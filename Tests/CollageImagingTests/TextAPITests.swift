import CFontconfig
import CPangoCairo
import Testing

/// text_api.h declares what the engine uses of Pango, Cairo, GLib and
/// fontconfig itself (their headers would link them: they are loaded on the
/// first text). Its constants and structures, against the real headers.
@Suite struct TextAPITests {
    @Test func constantsMatchTheHeaders() {
        #expect(PANGO_SCALE == 1024)
        #expect(PANGO_WRAP_WORD_CHAR.rawValue == 2)
        #expect(PANGO_ELLIPSIZE_END.rawValue == 3)
        #expect(PANGO_ALIGN_LEFT.rawValue == 0 && PANGO_ALIGN_CENTER.rawValue == 1 && PANGO_ALIGN_RIGHT.rawValue == 2)
        #expect(CAIRO_STATUS_SUCCESS.rawValue == 0)
        #expect(CAIRO_FORMAT_ARGB32.rawValue == 0 && CAIRO_FORMAT_RGB24.rawValue == 1)
        #expect(CAIRO_STATUS_NO_MEMORY.rawValue == 1 && CAIRO_STATUS_WRITE_ERROR.rawValue == 11)
        #expect(CAIRO_MIME_TYPE_JPEG == "image/jpeg")
        #expect(CAIRO_PDF_METADATA_TITLE.rawValue == 0 && CAIRO_PDF_METADATA_CREATOR.rawValue == 4
                    && CAIRO_PDF_METADATA_CREATE_DATE.rawValue == 5)
        #expect(CAIRO_ANTIALIAS_GRAY.rawValue == 2)
        #expect(CAIRO_HINT_METRICS_OFF.rawValue == 1)
        #expect(FcSetSystem.rawValue == 0 && FcSetApplication.rawValue == 1)
        #expect(MemoryLayout<gboolean>.size == 4 && MemoryLayout<gssize>.size == MemoryLayout<Int>.size)
    }

    @Test func structuresMatchTheHeaders() {
        #expect(MemoryLayout<PangoRectangle>.size == 16)
        #expect(MemoryLayout<PangoRectangle>.offset(of: \PangoRectangle.height) == 12)
        #expect(MemoryLayout<FcFontSet>.offset(of: \FcFontSet.nfont) == 0)
        #expect(MemoryLayout<FcFontSet>.offset(of: \FcFontSet.sfont) == 4)
        #expect(MemoryLayout<FcFontSet>.offset(of: \FcFontSet.fonts) == 8)
        // Enumerations are int-sized, as text_api.h's typedefs say.
        #expect(MemoryLayout<PangoWrapMode>.size == 4 && MemoryLayout<cairo_format_t>.size == 4
                    && MemoryLayout<cairo_status_t>.size == 4 && MemoryLayout<FcSetName>.size == 4
                    && MemoryLayout<cairo_pdf_metadata_t>.size == 4)
    }
}
