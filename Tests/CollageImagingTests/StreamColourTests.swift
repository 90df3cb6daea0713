import CollageImaging
import CollageTestSupport
import Foundation
import Testing

/// A HEIF without an nclx box takes its range and matrix from the coded
/// stream (HEVC's VUI), as libheif's later versions do: a real Android
/// photo whose stream said "limited range" was drawn washed out (ours = 0.85
/// x reference + 17) when full range was assumed.
@Suite struct StreamColourTests {
    /// Four grey patches (0, 255, 128, 40) encoded by heif-enc (x265) with
    /// full-range samples; `range` is what the stream's VUI says of them.
    /// heif-enc 1.15 writes no colour box for a PNG, so the VUI is all there is.
    static func patches(range: String, in folder: URL) throws -> String {
        let png = try patchesPNG(in: folder), heic = folder.appendingPathComponent("\(range).heic")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/heif-enc")
        process.arguments = ["-q", "95", "-p", "x265:range=\(range)", "-o", heic.path, png.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "heif-enc (libheif-examples, with x265) failed")
        let bytes = try Data(contentsOf: heic)
        try #require(bytes.range(of: Data("colr".utf8)) == nil, "heif-enc wrote a colour box: the VUI would not be all there is")
        return heic.path
    }

    /// The four grey patches as a 1024x256 PNG in `folder`.
    static func patchesPNG(in folder: URL) throws -> URL {
        let (width, height) = (1024, 256)
        let greys: [UInt8] = [0, 255, 128, 40]
        var samples: [UInt8] = []
        for _ in 0..<height {
            for x in 0..<width { samples += [UInt8](repeating: greys[x * 4 / width], count: 3) }
        }
        let png = folder.appendingPathComponent("patches.png")
        try Data(PNGFile.encode(width: width, height: height, colourType: 2, samples: samples)).write(to: png)
        return png
    }

    /// The patches' centres as drawn into a 256x64 cell (a reduced draw) and a 1024x256 one.
    static func greys(_ path: String) throws -> [[Int]] {
        try [(256, 64), (1024, 256)].map { width, height in
            let pixels = try drawCell(path, width: width, height: height)
            return (0..<4).map { Int(pixels[((height / 2) * width + $0 * width / 4 + width / 8) * 3]) }
        }
    }

    /// AVIF's equivalent: an AV1 sequence header that says limited range,
    /// in a file whose colour box is gone (renamed `free`, same size), is
    /// drawn as the same file with its box (libheif's AV1 decoders pass the
    /// sequence header's range on; checked here so it stays so).
    @Test func anAVIFsSequenceHeaderRangeIsUsedWithoutAColourBox() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/avifenc") else {
            Issue.record("avifenc (Debian libavif-bin) is missing: make test installs it")
            return
        }
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = try Self.patchesPNG(in: folder), avif = folder.appendingPathComponent("limited.avif")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/avifenc")
        process.arguments = ["-r", "limited", "-s", "10", "--min", "0", "--max", "8", png.path, avif.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "avifenc failed")
        var bytes = [UInt8](try Data(contentsOf: avif))
        let colr = Array("colr".utf8)
        let at = try #require((0...(bytes.count - 4)).first { Array(bytes[$0..<$0 + 4]) == colr }, "avifenc wrote no colour box")
        bytes.replaceSubrange(at..<at + 4, with: Array("free".utf8))
        let bare = folder.appendingPathComponent("bare.avif")
        try Data(bytes).write(to: bare)
        let withBox = try Self.greys(avif.path), without = try Self.greys(bare.path)
        #expect(without == withBox)
        for drawn in without {
            #expect(zip(drawn, [0, 255, 128, 40]).allSatisfy { abs($0 - $1) <= 3 }, "limited-range AV1 drawn as \(drawn)")
        }
    }

    @Test func aLimitedRangeStreamIsExpandedAndAFullRangeOneIsNot() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/heif-enc") else {
            Issue.record("heif-enc (Debian libheif-examples) is missing: make test installs it")
            return
        }
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for drawn in try Self.greys(try Self.patches(range: "full", in: folder)) {
            #expect(zip(drawn, [0, 255, 128, 40]).allSatisfy { abs($0 - $1) <= 1 }, "full range drawn as \(drawn)")
        }
        // The same samples read as limited range: (Y - 16) x 255 / 219, so
        // 128 is 130 and 40 is 28 (0 and 255 clip).
        for drawn in try Self.greys(try Self.patches(range: "limited", in: folder)) {
            #expect(zip(drawn, [0, 255, 130, 28]).allSatisfy { abs($0 - $1) <= 1 }, "limited range drawn as \(drawn)")
        }
    }
}
