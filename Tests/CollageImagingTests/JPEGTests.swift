import CollageImaging
import Foundation
import Testing

/// JPEG decoding, EXIF orientation, shrink-on-load and JPEG encoding of the C
/// engine, against the shared conformance data (`exif-orientation`, `jpeg`)
/// and the project's own fixtures in `Tests/Fixtures/jpeg` (see its README).
@Suite struct JPEGTests {

    // MARK: - EXIF orientation samples

    /// Landscape_0...8 and Portrait_0...8. `_0` carries an Orientation tag
    /// whose value is 0 ("undefined"), which must be treated as 1.
    static let orientationSamples: [String] =
        ["Landscape", "Portrait"].flatMap { kind in (0...8).map { "\(kind)_\($0)" } }

    @Test(arguments: orientationSamples)
    func exifOrientationSample(_ sample: String) throws {
        guard let folder = TestData.folder("exif-orientation") else {
            TestData.reportAbsent("exif-orientation")
            return
        }
        let kind = String(sample.split(separator: "_")[0])
        let tag = Int(sample.split(separator: "_")[1])!
        let expectedOrientation = tag == 0 ? 1 : tag
        let path = folder.appendingPathComponent("\(sample).jpg").path
        let referencePath = folder.appendingPathComponent("\(kind)_1.jpg").path

        // The upright picture: landscape 1800x1200, portrait 1200x1800.
        let (uprightW, uprightH) = kind == "Landscape" ? (1800, 1200) : (1200, 1800)
        let transposed = expectedOrientation >= 5

        let info = try #require(JPEGTestSupport.probe(path))
        #expect(info.format == CI_FORMAT_JPEG)
        #expect(Int(info.orientation) == expectedOrientation)
        #expect(Int(info.width) == (transposed ? uprightH : uprightW))
        #expect(Int(info.height) == (transposed ? uprightW : uprightH))
        #expect(Int(info.display_width) == uprightW)
        #expect(Int(info.display_height) == uprightH)

        let reference = try JPEGTestSupport.decodeOK(referencePath, orient: true)
        let oriented = try JPEGTestSupport.decodeOK(path, orient: true)
        #expect(oriented.width == uprightW && oriented.height == uprightH)
        // Each sample is a separately encoded JPEG, so not bit-identical to
        // _1: measured differences are 0.3-3.7 levels on average. Any wrong
        // rotation or flip of these photos differs by 40 or more.
        let difference = try #require(JPEGTestSupport.meanAbsoluteDifference(oriented, reference))
        #expect(difference < 6, "\(sample) oriented differs from \(kind)_1 by \(difference)")

        if expectedOrientation >= 2 {
            // Proves the comparison above can fail: the stored pixels are not upright.
            let raw = try JPEGTestSupport.decodeOK(path, orient: false)
            if transposed {
                #expect(raw.width == uprightH && raw.height == uprightW)
            } else {
                let rawDifference = try #require(JPEGTestSupport.meanAbsoluteDifference(raw, reference))
                #expect(rawDifference > 20, "\(sample) without orientation differs by only \(rawDifference)")
            }
        }
    }

    @Test func littleEndianExifOrientation() throws {
        let path = try JPEGTestSupport.fixture("exif-le-orientation6.jpg")
        let info = try #require(JPEGTestSupport.probe(path))
        #expect(info.orientation == 6)
        #expect(info.width == 32 && info.height == 32)

        // Stored quadrants red, green / blue, white; rotated 90° clockwise
        // they read blue, red / white, green.
        let upright = try JPEGTestSupport.decodeOK(path, orient: true)
        JPEGTestSupport.expectQuadrants(upright, [(0, 0, 255), (255, 0, 0), (255, 255, 255), (0, 255, 0)])
        let stored = try JPEGTestSupport.decodeOK(path, orient: false)
        JPEGTestSupport.expectQuadrants(stored, [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)])
    }

    // MARK: - libjpeg conformance images

    /// The three encodings of the same image in libjpeg's test suite.
    @Test(arguments: ["testorig.jpg", "testimgint.jpg", "testimgari.jpg"])
    func conformanceImageMatchesReference(_ name: String) throws {
        guard let folder = TestData.folder("jpeg") else {
            TestData.reportAbsent("jpeg")
            return
        }
        let reference = try JPEGTestSupport.readPPM(folder.appendingPathComponent("testorig.ppm"))
        let path = folder.appendingPathComponent(name).path
        let info = try #require(JPEGTestSupport.probe(path))
        #expect(info.width == 227 && info.height == 149)

        let image = try JPEGTestSupport.decodeOK(path, orient: true)
        #expect(image.width == reference.width && image.height == reference.height)
        // testorig.ppm is djpeg's own output for testorig.jpg; the
        // progressive and arithmetic versions are re-encodings of it, and
        // our decoder may differ from djpeg's settings by a level here and
        // there. Measured: 53.9 dB (baseline), 47.6 dB (the others); a
        // decode with a wrong colour conversion or channel order is below 20.
        let psnr = try #require(JPEGTestSupport.psnr(image, reference))
        #expect(psnr > 30, "\(name): PSNR \(psnr) dB against testorig.ppm")
    }

    @Test func refusesTwelveBitJPEG() throws {
        guard let folder = TestData.folder("jpeg") else {
            TestData.reportAbsent("jpeg")
            return
        }
        let path = folder.appendingPathComponent("monkey12.jpg").path

        var info = ci_photo_info()
        var error = ci_error()
        #expect(ci_probe_file(path, &info, &error) == CI_ERR_UNSUPPORTED)
        #expect(JPEGTestSupport.message(error) == "\(path): 12-bit JPEG is not supported (only 8-bit)")

        let result = JPEGTestSupport.decode(path, orient: true)
        #expect(result.status == CI_ERR_UNSUPPORTED)
        #expect(result.message.contains("12-bit"))
        #expect(result.message.hasPrefix(path))
        #expect(result.image == nil)
    }

    /// What `add` asks (issue #32, #42): a JPEG with corrupt data libjpeg
    /// reads past is accepted. Where its structure is plainly whole (one
    /// sequential scan to its end marker), `add` does not decode it (that was
    /// an entropy decode of every photo) and the corrupt data inside the scan
    /// is said by the draw at save; a clean one says 0 either way; without
    /// the count asked, the walk alone.
    @Test func checkingAJPEGLeavesCorruptDataInsideAPlainScanToTheDraw() throws {
        guard let folder = TestData.folder("jpeg") else {
            TestData.reportAbsent("jpeg")
            return
        }
        let clean = folder.appendingPathComponent("testorig.jpg").path
        let whole = try Data(contentsOf: URL(fileURLWithPath: clean))
        let damaged = FileManager.default.temporaryDirectory.appendingPathComponent("damaged-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: damaged) }
        // 600 bytes cut from the middle of the scan: "premature end of data segment".
        let middle = whole.count / 2
        try (whole.prefix(middle) + whole.dropFirst(middle + 600)).write(to: damaged)

        func check(_ path: String, counting: Bool) -> (ci_status, Int32) {
            var error = ci_error()
            var drawn = ci_placement()
            drawn.corrupt_data = -1
            var limits = ci_limits(max_pixels: 0)
            let status = counting ? ci_check_complete(path, &limits, &drawn, &error)
                                  : ci_check_complete(path, nil, nil, &error)
            #expect(drawn.cut_short == CI_CUT_NONE, "corrupt data is no cut")
            return (status, drawn.corrupt_data)
        }
        #expect(check(clean, counting: true) == (CI_OK, 0))
        #expect(check(damaged.path, counting: true) == (CI_OK, 0), "not decoded at add")
        // The draw at save says it.
        var placement = ci_placement()
        var pixels = [UInt8](repeating: 0, count: 64 * 64 * 3)
        var error = ci_error()
        let drawn = pixels.withUnsafeMutableBufferPointer { buffer -> ci_status in
            var canvas = ci_image(pixels: buffer.baseAddress, width: 64, height: 64, stride: 64 * 3, channels: 3)
            var options = ci_draw_options()
            return ci_draw_photo_placed(damaged.path, &canvas, ci_rect(x: 0, y: 0, width: 64, height: 64), &options,
                                        &placement, &error)
        }
        #expect(drawn == CI_OK && placement.corrupt_data > 0, "\(placement.corrupt_data)")
        #expect(check(damaged.path, counting: false).0 == CI_OK)
    }

    /// Restart markers are checked at add without decoding (issue #42): in
    /// order and as many as the blocks need, the file is plainly whole and
    /// says nothing; one out of order, or one missing, and `add` draws it
    /// small, which says the corrupt data as save will.
    @Test func restartMarkersOutOfOrderOrMissingAreDrawnAtAdd() throws {
        // 16 x 16 grey, one component, four blocks, a restart after each but
        // the last: a block is its DC and AC codes, "0" and "0" (a one-bit
        // code each), padded with ones at the restart.
        func restartJPEG(_ restarts: [UInt8]) -> [UInt8] {
            var out: [UInt8] = [0xFF, 0xD8]
            out += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)               // DQT
            out += [0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x10, 0x00, 0x10, 0x01, 0x01, 0x11, 0x00]  // SOF0
            let oneCode: [UInt8] = [1] + [UInt8](repeating: 0, count: 15) + [0x00]
            out += [0xFF, 0xC4, 0x00, 0x14, 0x00] + oneCode                                          // DHT DC 0
            out += [0xFF, 0xC4, 0x00, 0x14, 0x10] + oneCode                                          // DHT AC 0
            out += [0xFF, 0xDD, 0x00, 0x04, 0x00, 0x01]                                              // DRI: every block
            out += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]                      // SOS
            out += [0x3F]
            for code in restarts { out += [0xFF, code, 0x3F] }
            return out + [0xFF, 0xD9]
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("restarts-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: file) }
        for (restarts, plain) in [([0xD0, 0xD1, 0xD2], true), ([0xD0, 0xD2, 0xD1], false), ([0xD0, 0xD1], false)] as [([UInt8], Bool)] {
            try Data(restartJPEG(restarts)).write(to: file)
            var error = ci_error()
            var drawn = ci_placement()
            var limits = ci_limits(max_pixels: 0)
            let status = ci_check_complete(file.path, &limits, &drawn, &error)
            #expect(status == CI_OK && (drawn.corrupt_data == 0) == plain,
                    "\(restarts): \(status) \(drawn.corrupt_data) \(PNGTestSupport.message(error))")
        }
    }

    // MARK: - Shrink-on-load

    /// libjpeg's scaled size at n/8 is ceil(size * n / 8) per axis; for the
    /// 227x149 testorig.jpg: 1/8 29x19, 2/8 57x38, 3/8 86x56, 4/8 114x75,
    /// 5/8 142x94, 6/8 171x112, 7/8 199x131, 8/8 227x149.
    @Test(arguments: [
        (0, 0, 227, 149),      // 0x0: full size
        (1, 1, 29, 19),        // smallest scale is enough
        (57, 38, 57, 38),      // exactly 2/8
        (58, 38, 86, 56),      // one pixel wider than 2/8 → 3/8
        (57, 39, 86, 56),      // one pixel taller than 2/8 → 3/8
        (100, 0, 114, 75),     // only the width asked for
        (200, 149, 227, 149),  // height needs full size
        (1000, 1000, 227, 149) // never upscaled
    ])
    func shrinkOnLoadPicksSmallestCoveringScale(_ minW: Int, _ minH: Int, _ expectedW: Int, _ expectedH: Int) throws {
        guard let folder = TestData.folder("jpeg") else {
            TestData.reportAbsent("jpeg")
            return
        }
        let path = folder.appendingPathComponent("testorig.jpg").path
        let image = try JPEGTestSupport.decodeOK(path, orient: true, minWidth: minW, minHeight: minH)
        #expect(image.width == expectedW && image.height == expectedH,
                "min \(minW)x\(minH) gave \(image.width)x\(image.height), expected \(expectedW)x\(expectedH)")
    }

    @Test func shrinkOnLoadUsesOrientedCoordinates() throws {
        guard let folder = TestData.folder("exif-orientation") else {
            TestData.reportAbsent("exif-orientation")
            return
        }
        // Stored 1200x1800, displayed 1800x1200 (orientation 6). The oriented
        // minimum 450x300 is exactly the 2/8 scale (stored 300x450). Reading
        // the minimum as stored coordinates would need 3/8 (450x675).
        let path = folder.appendingPathComponent("Landscape_6.jpg").path
        let upright = try JPEGTestSupport.decodeOK(path, orient: true, minWidth: 450, minHeight: 300)
        #expect(upright.width == 450 && upright.height == 300)
        let stored = try JPEGTestSupport.decodeOK(path, orient: false, minWidth: 450, minHeight: 300)
        #expect(stored.width == 300 && stored.height == 450)

        // And the scaled, oriented picture is still the right way up.
        let reference = try JPEGTestSupport.decodeOK(folder.appendingPathComponent("Landscape_1.jpg").path,
                                                     orient: true, minWidth: 450, minHeight: 300)
        let difference = try #require(JPEGTestSupport.meanAbsoluteDifference(upright, reference))
        #expect(difference < 6)
    }

    // MARK: - Colour spaces and alpha

    @Test func grayscaleDecodesToGreyRGB() throws {
        let path = try JPEGTestSupport.fixture("gray.jpg")
        let image = try JPEGTestSupport.decodeOK(path, orient: true)
        #expect(image.channels == 3)
        JPEGTestSupport.expectQuadrants(image, [(0, 0, 0), (85, 85, 85), (170, 170, 170), (255, 255, 255)])
    }

    @Test(arguments: ["cmyk-adobe.jpg", "ycck-adobe.jpg"])
    func adobeCMYKDecodesToRGB(_ name: String) throws {
        let path = try JPEGTestSupport.fixture(name)
        let info = try #require(JPEGTestSupport.probe(path))
        #expect(info.width == 32 && info.height == 32 && info.has_alpha == 0)
        let image = try JPEGTestSupport.decodeOK(path, orient: true)
        // Cyan, magenta, yellow ink and 50% black. Reading the Adobe
        // (inverted) samples as plain CMYK would give the complements.
        JPEGTestSupport.expectQuadrants(image, [(0, 255, 255), (255, 0, 255), (255, 255, 0), (127, 127, 127)])
    }

    @Test(arguments: ["gray.jpg", "cmyk-adobe.jpg", "exif-le-orientation6.jpg"])
    func keepAlphaGivesOpaqueRGBA(_ name: String) throws {
        let path = try JPEGTestSupport.fixture(name)
        let rgb = try JPEGTestSupport.decodeOK(path, orient: true)
        let rgba = try JPEGTestSupport.decodeOK(path, orient: true, keepAlpha: true)
        // Stop here otherwise: the loop below indexes 4 bytes per pixel.
        try #require(rgba.channels == 4 && rgb.channels == 3)
        try #require(rgba.width == rgb.width && rgba.height == rgb.height)
        var opaque = true
        var sameColours = true
        for i in 0..<(rgb.width * rgb.height) {
            if rgba.pixels[i * 4 + 3] != 255 { opaque = false }
            for c in 0..<3 where rgba.pixels[i * 4 + c] != rgb.pixels[i * 3 + c] { sameColours = false }
        }
        #expect(opaque, "alpha must be 255 everywhere")
        #expect(sameColours, "RGBA must carry the same colours as RGB")
    }

    // MARK: - Encoding

    @Test func encodeThenDecodeRoundTrip() throws {
        // A smooth gradient (JPEG's easy case) with a row stride wider than
        // the pixels, in RGB and in RGBX (the fourth byte must be ignored).
        for channels in [3, 4] {
            let width = 97, height = 61, stride = width * channels + 5
            var pixels = [UInt8](repeating: 0xAB, count: stride * height)
            for y in 0..<height {
                for x in 0..<width {
                    let at = y * stride + x * channels
                    pixels[at] = UInt8(x * 2)
                    pixels[at + 1] = UInt8(y * 4)
                    pixels[at + 2] = UInt8(128 + (x + y) / 4)
                    if channels == 4 { pixels[at + 3] = 7 }
                }
            }
            let source = JPEGTestSupport.Picture(
                width: width, height: height, channels: 3,
                pixels: (0..<height).flatMap { y in
                    (0..<width).flatMap { x in pixels[(y * stride + x * channels)...].prefix(3) }
                })

            let encoded = try #require(JPEGTestSupport.encode(pixels, width, height, stride, channels, quality: 90))
            #expect(encoded.count > 100)
            #expect(Array(encoded.prefix(2)) == [0xFF, 0xD8], "a JPEG starts with SOI")
            #expect(Array(encoded.suffix(2)) == [0xFF, 0xD9], "a JPEG ends with EOI")

            let decoded = try JPEGTestSupport.decodeMemoryOK(encoded, name: "roundtrip.jpg")
            #expect(decoded.width == width && decoded.height == height && decoded.channels == 3)
            // Measured 0.8 levels at quality 90; 4:2:0 on a smooth gradient loses little.
            let difference = try #require(JPEGTestSupport.meanAbsoluteDifference(decoded, source))
            #expect(difference < 2.5, "round trip (\(channels) channels) differs by \(difference)")
        }
    }

    @Test func encodeClampsQuality() throws {
        let width = 40, height = 24
        let pixels = (0..<(width * height * 3)).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let q1 = try #require(JPEGTestSupport.encode(pixels, width, height, width * 3, 3, quality: 1))
        let q0 = try #require(JPEGTestSupport.encode(pixels, width, height, width * 3, 3, quality: -20))
        let q100 = try #require(JPEGTestSupport.encode(pixels, width, height, width * 3, 3, quality: 100))
        let q1000 = try #require(JPEGTestSupport.encode(pixels, width, height, width * 3, 3, quality: 1000))
        #expect(q0 == q1, "quality below 1 must act as 1")
        #expect(q1000 == q100, "quality above 100 must act as 100")
        #expect(q100.count > q1.count)
    }

    @Test func encodeRefusesInvalidImage() {
        var image = ci_image()  // no pixels
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var error = ci_error()
        #expect(ci_encode(CI_FORMAT_JPEG, &image, nil, &out, &size, &error) == CI_ERR_INVALID_ARGUMENT)
        #expect(out == nil)
    }

    // MARK: - Broken files

    /// A JPEG cut short (issue #32: "Premature end of JPEG file", a
    /// download that stopped). Cut in its header there is nothing to draw:
    /// refused, naming the file. Cut anywhere after it, it is drawn as far
    /// as it goes with the rest grey, as other readers show it, and the cut
    /// is counted with the corrupt data `add` and `save` report.
    @Test func aJPEGCutShortIsRefusedInItsHeaderAndDrawnAsFarAsItGoesPastIt() throws {
        guard let folder = TestData.folder("jpeg") else {
            TestData.reportAbsent("jpeg")
            return
        }
        let path = folder.appendingPathComponent("testorig.jpg")
        let bytes = try [UInt8](Data(contentsOf: path))
        // Where the scan's data begins: past the SOS segment (one, baseline).
        let sos = try #require((0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let scan = sos + 2 + (Int(bytes[sos + 2]) << 8 | Int(bytes[sos + 3]))
        let whole = try JPEGTestSupport.decodeMemoryOK(bytes, name: "whole.jpg")

        // Half the file: the top rows as the whole file decodes them, the
        // last row the grey of blocks with no data (128).
        let half = try JPEGTestSupport.decodeMemoryOK(Array(bytes.prefix(bytes.count / 2)), name: "cut.jpg")
        #expect(half.width == whole.width && half.height == whole.height)
        let row = whole.width * whole.channels
        #expect(half.pixels.prefix(16 * row) == whole.pixels.prefix(16 * row))
        #expect(half.pixels.suffix(row).allSatisfy { $0 == 128 }, "\(Array(half.pixels.suffix(row).prefix(12)))")
        #expect(half.pixels.suffix(row) != whole.pixels.suffix(row))

        // Every cut, from just past the signature to one byte short of the
        // end (which loses the EOI marker, after all the pixels).
        var wrong: [String] = []
        for length in 3..<bytes.count {
            let result = JPEGTestSupport.decodeMemory(Array(bytes.prefix(length)), name: "cut.jpg")
            let right = length < scan
                ? result.status == CI_ERR_CORRUPT && result.message.hasPrefix("cut.jpg: ") && !result.message.contains("\n")
                : result.status == CI_OK && result.image?.width == whole.width && result.image?.height == whole.height
            if !right { wrong.append("\(length) bytes: status \(result.status.rawValue), \(result.message)") }
        }
        let wrongCount = wrong.count
        #expect(wrongCount == 0, "cuts before the scan (\(scan) bytes) refused, after it drawn; wrong, first ones: \(wrong.prefix(5))")

        // What `add` asks: the cut told, with the share of rows drawn, the
        // file accepted; one missing only its end marker (every row there)
        // whole; a cut header refused.
        let cut = FileManager.default.temporaryDirectory.appendingPathComponent("cut-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: cut) }
        for (length, accepted) in [(bytes.count / 2, true), (bytes.count - 2, true), (scan - 1, false)] {
            try Data(bytes.prefix(length)).write(to: cut)
            var error = ci_error()
            var drawn = ci_placement()
            var limits = ci_limits(max_pixels: 0)
            let status = ci_check_complete(cut.path, &limits, &drawn, &error)
            if length == bytes.count - 2 {
                #expect(status == CI_OK && drawn.corrupt_data == 0 && drawn.cut_short == CI_CUT_NONE,
                        "no end marker, every row: \(status) \(drawn.corrupt_data) \(drawn.cut_short)")
            } else if accepted {
                #expect(status == CI_OK && drawn.corrupt_data > 0 && drawn.cut_short == CI_CUT_ROWS, "\(length) bytes: \(status)")
                // Half the data: about half the rows (testorig's scan is even), and the same share as a draw at save.
                #expect(drawn.drawn_share > 0.3 && drawn.drawn_share < 0.7, "\(drawn.drawn_share)")
            } else {
                #expect(status == CI_ERR_CORRUPT && PNGTestSupport.message(error) == "\(cut.path): file is truncated",
                        "\(length) bytes: \(PNGTestSupport.message(error))")
            }
        }
    }

    @Test func garbageAfterSOIIsAnErrorNotACrash() {
        // A fixed pseudo-random sequence, so a failure can be replayed.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        var inputs: [[UInt8]] = [
            [0xFF, 0xD8, 0xFF],                                    // SOI and nothing
            [0xFF, 0xD8, 0xFF, 0xD9],                              // SOI, EOI: no image
            [0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0, count: 500),
            [0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0xFF, count: 500),
        ]
        for length in stride(from: 1, to: 4000, by: 37) {
            inputs.append([0xFF, 0xD8, 0xFF] + (0..<length).map { _ in next() })
        }
        var wrong: [String] = []
        for (index, input) in inputs.enumerated() {
            let result = JPEGTestSupport.decodeMemory(input, name: "garbage.jpg")
            if result.status == CI_OK || !result.message.hasPrefix("garbage.jpg: ") {
                wrong.append("input \(index): status \(result.status.rawValue) \(result.message)")
            }
            // `add` reads the same header code from a file, and walks it.
            let url = FileManager.default.temporaryDirectory
                .appendingPathComponent("collage-garbage-\(ProcessInfo.processInfo.processIdentifier)-\(index).jpg")
            guard FileManager.default.createFile(atPath: url.path, contents: Data(input)) else {
                Issue.record("cannot write \(url.path)")
                continue
            }
            defer { try? FileManager.default.removeItem(at: url) }
            if FormatFixtures.admit(url.path).0 == CI_OK {
                wrong.append("input \(index): add accepted it")
            }
        }
        let wrongCount = wrong.count
        #expect(wrongCount == 0, "first ones: \(wrong.prefix(5))")
    }
}

/// Helpers for JPEGTests; private to this file so that other test files may
/// use the same names.
private enum JPEGTestSupport {
    struct Picture: Equatable, CustomStringConvertible {
        var width: Int
        var height: Int
        var channels: Int
        var pixels: [UInt8]  // rows packed without padding

        /// Short, so that a failed expectation does not print every pixel.
        var description: String { "\(width)x\(height)x\(channels) picture" }

        func rgb(_ x: Int, _ y: Int) -> (Int, Int, Int) {
            let at = (y * width + x) * channels
            return (Int(pixels[at]), Int(pixels[at + 1]), Int(pixels[at + 2]))
        }
    }

    struct DecodeResult {
        var status: ci_status
        var message: String
        var image: Picture?
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func message(_ error: ci_error) -> String {
        withUnsafeBytes(of: error.message) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }

    static func fixture(_ name: String) throws -> String {
        let path = TestData.packageRoot.appendingPathComponent("Tests/Fixtures/jpeg/\(name)").path
        guard FileManager.default.fileExists(atPath: path) else {
            throw Failure(description: "project fixture \(path) is missing")
        }
        return path
    }

    static func options(orient: Bool, minWidth: Int = 0, minHeight: Int = 0, keepAlpha: Bool = false) -> ci_decode_options {
        var options = ci_decode_options()
        options.apply_orientation = orient ? 1 : 0
        options.min_width = UInt32(minWidth)
        options.min_height = UInt32(minHeight)
        options.keep_alpha = keepAlpha ? 1 : 0
        return options
    }

    /// Copies the engine's image into a Picture and frees it.
    private static func take(_ image: inout ci_image) -> Picture {
        let width = Int(image.width), height = Int(image.height), channels = Int(image.channels)
        var pixels = [UInt8]()
        pixels.reserveCapacity(width * height * channels)
        for y in 0..<height {
            let row = UnsafeBufferPointer(start: image.pixels + y * image.stride, count: width * channels)
            pixels.append(contentsOf: row)
        }
        ci_image_free(&image)
        return Picture(width: width, height: height, channels: channels, pixels: pixels)
    }

    static func probe(_ path: String) -> ci_photo_info? {
        var info = ci_photo_info()
        var error = ci_error()
        let status = ci_probe_file(path, &info, &error)
        if status != CI_OK {
            Issue.record("probe \(path) failed: \(message(error))")
            return nil
        }
        return info
    }

    static func decode(_ path: String, orient: Bool, minWidth: Int = 0, minHeight: Int = 0,
                       keepAlpha: Bool = false) -> DecodeResult {
        var opts = options(orient: orient, minWidth: minWidth, minHeight: minHeight, keepAlpha: keepAlpha)
        var image = ci_image()
        var error = ci_error()
        let status = ci_decode_file(path, &opts, &image, &error)
        if status != CI_OK {
            #expect(image.pixels == nil, "a failed decode must leave no pixels")
            return DecodeResult(status: status, message: message(error), image: nil)
        }
        return DecodeResult(status: status, message: "", image: take(&image))
    }

    static func decodeOK(_ path: String, orient: Bool, minWidth: Int = 0, minHeight: Int = 0,
                         keepAlpha: Bool = false) throws -> Picture {
        let result = decode(path, orient: orient, minWidth: minWidth, minHeight: minHeight, keepAlpha: keepAlpha)
        guard let image = result.image else {
            throw Failure(description: "decoding \(path) failed: \(result.message)")
        }
        return image
    }

    static func decodeMemory(_ bytes: [UInt8], name: String) -> DecodeResult {
        var opts = options(orient: true)
        var image = ci_image()
        var error = ci_error()
        let status = ci_decode_memory(bytes, bytes.count, name, &opts, &image, &error)
        if status != CI_OK {
            return DecodeResult(status: status, message: message(error), image: nil)
        }
        return DecodeResult(status: status, message: "", image: take(&image))
    }

    static func decodeMemoryOK(_ bytes: [UInt8], name: String) throws -> Picture {
        let result = decodeMemory(bytes, name: name)
        guard let image = result.image else { throw Failure(description: "decoding \(name) failed: \(result.message)") }
        return image
    }

    static func encode(_ pixels: [UInt8], _ width: Int, _ height: Int, _ stride: Int, _ channels: Int,
                       quality: Int32) -> [UInt8]? {
        var pixels = pixels
        return pixels.withUnsafeMutableBufferPointer { buffer -> [UInt8]? in
            var image = ci_image(pixels: buffer.baseAddress, width: UInt32(width), height: UInt32(height),
                                 stride: stride, channels: Int32(channels))
            var out: UnsafeMutablePointer<UInt8>? = nil
            var size = 0
            var error = ci_error()
            var options = ci_save_options_default()
            options.quality = quality
            let status = ci_encode(CI_FORMAT_JPEG, &image, &options, &out, &size, &error)
            guard status == CI_OK, let out else {
                Issue.record("encoding failed: \(message(error))")
                return nil
            }
            defer { ci_buffer_free(out) }
            return Array(UnsafeBufferPointer(start: out, count: size))
        }
    }

    /// Mean absolute difference over the RGB channels; nil (and a recorded
    /// issue) when the sizes differ.
    static func meanAbsoluteDifference(_ a: Picture, _ b: Picture) -> Double? {
        guard a.width == b.width, a.height == b.height else {
            Issue.record("sizes differ: \(a.width)x\(a.height) vs \(b.width)x\(b.height)")
            return nil
        }
        var total = 0
        a.pixels.withUnsafeBufferPointer { pa in
            b.pixels.withUnsafeBufferPointer { pb in
                for i in 0..<(a.width * a.height) {
                    for c in 0..<3 {
                        total += abs(Int(pa[i * a.channels + c]) - Int(pb[i * b.channels + c]))
                    }
                }
            }
        }
        return Double(total) / Double(a.width * a.height * 3)
    }

    static func psnr(_ a: Picture, _ b: Picture) -> Double? {
        guard a.width == b.width, a.height == b.height else {
            Issue.record("sizes differ: \(a.width)x\(a.height) vs \(b.width)x\(b.height)")
            return nil
        }
        var squares = 0.0
        for i in 0..<(a.width * a.height) {
            for c in 0..<3 {
                let d = Double(a.pixels[i * a.channels + c]) - Double(b.pixels[i * b.channels + c])
                squares += d * d
            }
        }
        let mse = squares / Double(a.width * a.height * 3)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// Checks the centre of each 16x16 quadrant of a 32x32 fixture (top-left,
    /// top-right, bottom-left, bottom-right) within 3 levels: flat 8x8 blocks
    /// at quality 95 decode within a level or two.
    static func expectQuadrants(_ image: Picture, _ expected: [(Int, Int, Int)],
                                sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(image.width == 32 && image.height == 32, sourceLocation: sourceLocation)
        guard image.width == 32, image.height == 32 else { return }
        let centres = [(8, 8), (24, 8), (8, 24), (24, 24)]
        for (index, (x, y)) in centres.enumerated() {
            let got = image.rgb(x, y)
            let want = expected[index]
            let close = abs(got.0 - want.0) <= 3 && abs(got.1 - want.1) <= 3 && abs(got.2 - want.2) <= 3
            #expect(close, "quadrant \(index) at (\(x),\(y)) is \(got), expected \(want)", sourceLocation: sourceLocation)
        }
    }

    /// A binary PPM (P6, maxval 255), as djpeg writes it.
    static func readPPM(_ url: URL) throws -> Picture {
        let bytes = try [UInt8](Data(contentsOf: url))
        var at = 0
        func token() throws -> String {
            // Whitespace and '#' comments separate the header fields.
            while at < bytes.count {
                if bytes[at] == UInt8(ascii: "#") {
                    while at < bytes.count, bytes[at] != 0x0A { at += 1 }
                } else if [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) {
                    at += 1
                } else { break }
            }
            let start = at
            while at < bytes.count, ![0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
            guard at > start else { throw Failure(description: "\(url.path): truncated PPM header") }
            return String(decoding: bytes[start..<at], as: UTF8.self)
        }
        guard try token() == "P6" else { throw Failure(description: "\(url.path): not a binary PPM") }
        guard let width = Int(try token()), let height = Int(try token()), let maxval = Int(try token()),
              maxval == 255 else { throw Failure(description: "\(url.path): unsupported PPM header") }
        at += 1  // the single whitespace byte before the samples
        let count = width * height * 3
        guard bytes.count - at >= count else { throw Failure(description: "\(url.path): PPM data truncated") }
        return Picture(width: width, height: height, channels: 3, pixels: Array(bytes[at..<(at + count)]))
    }
}
