import CollageImaging
import Foundation
import Testing

// TIFF through libtiff (formats/tiff_load.c): the conformance files of
// Tests/Fixtures/formats/tiff (scripts/testdata/make-format-fixtures.sh),
// each drawn at its own size and compared with its reference PNG (what a
// viewer shows: upright, the first page), and the refusals.

/// Shared by the TIFF and RAW suites: the committed conformance files.
enum FormatFixtures {
    static let folder = TestData.packageRoot.appendingPathComponent("Tests/Fixtures/formats")

    static func path(_ format: String, _ name: String) -> String {
        folder.appendingPathComponent(format).appendingPathComponent(name).path
    }

    /// A reference PNG's pixels, RGB over `background` (the engine's PNG
    /// decode, colours as stored), and its size.
    static func reference(_ path: String, background: ci_color) throws -> (pixels: [UInt8], width: Int, height: Int) {
        var options = ci_decode_options()
        options.background = background
        options.keep_colours = 1
        var image = ci_image()
        var error = ci_error()
        try #require(ci_decode_file(path, &options, &image, &error) == CI_OK, "\(PNGTestSupport.message(error))")
        defer { ci_image_free(&image) }
        return (PNGTestSupport.pixels(of: image), Int(image.width), Int(image.height))
    }

    /// The photo drawn into a width x height canvas, cell the whole canvas.
    static func draw(_ path: String, width: Int, height: Int, background: ci_color,
                     limits: ci_limits = ci_limits(max_pixels: 0)) -> (ci_status, [UInt8], String) {
        var pixels = [UInt8](repeating: 0x55, count: width * height * 3)
        var error = ci_error()
        var limits = limits
        let status = pixels.withUnsafeMutableBufferPointer { buffer -> ci_status in
            var canvas = ci_image(pixels: buffer.baseAddress, width: UInt32(width), height: UInt32(height),
                                  stride: width * 3, channels: 3)
            return ci_draw_photo(path, &canvas, ci_rect(x: 0, y: 0, width: UInt32(width), height: UInt32(height)),
                                 background, &limits, &error)
        }
        return (status, pixels, PNGTestSupport.message(error))
    }

    /// The largest difference of one sample, and the mean.
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> (worst: Int, mean: Double) {
        precondition(a.count == b.count)
        var worst = 0, total = 0
        for i in a.indices {
            let d = abs(Int(a[i]) - Int(b[i]))
            worst = max(worst, d)
            total += d
        }
        return (worst, Double(total) / Double(max(1, a.count)))
    }

    static func probe(_ path: String) -> (ci_status, ci_photo_info, String) {
        var info = ci_photo_info()
        var error = ci_error()
        let status = ci_probe_file(path, &info, &error)
        return (status, info, PNGTestSupport.message(error))
    }

    /// What `collage add` asks of the engine: the header, then whether the
    /// file is whole (ci_check_complete), which refuses a file cut short.
    static func admit(_ path: String) -> (ci_status, ci_photo_info, String) {
        var (status, info, message) = probe(path)
        guard status == CI_OK else { return (status, info, message) }
        var error = ci_error()
        status = ci_check_complete(path, nil, nil, &error)
        if status != CI_OK { (info, message) = (ci_photo_info(), PNGTestSupport.message(error)) }
        return (status, info, message)
    }
}

@Suite("TIFF (libtiff)")
struct TIFFTests {
    static let background = ci_color(r: 30, g: 140, b: 220)

    /// Each file and the largest difference allowed from its reference:
    /// lossless files to the level (16 bits are rounded to 8, by libtiff
    /// and by ImageMagick alike, so within 1; libtiff truncates a palette's
    /// 16-bit entries, ImageMagick rounds them); JPEG-in-TIFF is decoded by
    /// another libjpeg build than ImageMagick's, and alpha is premultiplied
    /// by libtiff before it is composited (within 1 more).
    static let files: [(String, Int)] = [
        ("rgb8-none", 0), ("rgb8-lzw", 0), ("rgb8-zip", 0), ("rgb8-rle", 0), ("rgb8-jpeg", 3),
        ("rgb8-strips8", 0), ("rgb8-tiled", 0), ("rgb16-zip", 1), ("grey8-lzw", 0), ("grey16", 1),
        ("palette8", 1), ("rgba8-zip", 2), ("cmyk8-naive", 1), ("rgb8-orientation6", 0), ("two-pages", 0),
        ("pyramid", 0), ("palette2", 1), ("palette4", 1), ("rgb16-lzw", 1),
    ] + (1...8).map { ("bilevel-g4-o\($0)", 0) }

    @Test("Each conformance file draws as its reference PNG shows it", arguments: files)
    func matchesReference(file: (String, Int)) throws {
        let (name, tolerance) = file
        let tiff = FormatFixtures.path("tiff", name + ".tif")
        let reference = try FormatFixtures.reference(FormatFixtures.path("tiff", name + ".png"),
                                                     background: Self.background)
        let (probed, info, message) = FormatFixtures.probe(tiff)
        try #require(probed == CI_OK, "\(message)")
        #expect(info.format == CI_FORMAT_TIFF)
        #expect(Int(info.display_width) == reference.width && Int(info.display_height) == reference.height)
        let (status, drawn, drawMessage) = FormatFixtures.draw(tiff, width: reference.width, height: reference.height,
                                                                background: Self.background)
        try #require(status == CI_OK, "\(drawMessage)")
        let difference = FormatFixtures.difference(drawn, reference.pixels)
        #expect(difference.worst <= tolerance, "\(name): up to \(difference.worst) levels off (mean \(difference.mean))")
    }

    @Test("The decode (previews) agrees with the draw", arguments: ["rgb8-orientation6", "rgba8-zip", "palette8"])
    func decodeMatchesReference(name: String) throws {
        let reference = try FormatFixtures.reference(FormatFixtures.path("tiff", name + ".png"),
                                                     background: Self.background)
        var options = ci_decode_options()
        options.apply_orientation = 1
        options.background = Self.background
        var image = ci_image()
        var error = ci_error()
        try #require(ci_decode_file(FormatFixtures.path("tiff", name + ".tif"), &options, &image, &error) == CI_OK,
                     "\(PNGTestSupport.message(error))")
        defer { ci_image_free(&image) }
        #expect(Int(image.width) == reference.width && Int(image.height) == reference.height)
        #expect(FormatFixtures.difference(PNGTestSupport.pixels(of: image), reference.pixels).worst <= 2)
    }

    @Test("Drawn small, rows are reduced as they are read (halvings, box averaged): every layout alike, close to the PNG drawn the same",
          arguments: [(12, 8), (7, 5), (30, 20), (40, 9)])
    func reducedAsRead(size: (Int, Int)) throws {
        let (width, height) = size
        let png = FormatFixtures.draw(FormatFixtures.path("tiff", "rgb8-none.png"), width: width, height: height,
                                      background: Self.background)
        try #require(png.0 == CI_OK)
        var first: [UInt8]?
        for name in ["rgb8-none", "rgb8-strips8", "rgb8-tiled", "rgb8-zip", "rgb8-lzw", "rgb8-orientation6"] {
            let drawn = FormatFixtures.draw(FormatFixtures.path("tiff", name + ".tif"), width: width, height: height,
                                            background: Self.background)
            try #require(drawn.0 == CI_OK, "\(drawn.2)")
            // The same pixels in other layouts: the same draw (the turned
            // one within the resampler's rounding).
            if let first { #expect(FormatFixtures.difference(first, drawn.1).worst <= (name == "rgb8-orientation6" ? 1 : 0), "\(name)") }
            first = first ?? drawn.1
            // A box average then Lanczos against Lanczos alone: close
            // (measured: a mean under 3 levels, 4.2 at 7x5, where the
            // 12x8 averages of a busy photo are resampled once more).
            let difference = FormatFixtures.difference(drawn.1, png.1)
            #expect(difference.mean < (width < 12 ? 5 : 3), "\(name) at \(width)x\(height): mean \(difference.mean), worst \(difference.worst)")
        }
    }

    /// Issue #32: libtiff's reader starts a row col_offset x samples *bytes*
    /// in, so a cell that crops columns showed other columns of a packed
    /// palette (ImageMagick's few-colour pictures: red with a stray blue
    /// column for red then blue), of a fax, and of 16-bit samples.
    @Test("Drawn into cells that crop columns (and rows), packed palettes, faxes in every orientation and 16-bit samples show what their reference PNG shows there",
          arguments: ["palette2", "palette4", "rgb16-lzw"] + (1...8).map { "bilevel-g4-o\($0)" })
    func croppedLikeReference(name: String) throws {
        let (probed, info, message) = FormatFixtures.probe(FormatFixtures.path("tiff", name + ".tif"))
        try #require(probed == CI_OK, "\(message)")
        let (width, height) = (Int(info.display_width), Int(info.display_height))
        // Half as wide (the centre columns), a third as wide, the same width
        // and half as high (rows), and a smaller cell that also reduces.
        for (cellWidth, cellHeight) in [(width / 2, height), (width / 3, height), (width, height / 2), (width / 4, height / 2)] {
            let drawn = FormatFixtures.draw(FormatFixtures.path("tiff", name + ".tif"), width: cellWidth,
                                            height: cellHeight, background: Self.background)
            let png = FormatFixtures.draw(FormatFixtures.path("tiff", name + ".png"), width: cellWidth,
                                          height: cellHeight, background: Self.background)
            try #require(drawn.0 == CI_OK && png.0 == CI_OK, "\(drawn.2) \(png.2)")
            let difference = FormatFixtures.difference(drawn.1, png.1)
            // ImageMagick rounds a palette's 16-bit entries, libtiff truncates them (1 level, 2 once resampled).
            #expect(difference.worst <= 2, "\(name) in \(cellWidth)x\(cellHeight): up to \(difference.worst) levels off (mean \(difference.mean))")
        }
    }

    /// Issue #32: libtiff's own Lab to RGB is approximate (31-33 dB from
    /// ImageMagick's conversion on these); lcms2's is within rounding.
    @Test("CIE L*a*b* (8 and 16 bits) is converted to sRGB through lcms2, as ImageMagick converts it",
          arguments: ["lab8", "lab16"])
    func labThroughLcms2(name: String) throws {
        let reference = try FormatFixtures.reference(FormatFixtures.path("tiff", name + ".png"),
                                                     background: Self.background)
        let (status, drawn, message) = FormatFixtures.draw(FormatFixtures.path("tiff", name + ".tif"),
                                                           width: reference.width, height: reference.height,
                                                           background: Self.background)
        try #require(status == CI_OK, "\(message)")
        let squared = zip(drawn, reference.pixels).reduce(0.0) { $0 + pow(Double(Int($1.0) - Int($1.1)), 2) }
        let psnr = 10 * log10(255 * 255 / max(squared / Double(drawn.count), 1e-9))
        #expect(psnr >= 40, "\(name): PSNR \(psnr) dB against ImageMagick's sRGB")
    }

    /// Issue #32: `add` took these (TIFFRGBAImageOK says yes to 16-bit
    /// CMYK; a strip of no bytes lies inside the file) and `save` refused
    /// them. Its check that the file is whole now asks libtiff what the
    /// draw asks; the probe still reads the header only. Issue #42:
    /// uncompressed strips holding fewer bytes than their rows take
    /// (Pillow's tiff_overflow_rows_per_strip.tif), which libtiff refuses
    /// when it reads them ("Not enough data for scanline 0").
    @Test("What libtiff's reader refuses is refused when added, as the draw refuses it",
          arguments: [("cmyk16", CI_ERR_UNSUPPORTED), ("cmyk16-jpeg", CI_ERR_UNSUPPORTED), ("empty-strip", CI_ERR_CORRUPT),
                      ("overflow-rows-per-strip", CI_ERR_CORRUPT)])
    func addAsksWhatTheDrawAsks(file: (String, ci_status)) {
        let path = FormatFixtures.path("tiff", file.0 + ".tif")
        #expect(FormatFixtures.probe(path).0 == CI_OK)
        let (added, _, addMessage) = FormatFixtures.admit(path)
        let (drawn, _, drawMessage) = FormatFixtures.draw(path, width: 24, height: 16, background: Self.background)
        #expect(added == file.1 && addMessage.hasPrefix(path + ": "), "\(addMessage)")
        #expect(drawn == file.1 && drawMessage.hasPrefix(path + ": "), "\(drawMessage)")
    }

    @Test("Orientation comes from the tag, for the driver to turn")
    func orientationIsReported() {
        let (status, info, _) = FormatFixtures.probe(FormatFixtures.path("tiff", "rgb8-orientation6.tif"))
        #expect(status == CI_OK)
        #expect(info.orientation == 6 && info.width == 64 && info.height == 96)
        #expect(info.display_width == 96 && info.display_height == 64)
    }

    @Test("RGBA reports its alpha")
    func alphaIsReported() {
        let (status, info, _) = FormatFixtures.probe(FormatFixtures.path("tiff", "rgba8-zip.tif"))
        #expect(status == CI_OK && info.has_alpha != 0)
    }

    @Test("A header claiming 50,000 x 50,000 is refused at once, naming the limit")
    func hugeHeaderIsRefused() {
        let path = FormatFixtures.path("tiff", "huge-header.tif")
        let started = Date()
        let (status, _, message) = FormatFixtures.draw(path, width: 32, height: 32, background: Self.background)
        #expect(status == CI_ERR_TOO_LARGE)
        #expect(message.contains("huge-header.tif") && message.contains("50000x50000") && message.contains("limit"))
        #expect(Date().timeIntervalSince(started) < 1)
    }

    @Test("A file cut short or corrupted is refused, naming the file")
    func brokenFilesAreRefused() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: FormatFixtures.path("tiff", "rgb8-zip.tif"))))
        func write(_ bytes: [UInt8], _ name: String) throws -> String {
            let path = folder.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
        func le32(_ bytes: [UInt8], _ at: Int) -> Int {
            Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        // Cut at half: ImageMagick writes the directory last, so it is gone.
        let half = try write(Array(good[0..<(good.count / 2)]), "half.tif")
        var (status, _, message) = FormatFixtures.probe(half)
        #expect(status == CI_ERR_CORRUPT && message.hasPrefix(half + ": "))
        // The directory whole but its one strip said to run far past the end
        // (StripByteCounts, tag 279): cut short, found without decoding by
        // `add`'s check that the file is whole (the probe reads the header).
        var long = good
        let directory = le32(good, 4)
        let entries = Int(good[directory]) | Int(good[directory + 1]) << 8
        let entry = try #require((0..<entries).map { directory + 2 + 12 * $0 }.first {
            Int(good[$0]) | Int(good[$0 + 1]) << 8 == 279 })
        long[entry + 2] = 4  // LONG
        long.replaceSubrange(entry + 8..<entry + 12, with: [0x80, 0x96, 0x98, 0x00])  // 10,000,000
        let past = try write(long, "past.tif")
        (status, _, message) = FormatFixtures.admit(past)
        #expect(status == CI_ERR_CORRUPT && message == past + ": the file is cut short (a strip or tile ends past it)")
        // The compressed strip scrambled: the probe passes (it decodes
        // nothing), the draw refuses, by name, on one line.
        var scrambled = good
        for i in 16..<min(directory, 4000) { scrambled[i] = UInt8(truncatingIfNeeded: i &* 7919 >> 3) }
        let broken = try write(scrambled, "scrambled.tif")
        let drawn = FormatFixtures.draw(broken, width: 96, height: 64, background: Self.background)
        #expect(drawn.0 == CI_ERR_CORRUPT && drawn.2.hasPrefix(broken + ": ") && !drawn.2.contains("\n"))
        // Not a TIFF past its first bytes.
        let junk = try write(Array(good[0..<8]) + [UInt8](repeating: 0xEE, count: 64), "junk.tif")
        (status, _, message) = FormatFixtures.probe(junk)
        #expect(status == CI_ERR_CORRUPT && message.hasPrefix(junk + ": "))
    }

    @Test("A tile broken where a centred crop does not look: the centred draw shows the rest, a smart one (every tile) refuses the file by name")
    func brokenTileOutsideTheCrop() throws {
        // Found by fuzzing vips' pyramid (Tests/Fixtures/crashers/tiff).
        let path = TestData.packageRoot.appendingPathComponent(
            "Tests/Fixtures/crashers/tiff/broken-tile-only-smart-reads.tif").path
        func draw(_ crop: ci_crop) -> (ci_status, String) {
            var pixels = [UInt8](repeating: 0, count: 96 * 17 * 3)
            var error = ci_error()
            var placement = ci_placement()
            let status = pixels.withUnsafeMutableBufferPointer { buffer -> ci_status in
                var canvas = ci_image(pixels: buffer.baseAddress, width: 96, height: 17, stride: 96 * 3, channels: 3)
                var options = ci_draw_options()
                options.crop = crop
                return ci_draw_photo_placed(path, &canvas, ci_rect(x: 0, y: 0, width: 96, height: 17), &options,
                                            &placement, &error)
            }
            return (status, PNGTestSupport.message(error))
        }
        #expect(draw(CI_CROP_CENTRE).0 == CI_OK)
        let smart = draw(CI_CROP_SMART)
        #expect(smart.0 == CI_ERR_CORRUPT && smart.1.hasPrefix(path + ": "), "\(smart.1)")
    }

    @Test("A pyramid drawn small reads its reduced level; drawn large, the full image")
    func pyramidUsesReducedLevel() throws {
        // marked-pyramid.tif: the photo, then a 48x32 level marked reduced
        // that is plain red (make-format-fixtures.sh): which one a draw read
        // shows in its pixels.
        let path = FormatFixtures.path("tiff", "marked-pyramid.tif")
        let small = FormatFixtures.draw(path, width: 24, height: 16, background: Self.background)
        try #require(small.0 == CI_OK, "\(small.2)")
        for pixel in stride(from: 0, to: small.1.count, by: 3) {
            #expect(small.1[pixel] >= 250 && small.1[pixel + 1] <= 5 && small.1[pixel + 2] <= 5)
        }
        // Larger than the level: the photo itself.
        let large = FormatFixtures.draw(path, width: 96, height: 64, background: Self.background)
        try #require(large.0 == CI_OK, "\(large.2)")
        let reference = try FormatFixtures.reference(FormatFixtures.path("tiff", "rgb8-lzw.png"), background: Self.background)
        #expect(FormatFixtures.difference(large.1, reference.pixels).worst == 0)
        // A decode at full size (0 x 0) is the photo, and one asked for
        // less takes the level (fuzzing found the full decode taking it),
        // halved once more where that still covers 20x10, as every decode is.
        for (min, red) in [((UInt32(0), UInt32(0)), false), ((UInt32(20), UInt32(10)), true)] {
            var options = ci_decode_options()
            options.min_width = min.0
            options.min_height = min.1
            var image = ci_image()
            var error = ci_error()
            try #require(ci_decode_file(path, &options, &image, &error) == CI_OK, "\(PNGTestSupport.message(error))")
            defer { ci_image_free(&image) }
            #expect((image.width, image.height) == (red ? (24, 16) : (96, 64)))
            #expect((image.pixels[0] == 255 && image.pixels[1] == 0) == red)
        }
        // vips' own pyramid drawn at its 12x8 level: that level's pixels,
        // copied (the cell equals it), not the full image resampled.
        let vips = FormatFixtures.path("tiff", "pyramid.tif")
        let level = FormatFixtures.draw(vips, width: 12, height: 8, background: Self.background)
        let full = FormatFixtures.draw(FormatFixtures.path("tiff", "rgb8-zip.tif"), width: 12, height: 8,
                                       background: Self.background)
        try #require(level.0 == CI_OK && full.0 == CI_OK)
        #expect(level.1 != full.1)
    }

    /// An uncompressed CMYK TIFF (one strip, little-endian), with `icc`
    /// embedded when given, written byte by byte: ImageMagick has no way to
    /// attach a profile made here.
    static func cmykTIFF(width: Int, height: Int, samples: [UInt8], icc: [UInt8]?) -> [UInt8] {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16) }
        var entries: [(tag: Int, type: Int, count: Int, value: [UInt8])] = [
            (256, 4, 1, le32(width)), (257, 4, 1, le32(height)), (258, 3, 4, []), (259, 3, 1, le16(1) + [0, 0]),
            (262, 3, 1, le16(5) + [0, 0]), (273, 4, 1, []), (277, 3, 1, le16(4) + [0, 0]), (278, 4, 1, le32(height)),
            (279, 4, 1, le32(samples.count)), (284, 3, 1, le16(1) + [0, 0]),
        ]
        if let icc { entries.append((34675, 7, icc.count, [])) }
        // Layout: header, the strip, BitsPerSample's four shorts, the profile, the directory.
        let strip = 8, bits = strip + samples.count, profile = bits + 8
        let directory = profile + (icc?.count ?? 0) + (icc?.count ?? 0) % 2
        var file = Array("II".utf8) + le16(42) + le32(directory) + samples + le16(8) + le16(8) + le16(8) + le16(8)
        if let icc { file += icc + [UInt8](repeating: 0, count: icc.count % 2) }
        file += le16(entries.count)
        for entry in entries {
            let value = entry.tag == 258 ? le32(bits) : entry.tag == 273 ? le32(strip) : entry.tag == 34675 ? le32(profile) : entry.value
            file += le16(entry.tag) + le16(entry.type) + le32(entry.count) + value
        }
        return file + le32(0)
    }

    @Test("CMYK goes through its ICC profile (colour.c's CMYK conversion, as for JPEG); without one, the naive formula")
    func cmykThroughItsProfile() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Quadrants of pure cyan, magenta and yellow ink and 50% K (TIFF's
        // CMYK: 0 is no ink). The profile (ColourTests') prints paler than
        // the naive formula: RGB = 0.2 + 0.8 x naive.
        var samples = [UInt8]()
        for y in 0..<32 {
            for x in 0..<32 {
                switch (x / 16, y / 16) {
                case (0, 0): samples += [255, 0, 0, 0]
                case (1, 0): samples += [0, 255, 0, 0]
                case (0, 1): samples += [0, 0, 255, 0]
                default: samples += [0, 0, 0, 128]
                }
            }
        }
        func quadrants(_ icc: [UInt8]?, _ name: String) throws -> [[Int]] {
            let path = folder.appendingPathComponent(name).path
            try Data(Self.cmykTIFF(width: 32, height: 32, samples: samples, icc: icc)).write(to: URL(fileURLWithPath: path))
            let drawn = FormatFixtures.draw(path, width: 32, height: 32, background: Self.background)
            try #require(drawn.0 == CI_OK, "\(drawn.2)")
            return [(8, 8), (24, 8), (8, 24), (24, 24)].map { x, y in Array(drawn.1[(y * 32 + x) * 3..<(y * 32 + x) * 3 + 3]).map(Int.init) }
        }
        func near(_ got: [[Int]], _ expected: [[Int]], _ tolerance: Int) -> Bool {
            zip(got, expected).allSatisfy { zip($0, $1).allSatisfy { abs($0 - $1) <= tolerance } }
        }
        let naive = try quadrants(nil, "naive.tif")
        #expect(near(naive, [[0, 255, 255], [255, 0, 255], [255, 255, 0], [127, 127, 127]], 1), "\(naive)")
        let profiled = try quadrants(Profiles.paleCMYK(), "profiled.tif")
        #expect(near(profiled, [[51, 255, 255], [255, 51, 255], [255, 255, 51], [153, 153, 153]], 4), "\(profiled)")
    }

    @Test("The date taken is the EXIF directory's DateTimeOriginal, when it is a date")
    func dateTaken() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16) }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            le16(tag) + le16(type) + le32(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
        }
        // An 8x8 grey TIFF: header, pixels, the date's text, the EXIF
        // directory, the first directory.
        func tiff(date: String) -> [UInt8] {
            let text = Array(date.utf8) + [0]
            let pixels = 8, textAt = pixels + 64, exifAt = textAt + text.count + text.count % 2, firstAt = exifAt + 18
            var file = Array("II".utf8) + le16(42) + le32(firstAt) + [UInt8](repeating: 128, count: 64)
            file += text + [UInt8](repeating: 0, count: text.count % 2)
            file += le16(1) + entry(36867, 2, text.count, le32(textAt)) + le32(0)
            let entries = [entry(256, 3, 1, le16(8)), entry(257, 3, 1, le16(8)), entry(258, 3, 1, le16(8)),
                           entry(259, 3, 1, le16(1)), entry(262, 3, 1, le16(1)), entry(273, 4, 1, le32(pixels)),
                           entry(277, 3, 1, le16(1)), entry(278, 3, 1, le16(8)), entry(279, 4, 1, le32(64)),
                           entry(34665, 4, 1, le32(exifAt))]
            return file + le16(entries.count) + entries.flatMap { $0 } + le32(0)
        }
        for (date, expected) in [("2019:07:04 18:30:00", "2019:07:04 18:30:00"), ("0000:00:00 00:00:00", "")] {
            let path = folder.appendingPathComponent("dated.tif").path
            try Data(tiff(date: date)).write(to: URL(fileURLWithPath: path))
            let (status, info, message) = FormatFixtures.probe(path)
            try #require(status == CI_OK, "\(message)")
            let taken = withUnsafeBytes(of: info.date_taken) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            #expect(taken == expected)
        }
    }

    @Test("Drawn from several threads at once, every draw gives the same pixels")
    func concurrentDraws() throws {
        let path = FormatFixtures.path("tiff", "rgb8-tiled.tif")
        let expected = FormatFixtures.draw(path, width: 50, height: 40, background: Self.background)
        try #require(expected.0 == CI_OK)
        let results = Locked([[UInt8]]())
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let drawn = FormatFixtures.draw(path, width: 50, height: 40, background: Self.background)
            results.append(drawn.0 == CI_OK ? drawn.1 : [])
        }
        #expect(results.value.count == 8 && results.value.allSatisfy { $0 == expected.1 })
    }

    @Test("Listed by the engine's table, with its extensions")
    func inTheTable() {
        var found = false
        for index in 0..<ci_formats(0, nil) {
            var info = ci_format_info()
            _ = ci_formats(index, &info)
            if info.format == CI_FORMAT_TIFF {
                found = true
                #expect(String(cString: info.extensions) == "tif tiff")
            }
        }
        #expect(found)
        // Read, not written: no writer in the writers' table.
        let written = (0..<ci_writers(0, nil)).map { index in
            var writer = ci_writer_info()
            _ = ci_writers(index, &writer)
            return writer.format
        }
        #expect(!written.isEmpty && !written.contains(CI_FORMAT_TIFF))
    }
}

/// A value several threads append to.
final class Locked<T>: @unchecked Sendable {
    private var stored: T
    private let lock = NSLock()
    init(_ value: T) { stored = value }
    var value: T { lock.lock(); defer { lock.unlock() }; return stored }
    func append<E>(_ element: E) where T == [E] { lock.lock(); stored.append(element); lock.unlock() }
}
