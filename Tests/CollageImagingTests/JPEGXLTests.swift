import CJXL
import CollageImaging
import Foundation
import Testing

// JPEG XL through libjxl (formats/jxl_load.c): the conformance files
// against djxl's own decode of them, an orientation written with libjxl's
// encoder, an animation's first frame, the halvings a small cell is drawn
// from, and the refusals: cut short, corrupt, over the limit. Colours
// (ICC and encoded spaces) are in ColourTests, with the other containers.

/// A lossless JPEG XL of RGB `pixels` (stored orientation) whose header says
/// `orientation`, by libjxl's encoder.
private func orientedJXL(_ pixels: [UInt8], width: Int, height: Int, orientation: JxlOrientation) throws -> [UInt8] {
    let encoder = try #require(JxlEncoderCreate(nil))
    defer { JxlEncoderDestroy(encoder) }
    var info = JxlBasicInfo()
    JxlEncoderInitBasicInfo(&info)
    info.xsize = UInt32(width)
    info.ysize = UInt32(height)
    info.bits_per_sample = 8
    info.num_color_channels = 3
    info.uses_original_profile = 1
    info.orientation = orientation
    try #require(JxlEncoderSetBasicInfo(encoder, &info) == JXL_ENC_SUCCESS)
    var colour = JxlColorEncoding()
    JxlColorEncodingSetToSRGB(&colour, 0)
    try #require(JxlEncoderSetColorEncoding(encoder, &colour) == JXL_ENC_SUCCESS)
    let settings = JxlEncoderFrameSettingsCreate(encoder, nil)
    try #require(JxlEncoderSetFrameLossless(settings, 1) == JXL_ENC_SUCCESS)
    var format = JxlPixelFormat(num_channels: 3, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
    try #require(pixels.withUnsafeBytes { JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) } == JXL_ENC_SUCCESS)
    JxlEncoderCloseInput(encoder)
    var out = [UInt8](repeating: 0, count: 1 << 16)
    var written = 0
    for _ in 0..<64 {
        var status = JXL_ENC_ERROR
        out.withUnsafeMutableBufferPointer { buffer in
            var next: UnsafeMutablePointer<UInt8>? = buffer.baseAddress! + written
            var available = buffer.count - written
            status = JxlEncoderProcessOutput(encoder, &next, &available)
            written = buffer.count - available
        }
        if status == JXL_ENC_SUCCESS { return Array(out.prefix(written)) }
        try #require(status == JXL_ENC_NEED_MORE_OUTPUT)
        out += [UInt8](repeating: 0, count: out.count)
    }
    throw EncodeFailure()
}
private struct EncodeFailure: Error {}

/// A gradient with 8-pixel checks, RGB.
private func picture(width: Int, height: Int) -> [UInt8] {
    var pixels = [UInt8]()
    for y in 0..<height {
        for x in 0..<width {
            let check = (x / 8 + y / 8) % 2 * 200 + 20
            pixels += [UInt8(x * 255 / max(1, width - 1)), UInt8(y * 255 / max(1, height - 1)), UInt8(check)]
        }
    }
    return pixels
}

@Suite("JPEG XL (libjxl)")
struct JPEGXLTests {
    // Lossless files are djxl's pixels exactly (the same libjxl decodes
    // both); lossy ones too in practice, but libjxl's 8-bit output is not
    // specified to the level, so they are allowed one.
    @Test("Lossless, lossy, progressive, alpha and grey files draw as djxl decodes them",
          arguments: [("lossless", 0, 0.0), ("lossy", 1, 0.05), ("progressive", 1, 0.05), ("alpha", 1, 0.05),
                      ("grey", 0, 0.0)])
    func conformance(name: String, largest: Int, mean: Double) throws {
        try FormatFixtures.expectDrawnLikeReference(FormatFixtures.path("jxl", name + ".jxl"),
                                                    FormatFixtures.path("jxl", name + ".png"), largest: largest, mean: mean)
    }

    @Test("The probe says JPEG XL, its size and alpha, for bare codestreams and the container")
    func probe() throws {
        for (name, alpha) in [("lossless", false), ("lossy", false), ("alpha", true), ("grey", false)] {
            var info = ci_photo_info()
            var error = ci_error()
            #expect(ci_probe_file(FormatFixtures.path("jxl", name + ".jxl"), &info, &error) == CI_OK)
            #expect(info.format == CI_FORMAT_JXL && info.orientation == 1)
            #expect((info.has_alpha != 0) == alpha, "\(name)")
        }
        // The container: the same codestream in a jxlc box after the signature box and ftyp.
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let codestream = [UInt8](try Data(contentsOf: URL(fileURLWithPath: FormatFixtures.path("jxl", "lossy.jxl"))))
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            let size = UInt32(8 + payload.count)
            return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] +
                Array(type.utf8) + payload
        }
        let container = box("JXL ", [0x0D, 0x0A, 0x87, 0x0A]) + box("ftyp", Array("jxl ".utf8) + [0, 0, 0, 0] + Array("jxl ".utf8)) +
            box("jxlc", codestream)
        let path = folder.appendingPathComponent("container.jxl").path
        try Data(container).write(to: URL(fileURLWithPath: path))
        #expect(ci_sniff_format(container, container.count) == CI_FORMAT_JXL)
        try FormatFixtures.expectDrawnLikeReference(path, FormatFixtures.path("jxl", "lossy.png"), largest: 1, mean: 0.05)
    }

    @Test("The header's orientation is reported and the draw turns the photo upright")
    func orientation() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pixels = picture(width: 40, height: 20)
        let path = folder.appendingPathComponent("turned.jxl").path
        try Data(try orientedJXL(pixels, width: 40, height: 20, orientation: JXL_ORIENT_ROTATE_90_CW))
            .write(to: URL(fileURLWithPath: path))
        var info = ci_photo_info()
        var error = ci_error()
        #expect(ci_probe_file(path, &info, &error) == CI_OK, "\(PNGTestSupport.message(error))")
        #expect(info.orientation == 6 && info.width == 40 && info.display_width == 20 && info.display_height == 40)
        let drawn = FormatFixtures.drawAtOwnSize(path)
        try #require(drawn.status == CI_OK, "\(drawn.message)")
        // Orientation 6: the stored top-left pixel is shown at the top right,
        // the stored top-right at the bottom right.
        #expect(Array(drawn.rgb[(19 * 3)..<(19 * 3 + 3)]) == Array(pixels[0..<3]))
        #expect(Array(drawn.rgb[((39 * 20 + 19) * 3)..<((39 * 20 + 19) * 3 + 3)]) == Array(pixels[(39 * 3)..<(39 * 3 + 3)]))
    }

    @Test("Its colour encoding goes to sRGB: a linear-light file draws as its values on sRGB's curve")
    func colourEncoding() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pixels = picture(width: 48, height: 32)
        // cjxl takes a colour space hint for a PPM only (a PNG says its own).
        let ppm = folder.appendingPathComponent("linear.ppm"), path = folder.appendingPathComponent("linear.jxl").path
        try Data(Array("P6\n48 32\n255\n".utf8) + pixels).write(to: ppm)
        try FormatFixtures.tool("cjxl", [ppm.path, path, "-d", "0", "-x", "color_space=RGB_D65_SRG_Rel_Lin", "--quiet"])
        let drawn = FormatFixtures.drawAtOwnSize(path)
        try #require(drawn.status == CI_OK, "\(drawn.message)")
        let expected = pixels.map { value -> UInt8 in
            let linear = Double(value) / 255
            let encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055
            return UInt8((encoded * 255).rounded())
        }
        let seen = FormatFixtures.difference(drawn.rgb, expected)
        #expect(seen.worst <= 2, "up to \(seen.worst) levels from sRGB's curve")
        #expect(FormatFixtures.difference(drawn.rgb, pixels).worst > 50)  // the values were converted
    }

    @Test("An animated JPEG XL draws its first frame")
    func animation() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // cjxl keeps the GIF's two frames, losslessly.
        let path = folder.appendingPathComponent("animated.jxl").path
        try FormatFixtures.tool("cjxl", [FormatFixtures.path("gif", "animated.gif"), path, "-d", "0", "--quiet"])
        try FormatFixtures.expectDrawnLikeReference(path, FormatFixtures.path("gif", "animated.png"), largest: 0, mean: 0)
    }

    @Test("A small cell is drawn from a halving made while decoding, close to the full decode's")
    func halvings() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pixels = picture(width: 400, height: 300)
        let path = folder.appendingPathComponent("big.jxl").path
        try Data(try orientedJXL(pixels, width: 400, height: 300, orientation: JXL_ORIENT_IDENTITY))
            .write(to: URL(fileURLWithPath: path))
        var options = ci_decode_options()
        options.min_width = 100
        options.min_height = 50
        var image = ci_image()
        var error = ci_error()
        try #require(ci_decode_file(path, &options, &image, &error) == CI_OK, "\(PNGTestSupport.message(error))")
        defer { ci_image_free(&image) }
        // Covering 100 x 50 takes 2/8 of 400 x 300: a quarter, 100 x 75.
        #expect(image.width == 100 && image.height == 75)
        // Each pixel the mean of its 4 x 4 box of the lossless original.
        let reduced = PNGTestSupport.pixels(of: image)
        var expected = [UInt8]()
        for y in 0..<75 {
            for x in 0..<100 {
                for c in 0..<3 {
                    var sum = 0
                    for dy in 0..<4 { for dx in 0..<4 { sum += Int(pixels[((y * 4 + dy) * 400 + x * 4 + dx) * 3 + c]) } }
                    expected.append(UInt8((sum + 8) / 16))
                }
            }
        }
        #expect(reduced == expected)
        // A draw into a small cell reads the same halving.
        var canvas = [UInt8](repeating: 0, count: 50 * 25 * 3)
        let status = canvas.withUnsafeMutableBufferPointer { buffer -> ci_status in
            var image = ci_image(pixels: buffer.baseAddress, width: 50, height: 25, stride: 150, channels: 3)
            return ci_draw_photo(path, &image, ci_rect(x: 0, y: 0, width: 50, height: 25), FormatFixtures.background, nil, &error)
        }
        #expect(status == CI_OK, "\(PNGTestSupport.message(error))")
    }

    @Test("A JPEG XL cut short or broken is refused by add and the draw with its name and the reason")
    func brokenFilesAreRefused() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: FormatFixtures.path("jxl", "lossless.jxl"))))
        // libjxl 0.7 cannot tell a file cut short without decoding it (see
        // jxl_load.c): the completeness check decodes it, so `add` refuses it.
        let cut = try FormatFixtures.refusal(Array(good.prefix(good.count * 2 / 3)), named: "cut.jxl", in: folder)
        #expect(cut.add == CI_ERR_CORRUPT && cut.addMessage.contains("cut short"), "\(cut.addMessage)")
        #expect(cut.draw == CI_ERR_CORRUPT && cut.drawMessage.contains("cut short"), "\(cut.drawMessage)")
        // The probe alone reads the header, which is whole: what only wants
        // the photo's size (a layout's plan, a preview) does not decode it.
        let (probed, info, message) = FormatFixtures.probe(folder.appendingPathComponent("cut.jxl").path)
        #expect(probed == CI_OK && info.width == 96 && info.height == 64, "\(message)")
        // Cut inside the header: the probe refuses it too.
        let header = try FormatFixtures.refusal(Array(good.prefix(4)), named: "header.jxl", in: folder)
        #expect(header.add == CI_ERR_CORRUPT && header.draw == CI_ERR_CORRUPT, "\(header.addMessage)")
        // The lossless stream's entropy-coded data scrambled.
        var corrupt = good
        for i in stride(from: good.count / 3, to: good.count - 8, by: 5) { corrupt[i] ^= 0x5A }
        let broken = try FormatFixtures.refusal(corrupt, named: "corrupt.jxl", in: folder)
        #expect(broken.draw == CI_ERR_CORRUPT, "\(broken.drawMessage)")
    }

    @Test("The pixel limit refuses a JPEG XL from its header")
    func pixelLimit() {
        let drawn = FormatFixtures.drawAtOwnSize(FormatFixtures.path("jxl", "lossless.jxl"), maxPixels: 96 * 64 - 1)
        #expect(drawn.status == CI_ERR_TOO_LARGE && drawn.message.contains("limit"), "\(drawn.message)")
    }
}
