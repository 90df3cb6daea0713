import CollageImaging
import Foundation
import Testing

// HEIC, HEIF and AVIF against ../shared/testdata/heif (pillow-heif's and
// libavif's samples): every valid file decodes at the size and orientation
// libheif's own `heif-convert` gives, with its pixels; the broken ones are
// refused with the file and the reason.
//
// The engine does not let libheif turn or convert the photo (formats/heif_load.c): it
// reads the file's transformations itself and converts YCbCr at the size
// it needs. Comparing full-size decodes with heif-convert's checks both.

private enum HEIFData {
    static let pillow = TestData.folder("heif/pillow-heif")
    static let libavif = TestData.folder("heif/libavif")
    static var isPresent: Bool { pillow != nil && libavif != nil }

    static func path(_ name: String) -> String {
        let folder = name.hasSuffix(".avif") ? libavif : pillow
        return folder!.appendingPathComponent(name).path
    }

    /// Every file heif-convert decodes (200MP.heic is left to the limit
    /// tests: a 200-megapixel reference would take a minute).
    static let valid = [
        "LA_8__29x100.heif", "L_8__128x128.heif", "L_exif_xmp_iptc.heic", "RGBA_10__29x100.heif",
        "RGBA_8__128x128.heif", "RGB_10__128x128.heif", "RGB_12__29x100.heif", "RGB_8__128x128.heif",
        "RGB_8__29x100.heif", "RGB_8_chroma444.heif", "arrow.heic", "pug.heic", "xiaomi.heic",
        "zPug_3.heic", "cat.hif", "aux_YCbCr.heic", "empty_icc.heic",
        "abc_color_irot_alpha_irot.avif", "abc_color_irot_alpha_NOirot.avif", "clop_irot_imor.avif",
        "cosmos1650_yuv444_10bpc_p3pq.avif", "kodim23_yuv420_8bpc.avif",
        "sofa_grid1x5_420_dimg_repeat.avif",
    ]
}

private func decode(_ path: String, minWidth: UInt32 = 0, minHeight: UInt32 = 0,
                    maxPixels: UInt64 = 0) -> (ci_status, ci_image, String) {
    var options = ci_decode_options()
    options.min_width = minWidth
    options.min_height = minHeight
    options.apply_orientation = 1
    options.keep_alpha = 1
    options.keep_colours = 1  // heif-convert does not convert colours either
    options.limits.max_pixels = maxPixels
    var image = ci_image()
    var error = ci_error()
    let status = ci_decode_file(path, &options, &image, &error)
    return (status, image, PNGTestSupport.message(error))
}

/// heif-convert's pictures of a file (one per top-level image: name-1.png,
/// name-2.png... when there are several), decoded by the engine's PNG path
/// as RGBA. Empty when heif-convert wrote none.
private func heifConvertPictures(_ path: String, in folder: URL) throws -> [(Int, Int, [UInt8])] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/heif-convert")
    process.arguments = ["--quiet", path, folder.appendingPathComponent("ref.png").path]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".png") }.sorted()
    return names.compactMap { name in
        let (status, image, _) = decode(folder.appendingPathComponent(name).path)
        defer { var copy = image; ci_image_free(&copy) }
        guard status == CI_OK else { return nil }
        return (Int(image.width), Int(image.height), PNGTestSupport.pixels(of: image))
    }
}

@Suite("HEIF, HEIC and AVIF (libheif)")
struct HEIFTests {
    @Test("Each valid sample decodes as heif-convert shows it: size, orientation, pixels",
          arguments: HEIFData.valid)
    func matchesHeifConvert(name: String) throws {
        guard HEIFData.isPresent else { return TestData.reportAbsent("heif") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/heif-convert") else {
            Issue.record("heif-convert (Debian libheif-examples) is missing: make test installs it")
            return
        }
        let path = HEIFData.path(name)
        var info = ci_photo_info()
        var error = ci_error()
        #expect(ci_probe_file(path, &info, &error) == CI_OK, "\(PNGTestSupport.message(error))")
        #expect(info.format == CI_FORMAT_HEIF)

        let (status, image, message) = decode(path)
        #expect(status == CI_OK, "\(message)")
        defer { var copy = image; ci_image_free(&copy) }
        guard status == CI_OK else { return }
        #expect(Int(info.display_width) == Int(image.width) && Int(info.display_height) == Int(image.height))
        let ours = PNGTestSupport.pixels(of: image)

        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pictures = try heifConvertPictures(path, in: folder)
        try #require(!pictures.isEmpty, "heif-convert wrote nothing for \(name)")
        // The primary image is the one of the same size whose pixels are
        // closest (heif-convert numbers the top-level images in file order).
        let candidates = pictures.filter { $0.0 == Int(image.width) && $0.1 == Int(image.height) }
        try #require(!candidates.isEmpty,
                     "size \(image.width)x\(image.height), heif-convert: \(pictures.map { "\($0.0)x\($0.1)" })")
        let differences = candidates.map { meanAbsoluteDifference(ours, $0.2) }
        let best = differences.min()!
        // 8-bit files come out identical; 10- and 12-bit ones are rounded
        // from more bits than heif-convert's PNG keeps (at most 2 levels).
        #expect(best < 0.5, "mean difference \(best) from heif-convert")
        let reference = candidates[differences.firstIndex(of: best)!].2
        #expect(maximumDifference(ours, reference) <= 2)
    }

    @Test("A turned photo is probed at the size it is shown")
    func probeReportsTheShownSize() throws {
        guard HEIFData.isPresent else { return TestData.reportAbsent("heif") }
        // arrow.heic is coded 4032x3024 and turned a quarter by its irot box.
        var info = ci_photo_info()
        var error = ci_error()
        #expect(ci_probe_file(HEIFData.path("arrow.heic"), &info, &error) == CI_OK)
        #expect(info.display_width == 3024 && info.display_height == 4032 && info.orientation == 1)
        #expect(info.has_alpha == 0)
        #expect(ci_probe_file(HEIFData.path("abc_color_irot_alpha_irot.avif"), &info, &error) == CI_OK)
        #expect(info.has_alpha == 1)
    }

    @Test("Drawn into a small cell, a phone photo is the same picture as its full decode scaled")
    func drawMatchesFullDecode() throws {
        guard HEIFData.isPresent else { return TestData.reportAbsent("heif") }
        for name in ["arrow.heic", "pug.heic"] {
            let path = HEIFData.path(name)
            // 60x80 (arrow is portrait) / 80x60: the cover crop is the whole photo.
            let (status, full, message) = decode(path)
            try #require(status == CI_OK, "\(message)")
            defer { var copy = full; ci_image_free(&copy) }
            let (cw, ch) = full.width > full.height ? (80, 60) : (60, 80)
            let drawn = try drawCell(path, width: cw, height: ch)
            // The reference: box averages of the full decode over each cell
            // pixel; and the same upside down, which a wrong turn would match.
            let fx = Int(full.width) / cw, fy = Int(full.height) / ch
            var total = 0.0, totalFlipped = 0.0
            for y in 0..<ch {
                for x in 0..<cw {
                    for c in 0..<3 {
                        var sum = 0
                        for yy in 0..<fy {
                            let row = full.pixels! + (y * fy + yy) * full.stride
                            for xx in 0..<fx { sum += Int(row[(x * fx + xx) * 4 + c]) }
                        }
                        let reference = Double(sum) / Double(fx * fy)
                        total += abs(reference - Double(drawn[(y * cw + x) * 3 + c]))
                        totalFlipped += abs(reference - Double(drawn[((ch - 1 - y) * cw + (cw - 1 - x)) * 3 + c]))
                    }
                }
            }
            let mean = total / Double(cw * ch * 3), flipped = totalFlipped / Double(cw * ch * 3)
            // Lanczos against box averages, from the 320x240 thumbnail: a few levels.
            #expect(mean < 6, "\(name): mean difference \(mean) from the full decode, box-scaled")
            #expect(flipped > 3 * mean, "\(name): turned 180 degrees it differs by only \(flipped)")
        }
    }

    @Test("Drawn from the HEVC tiles a cell shows, a phone photo matches libheif's whole decode")
    func tilesMatchLibheif() throws {
        guard HEIFData.isPresent else { return TestData.reportAbsent("heif") }
        for name in ["arrow.heic", "pug.heic"] {
            let path = HEIFData.path(name)
            // libheif's decode (the engine's decode path), as a PNG drawn into
            // the same cell as the HEIC: the same resampler after it.
            let (status, full, message) = decode(path)
            try #require(status == CI_OK, "\(message)")
            let png = try PNGTestSupport.encodePNG(PNGTestSupport.pixels(of: full), width: Int(full.width),
                                                   height: Int(full.height), channels: 4)
            var copy = full
            ci_image_free(&copy)
            let folder = try PNGTestSupport.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let pngPath = folder.appendingPathComponent("full.png").path
            try png.write(to: URL(fileURLWithPath: pngPath))
            // 500x400 of a 12 MP photo: decoded at a quarter, cropped to the
            // middle (a portrait loses rows of tiles above and below).
            let fromTiles = try drawCell(path, width: 500, height: 400)
            let fromPNG = try drawCell(pngPath, width: 500, height: 400)
            let mean = meanAbsoluteDifference(fromTiles, fromPNG)
            #expect(mean < 1.5, "\(name): mean difference \(mean)")
            // Mirrored, which a wrong turn would match, it is far off.
            var mirrored = [UInt8](repeating: 0, count: fromPNG.count)
            for y in 0..<400 {
                for x in 0..<500 {
                    for c in 0..<3 { mirrored[(y * 500 + x) * 3 + c] = fromPNG[(y * 500 + 499 - x) * 3 + c] }
                }
            }
            #expect(meanAbsoluteDifference(fromTiles, mirrored) > 4 * mean + 2)
        }
    }

    /// Issue #32: a HEIC whose colr box is nclx saying limited range and
    /// the BT.601 matrix, over a stream whose VUI says full range, is drawn
    /// as libheif's own decode shows it (about 27 dB from the same samples
    /// read as full range: washed out) in every decode path: the direct
    /// tile decode at its own size and reduced, libheif's, the decode. One
    /// image, and a 1x2 grid with the nclx on its tiles (scripts/testdata/
    /// make-format-fixtures-32.sh). Issue #42: `nclx-phone` says what a
    /// phone's HDR HEIF says, 5/1/5 (BT.601 primaries, the BT.709
    /// transfer): drawn as libheif shows it, the transfer as sRGB (as its
    /// OETF's inverse it was 26.8 dB off, the shadows lifted: washed out).
    @Test("A colr nclx (limited range, BT.601) is honoured as libheif honours it, drawn at any size and decoded",
          arguments: ["nclx-limited", "nclx-phone", "grid-nclx-tiles"])
    func containerNclxIsHonoured(name: String) throws {
        let heic = FormatFixtures.path("heif", name + ".heic"), png = FormatFixtures.path("heif", name + ".png")
        func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
            let squared = zip(a, b).reduce(0.0) { $0 + pow(Double(Int($1.0) - Int($1.1)), 2) }
            return 10 * log10(255 * 255 / max(squared / Double(a.count), 1e-9))
        }
        // The reference PNG drawn into the same cells: the same resampler after it.
        for (width, height) in [(96, 64), (48, 32), (24, 16), (40, 40)] {
            let quality = psnr(try drawCell(heic, width: width, height: height), try drawCell(png, width: width, height: height))
            #expect(quality >= 40, "\(name) in \(width)x\(height): PSNR \(quality) dB against libheif's decode")
        }
        let (status, image, message) = decode(heic)
        try #require(status == CI_OK, "\(message)")
        defer { var copy = image; ci_image_free(&copy) }
        let reference = try FormatFixtures.reference(png, background: ci_color(r: 255, g: 255, b: 255))
        var rgb = [UInt8]()
        let rgba = PNGTestSupport.pixels(of: image)
        for i in stride(from: 0, to: rgba.count, by: 4) { rgb += rgba[i..<i + 3] }
        #expect(psnr(rgb, reference.pixels) >= 40, "\(name): the decode is \(psnr(rgb, reference.pixels)) dB from libheif's")
    }

    @Test("Broken files are refused with the file and the reason", arguments: [
        ("corrupted.heic", CI_ERR_CORRUPT), ("truncated.heic", CI_ERR_CORRUPT), ("empty.heic", CI_ERR_NOT_IMAGE),
    ])
    func brokenFilesAreRefused(name: String, expected: ci_status) throws {
        guard HEIFData.isPresent else { return TestData.reportAbsent("heif") }
        let path = HEIFData.path(name)
        var info = ci_photo_info()
        var error = ci_error()
        #expect(ci_probe_file(path, &info, &error) == expected)
        let message = PNGTestSupport.message(error)
        #expect(message.hasPrefix(path + ": "), "\(message)")
        #expect(!message.hasSuffix(" "))
        let (status, _, _) = decode(path)
        #expect(status == expected)
        #expect(throws: DrawFailure.self) { _ = try drawCell(path, width: 32, height: 32) }
    }

    @Test("A header claiming more pixels than the file codes is refused, not read past (fuzz finding)")
    func headerLargerThanTheCodedImage() throws {
        guard HEIFData.isPresent else { return TestData.reportAbsent("heif") }
        // abc_color_irot_alpha_irot.avif with its ispe grown by 100 x 50: libheif
        // decodes the 512 x 256 it codes (alpha and a turn: libheif's own path).
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: HEIFData.path("abc_color_irot_alpha_irot.avif"))))
        let ispe = try #require((0..<bytes.count - 16).first { bytes[$0..<$0 + 4] == [0x69, 0x73, 0x70, 0x65] })
        bytes[ispe + 10] &+= 1  // width 512 -> 768 (the big-endian 32-bit field's second-lowest byte)
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("wide.avif").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let (status, _, message) = decode(path)
        #expect(status == CI_ERR_CORRUPT, "\(message)")
        #expect(message == "\(path): the decoded image is smaller than its header says")
        #expect(throws: DrawFailure.self) { _ = try drawCell(path, width: 32, height: 32) }
    }

    @Test("200MP.heic is refused under the default pixel limit before anything is decoded")
    func overTheLimitIsRefused() throws {
        guard HEIFData.isPresent else { return TestData.reportAbsent("heif") }
        let path = HEIFData.path("200MP.heic")
        var info = ci_photo_info()
        var error = ci_error()
        #expect(ci_probe_file(path, &info, &error) == CI_OK)
        #expect(info.width == 12240 && info.height == 16320)
        let started = Date()
        do {
            _ = try drawCell(path, width: 640, height: 540)
            Issue.record("drawn although over the limit")
        } catch let failure as DrawFailure {
            #expect(failure.status == CI_ERR_TOO_LARGE)
            #expect(failure.message.contains("megapixels"), "\(failure.message)")
        }
        // Refused from the header: no 200-megapixel decode happened.
        #expect(Date().timeIntervalSince(started) < 2)
    }

    @Test("A thumbnail that covers the cell is used instead of the photo, and looks the same")
    func thumbnailCoversSmallCells() throws {
        guard HEIFData.isPresent else { return TestData.reportAbsent("heif") }
        // arrow.heic carries a 240x320 thumbnail: a 60x80 decode needs no more.
        let path = HEIFData.path("arrow.heic")
        let (status, small, message) = decode(path, minWidth: 60, minHeight: 80)
        try #require(status == CI_OK, "\(message)")
        defer { var copy = small; ci_image_free(&copy) }
        // The thumbnail's size (or its halvings), not a reduction of 3024x4032
        // (378x504 at 1/8).
        #expect(small.width <= 240 && small.height <= 320, "\(small.width)x\(small.height)")
        #expect(small.width >= 60 && small.height >= 80)
    }
}

struct DrawFailure: Error {
    let status: ci_status
    let message: String
}

/// Draws `path` into a width x height cell of a canvas of that size; RGB.
func drawCell(_ path: String, width: Int, height: Int) throws -> [UInt8] {
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    var error = ci_error()
    let status = pixels.withUnsafeMutableBufferPointer { buffer -> ci_status in
        var canvas = ci_image(pixels: buffer.baseAddress, width: UInt32(width), height: UInt32(height),
                              stride: width * 3, channels: 3)
        return ci_draw_photo(path, &canvas, ci_rect(x: 0, y: 0, width: UInt32(width), height: UInt32(height)),
                             ci_color(r: 255, g: 255, b: 255), nil, &error)
    }
    guard status == CI_OK else { throw DrawFailure(status: status, message: PNGTestSupport.message(error)) }
    return pixels
}

private func meanAbsoluteDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
    guard a.count == b.count, !a.isEmpty else { return .infinity }
    var total = 0
    for i in 0..<a.count { total += abs(Int(a[i]) - Int(b[i])) }
    return Double(total) / Double(a.count)
}

private func maximumDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
    var most = 0
    for i in 0..<min(a.count, b.count) { most = max(most, abs(Int(a[i]) - Int(b[i]))) }
    return most
}

/// A HEIF's turn (irot, imir) belongs to the picture, not to EXIF: even a
/// decode asked not to turn (ci_decode_options.apply_orientation = 0, the
/// fuzzers' "as stored") comes out as the probe says it is shown (fuzzing
/// found the one decode path handing over the coded, unturned planes).
@Suite struct HEIFTurnTests {
    @Test func anUnturnedDecodeIsStillAsShown() throws {
        guard let folder = TestData.folder("heif/libavif") else { return TestData.reportAbsent("heif/libavif") }
        for name in ["clap_irot_imir_non_essential.avif", "abc_color_irot_alpha_NOirot.avif"] {
            let path = folder.appendingPathComponent(name).path
            var info = ci_photo_info()
            var error = ci_error()
            try #require(ci_probe_file(path, &info, &error) == CI_OK, "\(PNGTestSupport.message(error))")
            for turned in [0, 1] {
                var options = ci_decode_options()
                options.apply_orientation = Int32(turned)
                var image = ci_image()
                try #require(ci_decode_file(path, &options, &image, &error) == CI_OK, "\(PNGTestSupport.message(error))")
                defer { ci_image_free(&image) }
                #expect((image.width, image.height) == (info.display_width, info.display_height), "\(name), turned \(turned)")
            }
        }
    }
}
