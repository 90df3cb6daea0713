import CollageImaging
import Foundation
import Testing

// What the GIF, JPEG XL and WebP tests add to the conformance helpers
// (`FormatFixtures`, beside the TIFF suite): a photo drawn at its own size
// (ci_draw_photo copies pixel for pixel when the cell is the upright size)
// over one background, compared with its reference PNG composited over the
// same; the refusals of a file written from bytes; the Debian tools that
// make test files.

extension FormatFixtures {
    /// A background no fixture has much of, so alpha that is lost shows.
    static let background = ci_color(r: 40, g: 200, b: 90)

    struct Drawn {
        let status: ci_status
        let message: String
        let width: Int, height: Int
        let rgb: [UInt8]
    }

    /// The photo drawn into a canvas of its own upright size, over `background`.
    static func drawAtOwnSize(_ path: String, background: ci_color = background, maxPixels: UInt64 = 0) -> Drawn {
        let (probed, info, message) = probe(path)
        guard probed == CI_OK else { return Drawn(status: probed, message: message, width: 0, height: 0, rgb: []) }
        let width = Int(info.display_width), height = Int(info.display_height)
        let (status, rgb, drawMessage) = draw(path, width: width, height: height, background: background,
                                              limits: ci_limits(max_pixels: maxPixels))
        return Drawn(status: status, message: status == CI_OK ? "" : drawMessage, width: width, height: height, rgb: rgb)
    }

    /// Draws `file` at its own size and compares it with `png` composited
    /// over the background: at most `largest` levels apart anywhere, and
    /// `mean` on average.
    static func expectDrawnLikeReference(_ file: String, _ png: String, largest: Int, mean: Double,
                                         sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reference = try reference(png, background: background)
        let drawn = drawAtOwnSize(file)
        try #require(drawn.status == CI_OK, "\(drawn.message)", sourceLocation: sourceLocation)
        try #require(drawn.width == reference.width && drawn.height == reference.height,
                     "\(drawn.width)x\(drawn.height), the reference \(reference.width)x\(reference.height)",
                     sourceLocation: sourceLocation)
        let seen = difference(drawn.rgb, reference.pixels)
        #expect(seen.worst <= largest && seen.mean <= mean,
                "\(file): up to \(seen.worst) levels from its reference, \(seen.mean) on average",
                sourceLocation: sourceLocation)
    }

    /// `add`'s (`admit`: the header, then the whole file) and a draw's
    /// refusals of `bytes` written to a file: their statuses and messages
    /// (which must name the file).
    static func refusal(_ bytes: [UInt8], named name: String, in folder: URL) throws
        -> (add: ci_status, addMessage: String, draw: ci_status, drawMessage: String) {
        let file = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let (admitted, _, addMessage) = admit(file)
        let (drawn, _, drawMessage) = draw(file, width: 32, height: 32, background: background)
        if admitted != CI_OK { #expect(addMessage.hasPrefix(file + ": "), "\(addMessage)") }
        if drawn != CI_OK { #expect(drawMessage.hasPrefix(file + ": "), "\(drawMessage)") }
        return (admitted, admitted == CI_OK ? "" : addMessage, drawn, drawn == CI_OK ? "" : drawMessage)
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
