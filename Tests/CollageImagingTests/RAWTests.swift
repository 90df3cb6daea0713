import CollageImaging
import Foundation
import Testing

// Camera RAW through libraw (formats/raw_load.c): the DNGs of
// Tests/Fixtures/formats/dng (scripts/testdata/make-format-fixtures.sh: a
// Bayer mosaic written by PiDNG, and the same with a camera-style JPEG
// preview), against libraw's own rendering (dcraw_emu -w); the preview
// standing in when it covers the cell; sniffing before TIFF; refusals.
// No real camera's RAW is used: none in the public domain was at hand.

@Suite("Camera RAW (libraw)")
struct RAWTests {
    static let background = ci_color(r: 0, g: 0, b: 0)

    @Test("A DNG drawn at its own size is libraw's own rendering of it (dcraw_emu -w), within the demosaic's rounding")
    func matchesDcrawEmu() throws {
        let dng = FormatFixtures.path("dng", "bayer-rggb.dng")
        let reference = try FormatFixtures.reference(FormatFixtures.path("dng", "bayer-rggb.png"),
                                                     background: Self.background)
        let (probed, info, message) = FormatFixtures.probe(dng)
        try #require(probed == CI_OK, "\(message)")
        #expect(info.format == CI_FORMAT_RAW && info.width == 96 && info.height == 64 && info.orientation == 1)
        let (status, drawn, drawMessage) = FormatFixtures.draw(dng, width: reference.width, height: reference.height,
                                                                background: Self.background)
        try #require(status == CI_OK, "\(drawMessage)")
        let difference = FormatFixtures.difference(drawn, reference.pixels)
        // The same library and settings: the full-size demosaic (the cell
        // needs every pixel) is dcraw_emu's, to a level or two.
        #expect(difference.worst <= 2, "up to \(difference.worst) levels off (mean \(difference.mean))")
    }

    @Test("The camera's orientation (libraw's flip) is the header's, turned upright by the driver")
    func orientation() throws {
        let dng = FormatFixtures.path("dng", "orientation6.dng")
        let (probed, info, message) = FormatFixtures.probe(dng)
        try #require(probed == CI_OK, "\(message)")
        #expect(info.orientation == 6 && info.display_width == 64 && info.display_height == 96)
        let reference = try FormatFixtures.reference(FormatFixtures.path("dng", "bayer-rggb.png"), background: Self.background)
        let (status, drawn, drawMessage) = FormatFixtures.draw(dng, width: 64, height: 96, background: Self.background)
        try #require(status == CI_OK, "\(drawMessage)")
        // Orientation 6 turns the stored picture a quarter clockwise: shown
        // (x, y) is stored (y, 63 - x).
        var worst = 0
        for y in 0..<96 { for x in 0..<64 { for c in 0..<3 {
            worst = max(worst, abs(Int(drawn[(y * 64 + x) * 3 + c]) - Int(reference.pixels[((63 - x) * 96 + y) * 3 + c])))
        } } }
        #expect(worst <= 2, "up to \(worst) levels off")
    }

    @Test("Drawn small, the half-size demosaic is close to the reference scaled down")
    func halfSizeDemosaic() throws {
        let dng = FormatFixtures.path("dng", "bayer-rggb.dng")
        let reference = FormatFixtures.draw(FormatFixtures.path("dng", "bayer-rggb.png"), width: 24, height: 16,
                                            background: Self.background)
        let drawn = FormatFixtures.draw(dng, width: 24, height: 16, background: Self.background)
        try #require(drawn.0 == CI_OK && reference.0 == CI_OK, "\(drawn.2)")
        // Half size takes one pixel per 2x2 of the mosaic, no interpolation:
        // edges differ, the picture does not (measured: mean under 6 levels).
        let difference = FormatFixtures.difference(drawn.1, reference.1)
        #expect(difference.mean < 8, "mean \(difference.mean), worst \(difference.worst)")
    }

    @Test("The camera's preview stands in when it covers the cell, through the JPEG loader; not when it does not")
    func previewWhenItCovers() throws {
        let dng = FormatFixtures.path("dng", "green-preview.dng")
        let (probed, info, message) = FormatFixtures.probe(dng)
        try #require(probed == CI_OK, "\(message)")
        #expect(info.format == CI_FORMAT_RAW && info.width == 96 && info.height == 64)
        // Its preview is 48x32, plain green.
        func isGreen(_ pixels: [UInt8]) -> Bool {
            stride(from: 0, to: pixels.count, by: 3).allSatisfy {
                abs(Int(pixels[$0]) - 20) <= 6 && abs(Int(pixels[$0 + 1]) - 200) <= 6 && abs(Int(pixels[$0 + 2]) - 40) <= 6
            }
        }
        // 24x16 and 48x32: the preview covers them.
        for (width, height) in [(24, 16), (48, 32)] {
            let drawn = FormatFixtures.draw(dng, width: width, height: height, background: Self.background)
            try #require(drawn.0 == CI_OK, "\(drawn.2)")
            #expect(isGreen(drawn.1), "\(width)x\(height) did not use the preview")
        }
        // 96x64: the preview would be enlarged, so the mosaic is demosaiced.
        let large = FormatFixtures.draw(dng, width: 96, height: 64, background: Self.background)
        try #require(large.0 == CI_OK, "\(large.2)")
        #expect(!isGreen(large.1))
        let plain = FormatFixtures.draw(FormatFixtures.path("dng", "bayer-rggb.dng"), width: 96, height: 64,
                                        background: Self.background)
        #expect(large.1 == plain.1)
        // The decode (previews) chooses alike.
        var options = ci_decode_options()
        options.min_width = 40
        options.min_height = 30
        var image = ci_image()
        var error = ci_error()
        try #require(ci_decode_file(dng, &options, &image, &error) == CI_OK, "\(PNGTestSupport.message(error))")
        defer { ci_image_free(&image) }
        #expect(isGreen(PNGTestSupport.pixels(of: image)))
        // A decode at full size (0 x 0) is the photo at the size the probe
        // says, not the smaller preview (the RAW fuzzer's broken promise).
        var full = ci_image()
        options.min_width = 0
        options.min_height = 0
        try #require(ci_decode_file(dng, &options, &full, &error) == CI_OK, "\(PNGTestSupport.message(error))")
        defer { ci_image_free(&full) }
        #expect(full.width == info.display_width && full.height == info.display_height)
        #expect(!isGreen(PNGTestSupport.pixels(of: full)))
    }

    @Test("A DNG sniffs as RAW, a plain TIFF as TIFF, a CR3's ISO BMFF as RAW and not HEIF")
    func sniffingOrder() throws {
        func format(_ path: String) throws -> ci_format {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            return ci_sniff_format(bytes, bytes.count)
        }
        #expect(try format(FormatFixtures.path("dng", "bayer-rggb.dng")) == CI_FORMAT_RAW)
        #expect(try format(FormatFixtures.path("tiff", "rgb8-none.tif")) == CI_FORMAT_TIFF)
        #expect(try format(FormatFixtures.path("tiff", "pyramid.tif")) == CI_FORMAT_TIFF)
        // A CR3 begins with an ftyp box of brand `crx `, compatible with isom.
        let cr3: [UInt8] = [0, 0, 0, 24] + Array("ftypcrx ".utf8) + [0, 0, 0, 1] + Array("crx isom".utf8)
        #expect(ci_sniff_format(cr3, cr3.count) == CI_FORMAT_RAW)
        // JPEG never reaches libraw (the table tries it first).
        #expect(ci_sniff_format([0xFF, 0xD8, 0xFF, 0xE0], 4) == CI_FORMAT_JPEG)
    }

    @Test("Truncated, corrupt and non-RAW files are refused, naming the file")
    func brokenFilesAreRefused() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: FormatFixtures.path("dng", "bayer-rggb.dng"))))
        func write(_ bytes: [UInt8], _ name: String) throws -> String {
            let path = folder.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
        // The directory kept (PiDNG writes it first), the mosaic cut: the
        // draw refuses it (libraw reads past the end).
        let cut = try write(Array(good[0..<(good.count - 4000)]), "cut.dng")
        let drawn = FormatFixtures.draw(cut, width: 96, height: 64, background: Self.background)
        #expect(drawn.0 != CI_OK && drawn.2.hasPrefix(cut + ": ") && !drawn.2.contains("\n"))
        // A RAW's magic and nothing after it.
        let raf = try write(Array("FUJIFILMCCD-RAW 0201FF383501".utf8) + [UInt8](repeating: 0, count: 100), "broken.raf")
        let (status, _, message) = FormatFixtures.probe(raf)
        #expect(status != CI_OK && message.hasPrefix(raf + ": "))
    }

    @Test("The pixel limit refuses a RAW before its mosaic is unpacked, naming the limit")
    func pixelLimit() {
        let dng = FormatFixtures.path("dng", "bayer-rggb.dng")
        let (status, _, message) = FormatFixtures.draw(dng, width: 96, height: 64, background: Self.background,
                                                       limits: ci_limits(max_pixels: 1000))
        #expect(status == CI_ERR_TOO_LARGE && message.contains("bayer-rggb.dng") && message.contains("limit"))
    }

    @Test("libraw_r with a handle per draw: draws from several threads at once agree")
    func concurrentDraws() throws {
        let paths = [FormatFixtures.path("dng", "bayer-rggb.dng"), FormatFixtures.path("dng", "green-preview.dng")]
        let expected = paths.map { FormatFixtures.draw($0, width: 144, height: 96, background: Self.background) }
        try #require(expected.allSatisfy { $0.0 == CI_OK })
        let results = Locked([(Int, [UInt8])]())
        DispatchQueue.concurrentPerform(iterations: 12) { index in
            let drawn = FormatFixtures.draw(paths[index % 2], width: 144, height: 96, background: Self.background)
            results.append((index % 2, drawn.0 == CI_OK ? drawn.1 : []))
        }
        #expect(results.value.count == 12 && results.value.allSatisfy { expected[$0.0].1 == $0.1 })
    }
}
