import CollageImaging
import Foundation
import CollageTestSupport
import Testing

// PNG decoding against PngSuite (../shared/testdata/pngsuite): every valid file
// must decode to its reference pixels, every corrupt `x*` file must be refused.
//
// References (json/NAME.json, RGBA per pixel):
//  - bit depth 8 and below: compared EXACTLY, including the RGB stored under
//    alpha 0 (the references keep the file's colour there, and so do we).
//  - 16-bit: the references hold the 16-bit samples; we compare EXACTLY with
//    round(v * 255 / 65535) of them, which is what png_set_scale_16 promises.
//    The `_to8` references are NOT a rounding: for colour and alpha files they
//    are exactly v >> 8 (truncation), and for the grey files they follow no
//    single formula (31232 -> 121 although 31232 >> 8 = 122 and
//    31232 * 255 / 65535 = 121.5). So they are checked within +-1 only, as a
//    second opinion; the exact check is the one against the 16-bit values.

// MARK: - Helpers shared with DrawTests

enum PNGTestSupport {
    /// The one-line message of a ci_error.
    static func message(_ error: ci_error) -> String {
        withUnsafeBytes(of: error.message) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }

    /// Encodes tightly packed RGB (channels 3) or RGBA (4) pixels as PNG,
    /// untagged: the engine's saver adds an sRGB iCCP, which the tests that
    /// tag a file themselves must not find beside their own.
    static func encodePNG(_ pixels: [UInt8], width: Int, height: Int, channels: Int) throws -> Data {
        let png = try encode(pixels, width: width, height: height, channels: channels) { image, out, size, error in
            ci_encode(CI_FORMAT_PNG, image, nil, out, size, error)
        }
        // Chunks after the signature: length, type, data, CRC.
        var bytes = [UInt8](png), at = 8
        while at + 8 <= bytes.count {
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            if bytes[at + 4..<at + 8].elementsEqual("iCCP".utf8) { bytes.removeSubrange(at..<at + 12 + length) } else { at += 12 + length }
        }
        return Data(bytes)
    }

    struct EncodeFailure: Error { let message: String }

    /// Encodes tightly packed RGB pixels as a JPEG (4:2:0), untagged (as
    /// encodePNG: the saver's sRGB APP2 profile taken out).
    static func encodeJPEG(_ pixels: [UInt8], width: Int, height: Int, quality: Int) throws -> Data {
        let jpeg = try encode(pixels, width: width, height: height, channels: 3) { image, out, size, error in
            var options = ci_save_options_default()
            options.quality = Int32(quality)
            return ci_encode(CI_FORMAT_JPEG, image, &options, out, size, error)
        }
        // Segments after SOI up to the first scan: FF, marker, 16-bit length.
        var bytes = [UInt8](jpeg), at = 2
        while at + 4 <= bytes.count, bytes[at] == 0xFF, bytes[at + 1] != 0xDA {
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            if bytes[at + 1] == 0xE2 { bytes.removeSubrange(at..<at + 2 + length) } else { at += 2 + length }
        }
        return Data(bytes)
    }

    /// One encoder call over a copy of `pixels`; the buffer freed after copying.
    private static func encode(_ pixels: [UInt8], width: Int, height: Int, channels: Int,
                               _ call: (UnsafeMutablePointer<ci_image>, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
                                        UnsafeMutablePointer<Int>, UnsafeMutablePointer<ci_error>) -> ci_status) throws -> Data {
        precondition(pixels.count == width * height * channels)
        var copy = pixels
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var error = ci_error()
        let status = copy.withUnsafeMutableBufferPointer { buffer -> ci_status in
            var image = ci_image(pixels: buffer.baseAddress, width: UInt32(width), height: UInt32(height),
                                 stride: width * channels, channels: Int32(channels))
            return call(&image, &out, &size, &error)
        }
        guard status == CI_OK, let out else { throw EncodeFailure(message: message(error)) }
        defer { ci_buffer_free(out) }
        return Data(bytes: out, count: size)
    }

    /// The pixels of a decoded image, rows packed.
    static func pixels(of image: ci_image) -> [UInt8] {
        let rowBytes = Int(image.width) * Int(image.channels)
        var result = [UInt8]()
        result.reserveCapacity(rowBytes * Int(image.height))
        for y in 0..<Int(image.height) {
            let row = UnsafeBufferPointer(start: image.pixels! + y * image.stride, count: rowBytes)
            result.append(contentsOf: row)
        }
        return result
    }

    /// A fresh temporary folder (the caller removes it).
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("collage-imaging-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

// MARK: - PngSuite data

private enum PngSuite {
    static let pngFolder: URL? = TestData.folder("pngsuite/png")
    static let jsonFolder: URL? = TestData.folder("pngsuite/json")
    static var isPresent: Bool { pngFolder != nil && jsonFolder != nil }

    static let allNames: [String] = {
        guard let pngFolder,
              let files = try? FileManager.default.contentsOfDirectory(atPath: pngFolder.path)
        else { return [] }
        return files.filter { $0.hasSuffix(".png") }.map { String($0.dropLast(4)) }.sorted()
    }()
    /// Files whose names start with "x" are deliberately corrupt.
    static let validNames = allNames.filter { !$0.hasPrefix("x") }
    static let corruptNames = allNames.filter { $0.hasPrefix("x") }

    static func path(_ name: String) -> String { pngFolder!.appendingPathComponent(name + ".png").path }

    static func reference(_ name: String) throws -> [Int]? {
        let url = jsonFolder!.appendingPathComponent(name + ".json")
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try JSONDecoder().decode([Int].self, from: Data(contentsOf: url))
    }
}

/// What the file's own chunks say, read independently of libpng.
private struct PNGHeader {
    var width = 0, height = 0, bitDepth = 0, colorType = 0
    var chunkTypes: [String] = []

    init(_ data: Data) throws {
        let bytes = [UInt8](data)
        func be32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        var at = 8
        while at + 8 <= bytes.count {
            let length = be32(at)
            let type = String(decoding: bytes[at + 4..<at + 8], as: UTF8.self)
            chunkTypes.append(type)
            if type == "IHDR", at + 21 <= bytes.count {
                width = be32(at + 8)
                height = be32(at + 12)
                bitDepth = Int(bytes[at + 16])
                colorType = Int(bytes[at + 17])
            }
            at += 12 + length
        }
    }

    var hasAlpha: Bool { colorType & 4 != 0 || chunkTypes.contains("tRNS") }
}

private func decode(path: String, keepAlpha: Bool, background: ci_color = ci_color(r: 0, g: 0, b: 0),
                    maxPixels: UInt64 = 0) -> (ci_status, ci_image, String) {
    var options = ci_decode_options()
    options.keep_alpha = keepAlpha ? 1 : 0
    options.background = background
    options.limits.max_pixels = maxPixels
    var image = ci_image()
    var error = ci_error()
    let status = ci_decode_file(path, &options, &image, &error)
    return (status, image, PNGTestSupport.message(error))
}

/// Where two pixel arrays differ by more than `tolerance`: count and the first few.
private func differences(_ got: [UInt8], _ expected: [Int], tolerance: Int = 0) -> (count: Int, first: String) {
    var count = 0
    var first: [String] = []
    for i in 0..<min(got.count, expected.count) where abs(Int(got[i]) - expected[i]) > tolerance {
        count += 1
        if first.count < 5 { first.append("pixel \(i / 4) channel \(i % 4): got \(got[i]), expected \(expected[i])") }
    }
    return (count, first.joined(separator: "; "))
}

private let absent = Comment(rawValue: TestData.absentMessage("pngsuite"))

// MARK: - Tests

@Suite("PngSuite")
struct PNGSuiteTests {
    @Test("the PngSuite conformance data is present and complete")
    func dataIsPresent() {
        // Reported here once: the parameterised tests below are skipped
        // without the data (and CI requires it).
        guard PngSuite.isPresent else {
            TestData.reportAbsent("pngsuite")
            return
        }
        #expect(PngSuite.validNames.count == 161, "valid PngSuite files found")
        #expect(PngSuite.corruptNames.count == 14, "corrupt (x*) PngSuite files found")
    }

    @Test("decodes to the reference pixels (RGBA) and probes the header's size",
          .enabled(if: PngSuite.isPresent, absent), arguments: PngSuite.validNames)
    func decodesToReference(name: String) throws {
        let path = PngSuite.path(name)
        let header = try PNGHeader(Data(contentsOf: URL(fileURLWithPath: path)))

        var info = ci_photo_info()
        var error = ci_error()
        let probed = ci_probe_file(path, &info, &error)
        try #require(probed == CI_OK, "probe: \(PNGTestSupport.message(error))")
        #expect(info.format == CI_FORMAT_PNG)
        #expect(Int(info.width) == header.width && Int(info.height) == header.height)
        #expect(info.display_width == info.width && info.display_height == info.height)
        #expect(info.orientation == 1)
        #expect((info.has_alpha != 0) == header.hasAlpha)

        var (status, image, message) = decode(path: path, keepAlpha: true)
        defer { ci_image_free(&image) }
        try #require(status == CI_OK, "decode: \(message)")
        #expect(image.channels == 4)
        #expect(Int(image.width) == header.width && Int(image.height) == header.height)
        #expect(image.stride >= Int(image.width) * 4)
        let got = PNGTestSupport.pixels(of: image)

        let stored = try #require(try PngSuite.reference(name), "no reference json for \(name)")
        try #require(stored.count == got.count, "reference has \(stored.count / 4) pixels, decoded \(got.count / 4)")
        if header.bitDepth == 16 {
            let rounded = stored.map { ($0 * 255 + 32767) / 65535 }
            let exact = differences(got, rounded)
            #expect(exact.count == 0, "\(exact.count) samples differ from round(v*255/65535): \(exact.first)")
            if let to8 = try PngSuite.reference(name + "_to8") {
                let near = differences(got, to8, tolerance: 1)
                #expect(near.count == 0, "\(near.count) samples differ from _to8 by more than 1: \(near.first)")
            }
        } else {
            let exact = differences(got, stored)
            #expect(exact.count == 0, "\(exact.count) samples differ: \(exact.first)")
        }
    }

    @Test("without keep_alpha, alpha is composited over the background, rounded",
          .enabled(if: PngSuite.isPresent, absent), arguments: PngSuite.validNames)
    func compositesOverBackground(name: String) throws {
        let path = PngSuite.path(name)
        let header = try PNGHeader(Data(contentsOf: URL(fileURLWithPath: path)))
        let background = ci_color(r: 201, g: 99, b: 14)
        var (status, image, message) = decode(path: path, keepAlpha: false, background: background)
        defer { ci_image_free(&image) }
        try #require(status == CI_OK, "decode: \(message)")
        #expect(image.channels == 3)
        let got = PNGTestSupport.pixels(of: image)

        var rgba = try #require(try PngSuite.reference(name))
        if header.bitDepth == 16 { rgba = rgba.map { ($0 * 255 + 32767) / 65535 } }
        let bg = [Int(background.r), Int(background.g), Int(background.b)]
        var expected = [Int]()
        expected.reserveCapacity(rgba.count / 4 * 3)
        for p in stride(from: 0, to: rgba.count, by: 4) {
            let a = rgba[p + 3]
            for c in 0..<3 { expected.append((rgba[p + c] * a + bg[c] * (255 - a) + 127) / 255) }
        }
        try #require(expected.count == got.count)
        let bad = zip(got, expected).filter { Int($0) != $1 }.count
        #expect(bad == 0, "\(bad) samples differ from (c*a + bg*(255-a) + 127) / 255")
    }

    @Test("a corrupt file is refused with a one-line message naming it",
          .enabled(if: PngSuite.isPresent, absent), arguments: PngSuite.corruptNames)
    func refusesCorruptFile(name: String) {
        let path = PngSuite.path(name)
        for keepAlpha in [true, false] {
            var (status, image, message) = decode(path: path, keepAlpha: keepAlpha)
            #expect(status != CI_OK, "\(name) was accepted")
            #expect(image.pixels == nil, "no image is left behind on failure")
            #expect(message.contains(path), "message: \(message)")
            #expect(!message.contains("\n"))
            ci_image_free(&image)
        }
    }

    @Test("every truncation of a file is refused, never decoded or crashed on",
          .enabled(if: PngSuite.isPresent, absent),
          arguments: ["basn2c08", "basi6a16", "basn3p01", "tbrn2c08"])
    func refusesTruncated(name: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: PngSuite.path(name))))
        var options = ci_decode_options()
        options.keep_alpha = 1
        var accepted: [Int] = []
        var unnamed = 0
        for length in 8..<bytes.count {
            var image = ci_image()
            var error = ci_error()
            let status = ci_decode_memory(bytes, length, "cut.png", &options, &image, &error)
            if status == CI_OK { accepted.append(length) }
            if !PNGTestSupport.message(error).hasPrefix("cut.png: ") { unnamed += 1 }
            ci_image_free(&image)
        }
        #expect(accepted.isEmpty, "truncated to these lengths and still decoded: \(accepted.prefix(10))")
        #expect(unnamed == 0, "\(unnamed) messages do not start with the name")
    }

    @Test("the pixel limit is checked before decoding", .enabled(if: PngSuite.isPresent, absent))
    func pixelLimit() {
        let path = PngSuite.path("basn2c08")  // 32 x 32 = 1024 pixels
        var (status, image, message) = decode(path: path, keepAlpha: false, maxPixels: 1023)
        #expect(status == CI_ERR_TOO_LARGE, "\(message)")
        #expect(message.hasPrefix(path + ": "))
        ci_image_free(&image)
        (status, image, message) = decode(path: path, keepAlpha: false, maxPixels: 1024)
        #expect(status == CI_OK, "\(message)")
        ci_image_free(&image)
    }
}

/// A minimal PNG with the given header and a few bytes of image data, with
/// valid CRCs, to reach the size checks with absurd dimensions.
private func pngWithHeader(width: UInt32, height: UInt32) -> [UInt8] {
    let ihdr = PNGFile.be32(width) + PNGFile.be32(height) + [8, 2, 0, 0, 0]  // 8-bit RGB
    let idat: [UInt8] = [0x78, 0x01, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]  // zlib of one 0 byte
    return PNGFile.signature + PNGFile.chunk("IHDR", ihdr) + PNGFile.chunk("IDAT", idat) + PNGFile.chunk("IEND", [])
}

extension PNGSuiteTests {
    @Test("a header over the pixel limit is refused before anything is allocated for it",
          arguments: [(UInt32(100_000), UInt32(100_000)), (0x7FFF_FFFF, 1), (1, 0x7FFF_FFFF)])
    func absurdHeader(size: (UInt32, UInt32)) {
        let bytes = pngWithHeader(width: size.0, height: size.1)
        var info = ci_photo_info()
        var error = ci_error()
        #expect(probeBytes(bytes, &info, &error) == CI_OK, "the header itself is valid: \(PNGTestSupport.message(error))")
        #expect(info.width == size.0 && info.height == size.1)
        var options = ci_decode_options()
        var image = ci_image()
        let status = ci_decode_memory(bytes, bytes.count, "huge.png", &options, &image, &error)
        #expect(status == CI_ERR_TOO_LARGE, "\(PNGTestSupport.message(error))")
        #expect(PNGTestSupport.message(error).hasPrefix("huge.png: "))
        #expect(image.pixels == nil)
    }
}

/// ci_probe_file needs a path; probing bytes goes through a temporary file.
private func probeBytes(_ bytes: [UInt8], _ info: inout ci_photo_info, _ error: inout ci_error) -> ci_status {
    guard let folder = try? PNGTestSupport.temporaryFolder() else { return CI_ERR_OPEN }
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("huge.png")
    guard (try? Data(bytes).write(to: file)) != nil else { return CI_ERR_OPEN }
    return ci_probe_file(file.path, &info, &error)
}

extension PNGSuiteTests {
    @Suite("PNG encoder")
    struct Encoder {
        private func roundTrip(channels: Int) throws {
            let width = 37, height = 23
            var generator = SystemRandomNumberGenerator()
            let pixels = (0..<width * height * channels).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let png = try PNGTestSupport.encodePNG(pixels, width: width, height: height, channels: channels)
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))

            var options = ci_decode_options()
            options.keep_alpha = channels == 4 ? 1 : 0
            var image = ci_image()
            var error = ci_error()
            let bytes = [UInt8](png)
            let status = ci_decode_memory(bytes, bytes.count, "roundtrip.png", &options, &image, &error)
            defer { ci_image_free(&image) }
            try #require(status == CI_OK, "\(PNGTestSupport.message(error))")
            #expect(Int(image.width) == width && Int(image.height) == height && Int(image.channels) == channels)
            #expect(PNGTestSupport.pixels(of: image) == pixels, "decoded pixels differ from the encoded ones")
        }

        @Test("RGB round-trips losslessly") func rgbRoundTrip() throws { try roundTrip(channels: 3) }
        @Test("RGBA round-trips losslessly") func rgbaRoundTrip() throws { try roundTrip(channels: 4) }

        @Test("honours the stride (padded rows)")
        func paddedRows() throws {
            let width = 5, height = 4, stride = 5 * 3 + 7
            var padded = [UInt8](repeating: 0xEE, count: stride * height)
            var packed = [UInt8]()
            for y in 0..<height {
                for i in 0..<width * 3 {
                    let v = UInt8((y * 31 + i * 7) & 0xFF)
                    padded[y * stride + i] = v
                    packed.append(v)
                }
            }
            var out: UnsafeMutablePointer<UInt8>? = nil
            var size = 0
            var error = ci_error()
            let status = padded.withUnsafeMutableBufferPointer { buffer -> ci_status in
                var image = ci_image(pixels: buffer.baseAddress, width: UInt32(width), height: UInt32(height),
                                     stride: stride, channels: 3)
                return ci_encode(CI_FORMAT_PNG, &image, nil, &out, &size, &error)
            }
            try #require(status == CI_OK, "\(PNGTestSupport.message(error))")
            defer { ci_buffer_free(out) }
            var options = ci_decode_options()
            var image = ci_image()
            let status2 = ci_decode_memory(out, size, "padded.png", &options, &image, &error)
            defer { ci_image_free(&image) }
            try #require(status2 == CI_OK, "\(PNGTestSupport.message(error))")
            #expect(PNGTestSupport.pixels(of: image) == packed)
        }

        @Test("refuses an invalid image instead of crashing")
        func invalidImage() {
            var out: UnsafeMutablePointer<UInt8>? = nil
            var size = 0
            var error = ci_error()
            var image = ci_image(pixels: nil, width: 4, height: 4, stride: 12, channels: 3)
            #expect(ci_encode(CI_FORMAT_PNG, &image, nil, &out, &size, &error) == CI_ERR_INVALID_ARGUMENT)
            #expect(out == nil)
            var two: [UInt8] = [1, 2, 3, 4]
            let status = two.withUnsafeMutableBufferPointer { buffer -> ci_status in
                var image = ci_image(pixels: buffer.baseAddress, width: 2, height: 1, stride: 4, channels: 2)
                return ci_encode(CI_FORMAT_PNG, &image, nil, &out, &size, &error)
            }
            #expect(status == CI_ERR_INVALID_ARGUMENT)
        }
    }
}
