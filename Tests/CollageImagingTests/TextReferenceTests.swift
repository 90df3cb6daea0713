import CPangoCairo
import CollageImaging
import Foundation
import Testing

/// The engine's text against Pango's own rendering of the same string (the
/// libraries called directly, as any Pango program would), the caption
/// band's shading, and font descriptions' sizes.
@Suite struct TextReferenceTests {
    typealias Canvas = TextTests.Canvas

    /// `text` as Pango and Cairo draw it themselves: black, centred in a white
    /// `width` x `height` RGB surface, the first line's top where the engine
    /// puts it ((height - logical height) / 2), with the engine's font options.
    static func pangoReference(_ text: String, width: Int, height: Int, pixels: Double, font: String) -> Canvas {
        let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height))
        let cr = cairo_create(surface)
        defer { cairo_destroy(cr); cairo_surface_destroy(surface) }
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_paint(cr)
        let layout = pango_cairo_create_layout(cr)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        let options = cairo_font_options_create()
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        pango_cairo_context_set_font_options(pango_layout_get_context(layout), options)
        cairo_font_options_destroy(options)
        pango_layout_context_changed(layout)
        let description = pango_font_description_from_string(font)
        pango_font_description_set_absolute_size(description, pixels * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, description)
        pango_font_description_free(description)
        pango_layout_set_width(layout, Int32(width) * PANGO_SCALE)
        pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
        pango_layout_set_text(layout, text, -1)
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        cairo_set_source_rgb(cr, 0, 0, 0)
        cairo_move_to(cr, 0, Double((Int32(height) - logical.height) / 2))
        pango_cairo_show_layout(cr, layout)
        cairo_surface_flush(surface)
        var canvas = Canvas(width: width, height: height, [255, 255, 255])
        let data = cairo_image_surface_get_data(surface)!, stride = Int(cairo_image_surface_get_stride(surface))
        for y in 0..<height {
            for x in 0..<width {
                // RGB24: native-endian 32-bit words, xRGB.
                let word = data.advanced(by: y * stride + x * 4).withMemoryRebound(to: UInt32.self, capacity: 1) { $0.pointee }
                let at = (y * width + x) * 3
                canvas.pixels[at] = UInt8((word >> 16) & 0xFF)
                canvas.pixels[at + 1] = UInt8((word >> 8) & 0xFF)
                canvas.pixels[at + 2] = UInt8(word & 0xFF)
            }
        }
        return canvas
    }

    /// The mean absolute difference of two canvases' samples.
    static func difference(_ a: Canvas, _ b: Canvas) -> Double {
        Double(zip(a.pixels, b.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.pixels.count)
    }

    @Test("drawn as Pango draws it: shaped, and right to left where the script is", arguments: [
        "مرحبا بالعالم",        // Arabic: joined forms, right to left
        "שלום עולם",            // Hebrew: right to left, no joining
        "Grandma, 1962",
    ])
    func asPangoDrawsIt(_ text: String) throws {
        let (width, height, pixels) = (400, 60, 32.0)
        var ours = Canvas(width: width, height: height, [255, 255, 255])
        let (status, metrics, _) = TextTests.draw(text, on: &ours, box: ci_rect(x: 0, y: 0, width: UInt32(width), height: UInt32(height)),
                                                  colour: ci_color(r: 0, g: 0, b: 0), pixels: pixels, lines: 1, font: "Sans")
        try #require(status == CI_OK)
        #expect(metrics.missing_glyphs == 0, "no font for \(text): install fonts-noto-core")
        let reference = Self.pangoReference(text, width: width, height: height, pixels: pixels, font: "Sans")
        let ink = ours.pixels.filter { $0 < 128 }.count
        #expect(ink > 200, "only \(ink) samples of ink")
        // Cairo's compositing and the engine's differ by rounding only.
        let worst = zip(ours.pixels, reference.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 2, "a sample differs by \(worst) from Pango's own rendering")
        // The check can fail: the same letters forced left to right (U+202D
        // ... U+202C) are drawn in the other order, and the difference shows.
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .otherLetter }) {
            let forced = Self.pangoReference("\u{202D}\(text)\u{202C}", width: width, height: height, pixels: pixels, font: "Sans")
            #expect(Self.difference(ours, forced) > 10 * Self.difference(ours, reference) + 1,
                    "left to right \(Self.difference(ours, forced)) against \(Self.difference(ours, reference))")
        }
    }

    @Test func aBandShadesItsBoxAndNothingElse() {
        var canvas = Canvas(width: 20, height: 10, [200, 100, 0])
        canvas.pixels.withUnsafeMutableBufferPointer { buffer in
            var image = ci_image(pixels: buffer.baseAddress, width: 20, height: 10, stride: 60, channels: 3)
            // Reaching past the right and bottom edges: clipped.
            ci_shade_box(&image, ci_rect(x: 15, y: 6, width: 40, height: 40), ci_color(r: 0, g: 0, b: 0), 140)
            // Opacity 0 changes nothing.
            ci_shade_box(&image, ci_rect(x: 0, y: 0, width: 20, height: 10), ci_color(r: 255, g: 255, b: 255), 0)
        }
        for y in 0..<10 {
            for x in 0..<20 {
                // 55% black over (200, 100, 0): each sample keeps 115/255 of itself.
                let expected: [UInt8] = x >= 15 && y >= 6 ? [90, 45, 0] : [200, 100, 0]
                #expect(canvas.pixel(x, y) == expected, "\(x),\(y)")
            }
        }
    }

    @Test("a font description's size in pixels", arguments: [
        ("DejaVu Serif Bold 40", 40.0 * 96 / 72),
        ("Noto Sans 24px", 24.0),
        ("Sans Bold", 0.0),
        ("Sans 7.5", 10.0),
    ])
    func fontPixels(_ font: String, _ expected: Double) {
        var pixels = -1.0
        var error = ci_error()
        #expect(ci_text_font_pixels(font, &pixels, &error) == CI_OK)
        #expect(abs(pixels - expected) < 0.01, "\(font): \(pixels)")
    }

    @Test func aFontTooLargeIsRefusedWithItsSize() {
        var pixels = -1.0
        var error = ci_error()
        #expect(ci_text_font_pixels("Sans 9999", &pixels, &error) == CI_ERR_INVALID_ARGUMENT)
        #expect(TextTests.message(error).contains("13332 pixels, is over 4096"), "\(TextTests.message(error))")
        #expect(pixels == 0)
    }
}
