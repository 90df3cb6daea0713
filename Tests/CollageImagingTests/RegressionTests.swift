import CollageImaging
import CollageTestSupport
import Foundation
import Testing

// Inputs found by fuzzing the engine (Fuzz/, docs/reliability.md), kept in
// Tests/Fixtures/crashers/<target>/ and replayed here through every entry
// point a photo file goes through: each must end in a clean status with a
// one-line message naming the file, never a crash (under `make
// test-sanitized`, never a sanitizer report either).

private let crashers = TestData.packageRoot.appendingPathComponent("Tests/Fixtures/crashers")

private func files(_ target: String) -> [String] {
    let folder = crashers.appendingPathComponent(target)
    return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .sorted().map { folder.appendingPathComponent($0).path }
}

private func text(_ error: ci_error) -> String {
    withUnsafeBytes(of: error.message) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
}

private func expectClean(_ status: ci_status, _ error: ci_error, naming path: String) {
    if status == CI_OK { return }
    let message = text(error)
    #expect(message.hasPrefix(path), "\(message)")
    #expect(!message.contains("\n"))
}

private func chunk(_ type: String, _ data: [UInt8], declaredLength: UInt32? = nil) -> [UInt8] {
    PNGFile.chunk(type, data, declaredLength: declaredLength)
}

/// A 2 x 1 grey PNG, with `extra` chunks before IDAT.
private func tinyPNG(extra: [UInt8] = []) -> [UInt8] {
    let ihdr = chunk("IHDR", [0, 0, 0, 2, 0, 0, 0, 1, 8, 0, 0, 0, 0])
    return PNGFile.signature + ihdr + extra + chunk("IDAT", PNGFile.zlibStored([0, 0x40, 0xC0])) + chunk("IEND", [])
}

private func write(_ bytes: [UInt8], named name: String) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("collage-regressions-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let path = folder.appendingPathComponent(name).path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
}

@Suite struct RegressionTests {
    /// Every scan of a progressive JPEG walks all its blocks, and nothing in
    /// the format bounds the number of scans: 1000 scans over 8192 x 8192
    /// pixels (a 232 KB file) took 15 s, and more scans over a larger image
    /// hours. The decoder now refuses a file whose scans x blocks exceed a
    /// budget (at least 32 scans, at most 500): 500 scans for small images.
    @Test func aJPEGWithTooManyScansIsRefused() {
        var options = ci_decode_options()
        var image = ci_image()
        var error = ci_error()
        let many = manyScansJPEG(side: 256, scans: 501)
        #expect(ci_decode_memory(many, many.count, "scans.jpg", &options, &image, &error) == CI_ERR_CORRUPT)
        #expect(text(error) == "scans.jpg: more than 500 scans for a 256x256 image: refused (a photo has a few dozen at most)")
        // Odd but within the budget: decoded (the warnings about repeated bands are tolerated).
        let fine = manyScansJPEG(side: 256, scans: 400)
        #expect(ci_decode_memory(fine, fine.count, "fine.jpg", &options, &image, &error) == CI_OK, "\(text(error))")
        ci_image_free(&image)
        // A large image gets fewer: 2e8 / (2048 x 2048 / 64) = 3051, capped at 500;
        // 8192 x 8192: 190.
        let large = manyScansJPEG(side: 8192, scans: 191)
        let started = Date()
        #expect(ci_decode_memory(large, large.count, "large.jpg", &options, &image, &error) == CI_ERR_CORRUPT)
        #expect(text(error).hasPrefix("large.jpg: more than 190 scans"))
        #expect(Date().timeIntervalSince(started) < 30)
    }

    @Test func everyKeptCrasherEndsInACleanStatus() {
        let all = files("jpeg") + files("png") + files("tiff") + files("raw")
        #expect(!all.isEmpty)
        for path in all {
            var info = ci_photo_info()
            var error = ci_error()
            expectClean(ci_probe_file(path, &info, &error), error, naming: path)

            var options = ci_decode_options()
            options.apply_orientation = 1
            options.limits.max_pixels = 1 << 20
            var image = ci_image()
            let decoded = ci_decode_file(path, &options, &image, &error)
            expectClean(decoded, error, naming: path)
            ci_image_free(&image)

            var pixels = [UInt8](repeating: 0, count: 48 * 40 * 3)
            pixels.withUnsafeMutableBufferPointer { buffer in
                var canvas = ci_image(pixels: buffer.baseAddress, width: 48, height: 40, stride: 48 * 3, channels: 3)
                var limits = ci_limits(max_pixels: 1 << 20)
                let drawn = ci_draw_photo(path, &canvas, ci_rect(x: -3, y: 5, width: 30, height: 20),
                                          ci_color(r: 1, g: 2, b: 3), &limits, &error)
                expectClean(drawn, error, naming: path)
            }
        }
    }

    /// Found by fuzzing PNG (Tests/Fixtures/crashers/png/itxt-declaring-1.6GB.png,
    /// 683 bytes): libpng allocated and zeroed the length an iTXt chunk
    /// declared (1.6 GB) before reading it, since its size check only warns
    /// when reading; `collage add` took 1.6 GB and a second to refuse the
    /// file. Text and other unused chunks are now skipped unread. The same
    /// for a minimal file whose tEXt declares 2 GB: refused at once.
    @Test func aChunkDeclaringGigabytesIsSkippedNotAllocated() throws {
        let fixture = crashers.appendingPathComponent("png/itxt-declaring-1.6GB.png").path
        let declared = try write(tinyPNG(extra: Array(chunk("tEXt", [], declaredLength: 0x7FFF_FFFF).prefix(8))),
                                 named: "text-declaring-2GB.png")
        // iCCP is read again since issue #12 (colour.c converts with it):
        // libpng reads it in pieces, so a declared 1.6 GB is refused at once too.
        let profile = try write(tinyPNG(extra: Array(chunk("iCCP", Array("icc".utf8) + [0, 0], declaredLength: 0x6000_0000).prefix(16))),
                                named: "iccp-declaring-1.6GB.png")
        for path in [fixture, declared, profile] {
            var info = ci_photo_info()
            var error = ci_error()
            let started = Date()
            let status = ci_probe_file(path, &info, &error)
            #expect(status == CI_ERR_CORRUPT)
            #expect(text(error) == "\(path): file is truncated")
            // Allocating and zeroing 1.6-2 GB took about a second.
            #expect(Date().timeIntervalSince(started) < 0.5)
        }
    }

    /// Skipping the unused chunks changes no pixel: a PNG with text, time,
    /// physical size and background chunks decodes like the same PNG without.
    @Test func skippedChunksChangeNoPixel() throws {
        let plain = try write(tinyPNG(), named: "plain.png")
        let extras = chunk("tEXt", Array("Title\u{0}grey".utf8)) + chunk("zTXt", Array("k\u{0}\u{0}".utf8) + [0x78, 0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
            + chunk("tIME", [0x07, 0xEA, 11, 21, 12, 0, 0]) + chunk("pHYs", [0, 0, 0x0B, 0x13, 0, 0, 0x0B, 0x13, 1])
            + chunk("bKGD", [0, 0x80]) + chunk("sBIT", [8]) + chunk("abCd", [1, 2, 3])
        let rich = try write(tinyPNG(extra: extras), named: "rich.png")
        var decoded: [[UInt8]] = []
        for path in [plain, rich] {
            var options = ci_decode_options()
            var image = ci_image()
            var error = ci_error()
            #expect(ci_decode_file(path, &options, &image, &error) == CI_OK, "\(text(error))")
            decoded.append(Array(UnsafeBufferPointer(start: image.pixels, count: Int(image.width) * Int(image.height) * Int(image.channels))))
            ci_image_free(&image)
        }
        #expect(decoded.count == 2 && decoded[0] == decoded[1])
        #expect(decoded[0] == [0x40, 0x40, 0x40, 0xC0, 0xC0, 0xC0])
    }
}
