import CollageImaging
import Foundation
import Testing

// What the tests of issue #22's formats share: the conformance files in
// Tests/Fixtures/formats (each beside the PNG a viewer shows for it, made by
// scripts/testdata/make-format-fixtures.sh), the photo drawn at its own size
// (ci_draw_photo copies pixel for pixel when the cell is the upright size),
// and the reference composited over the same background.

enum FormatFixtures {
    static let root = TestData.packageRoot.appendingPathComponent("Tests/Fixtures/formats")

    static func path(_ kind: String, _ name: String) -> String {
        root.appendingPathComponent(kind).appendingPathComponent(name).path
    }

    /// A background no fixture has much of, so alpha that is lost shows.
    static let background = ci_color(r: 40, g: 200, b: 90)

    /// The reference PNG's pixels as stored (no colour conversion: the tools
    /// wrote sRGB), alpha composited over `background` as png_load.c does.
    static func reference(_ png: String, background: ci_color = background) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        var options = ci_decode_options()
        options.keep_alpha = 1
        options.keep_colours = 1
        var image = ci_image()
        var error = ci_error()
        try #require(ci_decode_file(png, &options, &image, &error) == CI_OK, "\(PNGTestSupport.message(error))")
        defer { ci_image_free(&image) }
        let rgba = PNGTestSupport.pixels(of: image)
        let bg = [UInt32(background.r), UInt32(background.g), UInt32(background.b)]
        var rgb = [UInt8]()
        rgb.reserveCapacity(rgba.count / 4 * 3)
        for at in stride(from: 0, to: rgba.count, by: 4) {
            let a = UInt32(rgba[at + 3])
            for c in 0..<3 { rgb.append(UInt8((UInt32(rgba[at + c]) * a + bg[c] * (255 - a) + 127) / 255)) }
        }
        return (Int(image.width), Int(image.height), rgb)
    }

    struct Drawn {
        let status: ci_status
        let message: String
        let width: Int, height: Int
        let rgb: [UInt8]
    }

    /// The photo drawn into a canvas of its own upright size, over `background`.
    static func drawAtOwnSize(_ path: String, background: ci_color = background, maxPixels: UInt64 = 0) -> Drawn {
        var info = ci_photo_info()
        var error = ci_error()
        let probed = ci_probe_file(path, &info, &error)
        guard probed == CI_OK else {
            return Drawn(status: probed, message: PNGTestSupport.message(error), width: 0, height: 0, rgb: [])
        }
        let width = Int(info.display_width), height = Int(info.display_height)
        var pixels = [UInt8](repeating: 0x5A, count: width * height * 3)
        var limits = ci_limits(max_pixels: maxPixels)
        let status = pixels.withUnsafeMutableBufferPointer { buffer -> ci_status in
            var canvas = ci_image(pixels: buffer.baseAddress, width: UInt32(width), height: UInt32(height),
                                  stride: width * 3, channels: 3)
            return ci_draw_photo(path, &canvas, ci_rect(x: 0, y: 0, width: UInt32(width), height: UInt32(height)),
                                 background, &limits, &error)
        }
        return Drawn(status: status, message: status == CI_OK ? "" : PNGTestSupport.message(error), width: width,
                     height: height, rgb: pixels)
    }

    /// The largest and the mean difference of two images' samples.
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> (largest: Int, mean: Double) {
        precondition(a.count == b.count && !a.isEmpty)
        var largest = 0, total = 0
        for (x, y) in zip(a, b) {
            let d = abs(Int(x) - Int(y))
            largest = max(largest, d)
            total += d
        }
        return (largest, Double(total) / Double(a.count))
    }

    /// Draws `file` at its own size and compares it with `png` composited
    /// over the background: at most `largest` levels apart anywhere, and
    /// `mean` on average.
    static func expectDrawnLikeReference(_ file: String, _ png: String, largest: Int, mean: Double,
                                         sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reference = try reference(png)
        let drawn = drawAtOwnSize(file)
        try #require(drawn.status == CI_OK, "\(drawn.message)", sourceLocation: sourceLocation)
        try #require(drawn.width == reference.width && drawn.height == reference.height,
                     "\(drawn.width)x\(drawn.height), the reference \(reference.width)x\(reference.height)",
                     sourceLocation: sourceLocation)
        let seen = difference(drawn.rgb, reference.rgb)
        #expect(seen.largest <= largest && seen.mean <= mean,
                "\(file): up to \(seen.largest) levels from its reference, \(seen.mean) on average",
                sourceLocation: sourceLocation)
    }

    /// The probe's refusal of `bytes` written to a file: its status and
    /// message (which must name the file), and the draw's.
    static func refusal(_ bytes: [UInt8], named name: String, in folder: URL) throws
        -> (probe: ci_status, probeMessage: String, draw: ci_status, drawMessage: String) {
        let file = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        var info = ci_photo_info()
        var error = ci_error()
        let probed = ci_probe_file(file, &info, &error)
        let probeMessage = probed == CI_OK ? "" : PNGTestSupport.message(error)
        var pixels = [UInt8](repeating: 0, count: 32 * 32 * 3)
        let drawn = pixels.withUnsafeMutableBufferPointer { buffer -> ci_status in
            var canvas = ci_image(pixels: buffer.baseAddress, width: 32, height: 32, stride: 96, channels: 3)
            return ci_draw_photo(file, &canvas, ci_rect(x: 0, y: 0, width: 32, height: 32), background, nil, &error)
        }
        let drawMessage = drawn == CI_OK ? "" : PNGTestSupport.message(error)
        if probed != CI_OK { #expect(probeMessage.hasPrefix(file + ": "), "\(probeMessage)") }
        if drawn != CI_OK { #expect(drawMessage.hasPrefix(file + ": "), "\(drawMessage)") }
        return (probed, probeMessage, drawn, drawMessage)
    }

    /// Runs a tool (gifsicle, cjxl, img2webp: scripts/install-deps.sh installs them).
    static func tool(_ name: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/" + name)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(name) \(arguments.joined(separator: " ")) failed")
    }
}
