import CollageImaging
import Foundation
import Testing

// The driver's own steps (draw.c): the halving a loader's decoder cannot do
// and alpha over the background, written once for every format. The
// fixture (Tests/Fixtures/formats/driver/alpha-box.*, 4x4, made with
// Pillow and cjxl -d 0) has in its top-left 2x2 box
//   (255, 0, 0) opaque, (0, 0, 255) fully transparent,
//   (0, 255, 0) at alpha 128, (255, 255, 255) at alpha 64,
// and opaque (100, 100, 100) everywhere else. TIFF hands rows to the driver,
// JPEG XL a whole image: both are halved by the driver.
@Suite struct DriverTests {
    static let background = ci_color(r: 10, g: 20, b: 30)

    /// The file decoded at half size (min 2x2): RGB over the background, or RGBA.
    static func halved(_ name: String, keepAlpha: Bool) throws -> (pixels: [UInt8], width: Int, height: Int) {
        var options = ci_decode_options()
        options.background = background
        options.keep_alpha = keepAlpha ? 1 : 0
        options.keep_colours = 1
        options.min_width = 2
        options.min_height = 2
        var image = ci_image()
        var error = ci_error()
        let path = FormatFixtures.path("driver", name)
        try #require(ci_decode_file(path, &options, &image, &error) == CI_OK, "\(PNGTestSupport.message(error))")
        defer { ci_image_free(&image) }
        return (PNGTestSupport.pixels(of: image), Int(image.width), Int(image.height))
    }

    // The box's alpha-weighted colour: alpha 255 + 0 + 128 + 64 = 447;
    // red (255*255 + 255*64 + 223) / 447 = 182, green (255*128 + 255*64 +
    // 223) / 447 = 110, blue (255*64 + 223) / 447 = 37 (the transparent blue
    // weighs nothing); alpha (447 + 2) / 4 = 112. Over (10, 20, 30):
    // (182*112 + 10*143 + 127) / 255 = 86, (110*112 + 20*143 + 127) / 255 = 60,
    // (37*112 + 30*143 + 127) / 255 = 33.
    @Test("A half-transparent box is averaged by its alpha, then blended once over the background",
          arguments: ["alpha-box.tif", "alpha-box.jxl"])
    func halvedAndBlended(_ name: String) throws {
        let image = try Self.halved(name, keepAlpha: false)
        #expect(image.width == 2 && image.height == 2)
        #expect(Array(image.pixels[0..<3]) == [86, 60, 33], "\(name): \(image.pixels)")
        // The opaque boxes are their plain average.
        #expect(Array(image.pixels[3...]) == [UInt8](repeating: 100, count: 9), "\(name): \(image.pixels)")
    }

    @Test("Kept alpha comes out straight, averaged by alpha", arguments: ["alpha-box.tif", "alpha-box.jxl"])
    func halvedWithAlphaKept(_ name: String) throws {
        let image = try Self.halved(name, keepAlpha: true)
        #expect(image.width == 2 && image.height == 2)
        #expect(Array(image.pixels[0..<4]) == [182, 110, 37, 112], "\(name): \(image.pixels)")
        #expect(Array(image.pixels[4..<8]) == [100, 100, 100, 255], "\(name): \(image.pixels)")
    }

    // At full size each pixel is blended alone: (0, 255, 0) at 128 over
    // (10, 20, 30) is ((10*127 + 127) / 255, (255*128 + 20*127 + 127) / 255,
    // (30*127 + 127) / 255) = (5, 138, 15); the transparent blue is the background.
    @Test("At full size the blend is per pixel, the same for rows (TIFF), a whole image (PNG, JPEG XL)",
          arguments: ["alpha-box.tif", "alpha-box.jxl", "alpha-box.png"])
    func fullSizeBlend(_ name: String) throws {
        var options = ci_decode_options()
        options.background = Self.background
        options.keep_colours = 1
        var image = ci_image()
        var error = ci_error()
        try #require(ci_decode_file(FormatFixtures.path("driver", name), &options, &image, &error) == CI_OK,
                     "\(PNGTestSupport.message(error))")
        defer { ci_image_free(&image) }
        let pixels = PNGTestSupport.pixels(of: image)
        #expect(Array(pixels[0..<6]) == [255, 0, 0, 10, 20, 30], "\(name): \(pixels)")
        #expect(Array(pixels[12..<15]) == [5, 138, 15], "\(name): \(pixels)")
    }
}
