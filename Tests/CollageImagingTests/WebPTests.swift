import CollageImaging
import CollageTestSupport
import Foundation
import Testing

// WebP through libwebp (formats/webp_load.c): files made here with Debian's cwebp from
// PNGs the tests write, compared with dwebp's own decode; the scaled decode,
// EXIF orientation, broken files, animations (their first frame), and the encoder.

/// A tool from Debian's `webp` package (make test installs it).
private func tool(_ name: String, _ arguments: [String]) throws { try FormatFixtures.tool(name, arguments) }

/// A gradient with a few hard edges, RGBA with varying alpha when `alpha`.
private func picture(width: Int, height: Int, alpha: Bool) -> [UInt8] {
    var pixels = [UInt8]()
    for y in 0..<height {
        for x in 0..<width {
            pixels += [UInt8(x * 255 / max(1, width - 1)), UInt8(y * 255 / max(1, height - 1)),
                       UInt8((x / 8 + y / 8) % 2 * 200 + 20)]
            if alpha { pixels.append(UInt8((x + y) % 256)) }
        }
    }
    return pixels
}

private struct WebPFixture {
    let folder: URL
    init() throws { folder = try PNGTestSupport.temporaryFolder() }

    /// cwebp of a PNG of `pixels`; extra cwebp options (e.g. -lossless).
    func webp(_ name: String, _ pixels: [UInt8], width: Int, height: Int, alpha: Bool, options: [String]) throws -> String {
        let png = folder.appendingPathComponent(name + ".png").path
        try PNGTestSupport.encodePNG(pixels, width: width, height: height, channels: alpha ? 4 : 3)
            .write(to: URL(fileURLWithPath: png))
        let out = folder.appendingPathComponent(name + ".webp").path
        try tool("cwebp", options + ["-quiet", png, "-o", out])
        return out
    }

    /// dwebp's decode as RGBA (its PAM output).
    func dwebp(_ path: String) throws -> [UInt8] {
        let pam = folder.appendingPathComponent("ref.pam").path
        try tool("dwebp", ["-pam", path, "-o", pam])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: pam)))
        // The header ends with "ENDHDR\n".
        let end = Array("ENDHDR\n".utf8)
        let at = try #require((0..<bytes.count - end.count).first { Array(bytes[$0..<$0 + end.count]) == end })
        return Array(bytes[(at + end.count)...])
    }
}

private func decodeRGBA(_ path: String, minWidth: UInt32 = 0, minHeight: UInt32 = 0,
                        orient: Bool = true) -> (ci_status, ci_image) {
    var options = ci_decode_options()
    options.min_width = minWidth
    options.min_height = minHeight
    options.apply_orientation = orient ? 1 : 0
    options.keep_alpha = 1
    var image = ci_image()
    var error = ci_error()
    let status = ci_decode_file(path, &options, &image, &error)
    return (status, image)
}

@Suite("WebP (libwebp)")
struct WebPTests {
    @Test("Lossy, lossless and alpha decode as dwebp decodes them", arguments: ["lossy", "lossless", "alpha"])
    func matchesDwebp(kind: String) throws {
        let fixture = try WebPFixture()
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        let alpha = kind == "alpha"
        let path = try fixture.webp(kind, picture(width: 61, height: 37, alpha: alpha), width: 61, height: 37,
                                    alpha: alpha, options: kind == "lossy" ? ["-q", "80"] : ["-lossless"])
        var info = ci_photo_info()
        var error = ci_error()
        #expect(ci_probe_file(path, &info, &error) == CI_OK)
        #expect(info.format == CI_FORMAT_WEBP && info.width == 61 && info.height == 37)
        #expect((info.has_alpha != 0) == alpha)
        let (status, image) = decodeRGBA(path)
        try #require(status == CI_OK)
        defer { var copy = image; ci_image_free(&copy) }
        #expect(image.width == 61 && image.height == 37)
        #expect(PNGTestSupport.pixels(of: image) == (try fixture.dwebp(path)))
        if kind == "lossless" {
            // Lossless: the very pixels that went in.
            let rgb = PNGTestSupport.pixels(of: image).enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
            #expect(rgb == picture(width: 61, height: 37, alpha: false))
        }
    }

    @Test("Decoded straight at the size asked for (libwebp's scaled decoding), never below it")
    func scaledDecode() throws {
        let fixture = try WebPFixture()
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        let path = try fixture.webp("big", picture(width: 400, height: 300, alpha: false), width: 400, height: 300,
                                    alpha: false, options: ["-q", "80"])
        let (status, image) = decodeRGBA(path, minWidth: 100, minHeight: 50)
        try #require(status == CI_OK)
        defer { var copy = image; ci_image_free(&copy) }
        // Covering 100 x 50 with the photo's 4:3: 100 x 75.
        #expect(image.width == 100 && image.height == 75)
    }

    @Test("EXIF orientation is applied, as browsers do")
    func exifOrientation() throws {
        let fixture = try WebPFixture()
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        let pixels = picture(width: 40, height: 20, alpha: false)
        let plain = try fixture.webp("plain", pixels, width: 40, height: 20, alpha: false, options: ["-lossless"])
        // A little-endian TIFF with one entry: Orientation (0x0112) = 6.
        let exif: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0]
        let exifFile = fixture.folder.appendingPathComponent("exif.bin")
        try Data(exif).write(to: exifFile)
        let turned = fixture.folder.appendingPathComponent("turned.webp").path
        try tool("webpmux", ["-set", "exif", exifFile.path, plain, "-o", turned])
        var info = ci_photo_info()
        var error = ci_error()
        #expect(ci_probe_file(turned, &info, &error) == CI_OK)
        #expect(info.orientation == 6 && info.display_width == 20 && info.display_height == 40)
        let (status, image) = decodeRGBA(turned)
        try #require(status == CI_OK)
        defer { var copy = image; ci_image_free(&copy) }
        #expect(image.width == 20 && image.height == 40)
        // Orientation 6: the stored top-left pixel is shown at the top right.
        let shown = PNGTestSupport.pixels(of: image)
        #expect(Array(shown[(19 * 4)..<(19 * 4 + 3)]) == Array(pixels[0..<3]))
    }

    @Test("Cut short, corrupt and empty files are refused with the reason")
    func brokenFilesAreRefused() throws {
        let fixture = try WebPFixture()
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        let path = try fixture.webp("good", picture(width: 64, height: 48, alpha: false), width: 64, height: 48,
                                    alpha: false, options: ["-q", "80"])
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func refusal(_ bytes: [UInt8], _ name: String) throws -> (ci_status, String) {
            let file = fixture.folder.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            let (status, _, message) = FormatFixtures.admit(file)  // as `add` reads it
            #expect(message.hasPrefix(file + ": "), "\(message)")
            let (decoded, _) = decodeRGBA(file)
            #expect(decoded != CI_OK)
            return (status, message)
        }
        let cut = try refusal(Array(good.prefix(good.count * 2 / 3)), "cut.webp")
        #expect(cut.0 == CI_ERR_CORRUPT, "\(cut.1)")
        // The VP8 frame's start code and dimensions broken (lossy data has no
        // checksum: bytes flipped inside it decode, as garbage, in any decoder).
        var corrupt = good
        for i in 20..<36 { corrupt[i] ^= 0xA5 }
        #expect(try refusal(corrupt, "corrupt.webp").0 != CI_OK)
        #expect(try refusal([], "empty.webp").0 == CI_ERR_NOT_IMAGE)
    }

    @Test("An animated WebP draws its first frame, also when that frame is smaller than the canvas")
    func animatedDrawsItsFirstFrame() throws {
        let fixture = try WebPFixture()
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        let first = picture(width: 64, height: 48, alpha: false)
        _ = try fixture.webp("first", first, width: 64, height: 48, alpha: false, options: ["-lossless"])
        _ = try fixture.webp("second", first.reversed(), width: 64, height: 48, alpha: false, options: ["-lossless"])
        let animated = fixture.folder.appendingPathComponent("animated.webp").path
        try tool("img2webp", ["-loop", "0", "-lossless", fixture.folder.appendingPathComponent("first.png").path,
                              fixture.folder.appendingPathComponent("second.png").path, "-o", animated])
        var info = ci_photo_info()
        var error = ci_error()
        #expect(ci_probe_file(animated, &info, &error) == CI_OK, "\(PNGTestSupport.message(error))")
        #expect(info.format == CI_FORMAT_WEBP && info.width == 64 && info.height == 48)
        let drawn = FormatFixtures.drawAtOwnSize(animated)
        try #require(drawn.status == CI_OK, "\(drawn.message)")
        #expect(drawn.rgb == first)

        // A 20 x 10 first frame at (10, 6) of the second frame's 64 x 48
        // canvas (webpmux puts the frames where it is told): the rest of the
        // canvas is transparent, so the background shows.
        let small = picture(width: 20, height: 10, alpha: false)
        let smallPath = try fixture.webp("small", small, width: 20, height: 10, alpha: false, options: ["-lossless"])
        let partial = fixture.folder.appendingPathComponent("partial.webp").path
        try tool("webpmux", ["-frame", smallPath, "+100+10+6", "-frame", fixture.folder.appendingPathComponent("second.webp").path,
                             "+100", "-loop", "0", "-o", partial])
        #expect(ci_probe_file(partial, &info, &error) == CI_OK, "\(PNGTestSupport.message(error))")
        #expect(info.width == 64 && info.height == 48 && info.has_alpha != 0)
        let placed = FormatFixtures.drawAtOwnSize(partial)
        try #require(placed.status == CI_OK, "\(placed.message)")
        let bg = FormatFixtures.background
        var expected = [UInt8]()
        for y in 0..<48 {
            for x in 0..<64 {
                if (10..<30).contains(x) && (6..<16).contains(y) {
                    let at: Int = ((y - 6) * 20 + x - 10) * 3
                    expected += small[at..<at + 3]
                } else {
                    expected += [bg.r, bg.g, bg.b]
                }
            }
        }
        #expect(placed.rgb == expected)
        // Scaled to a quarter by libwebp, the frame in its place at that scale.
        var options = ci_decode_options()
        options.min_width = 16
        options.min_height = 12
        options.keep_alpha = 1
        var image = ci_image()
        #expect(ci_decode_file(partial, &options, &image, &error) == CI_OK, "\(PNGTestSupport.message(error))")
        defer { ci_image_free(&image) }
        #expect(image.width < 64 && image.height < 48)
        let rgba = PNGTestSupport.pixels(of: image)
        #expect(rgba[3] == 0)  // the top-left corner: transparent
        let row: Int = Int(image.height) * 11 / 48, column: Int = Int(image.width) * 20 / 64
        let inside: Int = (row * Int(image.width) + column) * 4
        #expect(rgba[inside + 3] == 255)  // inside the frame
    }

    @Test("The encoder writes a WebP of the image, --quality deciding its size")
    func encoder() throws {
        let pixels = picture(width: 120, height: 80, alpha: false)
        func encode(_ quality: Int32) throws -> [UInt8] {
            var copy = pixels
            var out: UnsafeMutablePointer<UInt8>? = nil
            var size = 0
            var error = ci_error()
            let status = copy.withUnsafeMutableBufferPointer { buffer -> ci_status in
                var image = ci_image(pixels: buffer.baseAddress, width: 120, height: 80, stride: 360, channels: 3)
                var options = ci_save_options_default()
                options.quality = quality
                return ci_encode(CI_FORMAT_WEBP, &image, &options, &out, &size, &error)
            }
            try #require(status == CI_OK, "\(PNGTestSupport.message(error))")
            defer { ci_buffer_free(out) }
            return Array(UnsafeBufferPointer(start: out!, count: size))
        }
        let high = try encode(95), low = try encode(20)
        #expect(low.count < high.count)
        func meanError(_ webp: [UInt8]) throws -> Double {
            let folder = try PNGTestSupport.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appendingPathComponent("q.webp").path
            try Data(webp).write(to: URL(fileURLWithPath: path))
            let (status, image) = decodeRGBA(path)
            try #require(status == CI_OK)
            defer { var copy = image; ci_image_free(&copy) }
            #expect(image.width == 120 && image.height == 80)
            let back = PNGTestSupport.pixels(of: image).enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
            return Double(zip(back, pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(pixels.count)
        }
        // Lossy with 4:2:0 chroma: the 8-pixel coloured checks blur at their
        // edges; a higher quality keeps more.
        let highError = try meanError(high), lowError = try meanError(low)
        #expect(highError < lowError && highError < 12, "\(highError) at 95, \(lowError) at 20")
        #expect(ci_sniff_format(high, high.count) == CI_FORMAT_WEBP)
    }
}
