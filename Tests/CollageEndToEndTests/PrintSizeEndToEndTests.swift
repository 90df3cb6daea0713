import CollageTestSupport
import Foundation
import Testing

/// `--size` on paper (issue #34), through the built binary: the pixels
/// drawn, the resolution the file says, the soft-print warning and the
/// dry run's canvas.
@Suite struct PrintSizeEndToEndTests {
    func collage(_ photos: [String] = [CLI.jpegs[0], CLI.jpegs[1]]) throws -> CLI {
        let cli = try CLI()
        #expect(try cli.run(["add"] + photos).status == 0)
        return cli
    }

    /// Pillow's size and dpi of a saved file: "(2480, 3508) [300, 300]".
    static func sizeAndDPI(_ path: String) throws -> String {
        try OutputTagsEndToEndTests.output("/usr/bin/python3", ["-c", """
            from PIL import Image
            image = Image.open('\(path)')
            print(image.size, [round(v) for v in image.info['dpi']] if 'dpi' in image.info else None)
            """])
    }

    @Test("A4 is 2480x3508 and says 300 dpi, read back by Pillow and exiftool", arguments: ["jpg", "png"])
    func a4(format: String) throws {
        let cli = try collage()
        let saved = try cli.run("save", "--size", "A4", "-o", "a4.\(format)")
        #expect(saved.status == 0, "\(saved.stderr)")
        let path = cli.workingDirectory.appendingPathComponent("a4.\(format)").path
        #expect(try Self.sizeAndDPI(path) == "(2480, 3508) [300, 300]\n")
        let exif = try OutputTagsEndToEndTests.output("/usr/bin/exiftool", ["-s", "-s", "-s", "-EXIF:XResolution", "-EXIF:YResolution", path])
        #expect(exif == "300\n300\n", "exiftool: \(exif)")
    }

    /// Each way of writing a size on paper, at --dpi or 300; pixels as before.
    @Test func everySizeOnPaperIsItsPixelsAtTheResolution() throws {
        let cli = try collage()
        for (size, dpi, expected) in [(["--size", "A4-landscape"], [String](), "(3508, 2480) [300, 300]"),
                                      (["--size", "6x4in"], [], "(1800, 1200) [300, 300]"),
                                      (["--size", "15x10cm"], ["--dpi", "150"], "(886, 591) [150, 150]"),
                                      (["--size", "210x297mm"], ["--dpi", "72"], "(595, 842) [72, 72]"),
                                      (["--size", "letter"], ["--dpi", "150"], "(1275, 1650) [150, 150]"),
                                      (["--size", "640x480"], [], "(640, 480) None")] {
            let saved = try cli.run(["save", "--keep", "-o", "out.png", "--force"] + size + dpi)
            #expect(saved.status == 0, "\(size): \(saved.stderr)")
            #expect(try Self.sizeAndDPI(cli.workingDirectory.appendingPathComponent("out.png").path) == expected + "\n", "\(size) \(dpi)")
        }
    }

    @Test func aSizeTooLargeAtTheResolutionIsOneLineAndAUsageError() throws {
        let cli = try collage()
        let refused = try cli.run("save", "--size", "A3", "--dpi", "1200")
        #expect(refused.status == 64)
        #expect(refused.stderr.hasSuffix("size A3 at 1200 dpi is 14031x19843 pixels: each side must be 1 to 16384 pixels\n")
                && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
    }

    /// Two 640x480 photos on A3 at 300 dpi, side by side in the grid: cells
    /// of 1754x4961 px show 170x480 of each, 4961 / 480 = 10.3 times
    /// enlarged, so 300 / 10.3 = 29 of the photo's pixels to the inch.
    @Test func aPhotoTooSmallForItsCellOnPaperIsNamedWithItsEffectiveDPI() throws {
        let cli = try CLI()
        var photos: [String] = []
        for name in ["beach.png", "dunes.png"] {
            let url = cli.workingDirectory.appendingPathComponent(name)
            try Data(PNGFile.encode(width: 640, height: 480, colourType: 2, samples: [UInt8](repeating: 120, count: 640 * 480 * 3)))
                .write(to: url)
            photos.append(url.path)
        }
        #expect(try cli.run(["add"] + photos).status == 0)
        func warnings(_ dpi: Int) -> String {
            photos.map { "collage: warning: \($0) prints at \(dpi) dpi in its cell (below 150): it will look soft\n" }.joined()
        }
        let a3 = try cli.run("save", "--size", "A3", "--layout", "grid", "-o", "a3.jpg", "--keep")
        #expect(a3.status == 0 && a3.stderr == warnings(29), "\(a3.stderr)")
        // In cells of 74x105 mm (A6-landscape's halves; 874x1240 px at 300 dpi): 480 px over 4.13 in, 116 dpi.
        let a6 = try cli.run("save", "--size", "A6-landscape", "--layout", "grid", "-o", "a6.jpg", "--keep")
        #expect(a6.stderr == warnings(116), "\(a6.stderr)")
        // About the same at 72 dpi: the photo's pixels over the cell's inches, whatever the canvas's
        // (the cell's 298 px are 4.14 in, where 105 mm are 4.13: 115).
        let at72 = try cli.run("save", "--size", "A6-landscape", "--dpi", "72", "--layout", "grid", "-o", "a6-72.jpg", "--keep")
        #expect(at72.stderr == warnings(115), "\(at72.stderr)")
        // In 1.5x2in cells: 240 dpi, nothing to say.
        #expect(try cli.run("save", "--size", "3x2in", "--layout", "grid", "-o", "small.jpg", "--keep").stderr.isEmpty)
        // batch says it per collage.
        try (photos.joined(separator: "\n") + "\n").write(to: cli.workingDirectory.appendingPathComponent("list.txt"), atomically: true, encoding: .utf8)
        let batch = try cli.run("batch", "list.txt", "-o", "out", "--layout", "grid", "--size", "A3")
        #expect(batch.stderr.hasPrefix(warnings(29).replacingOccurrences(of: "warning: ", with: "warning: collage 1 (lines 1-2): ")),
                "\(batch.stderr)")
    }

    /// With a resolution in play the print is what matters: the photos the
    /// enlargement warning names at 2500x800 (2.8x and 2.1x) print at 108
    /// and 144 dpi at 300 dpi, and at 600 dpi at 216 and 288: sharp enough.
    @Test func theSoftPrintWarningTakesTheEnlargementWarningsPlace() throws {
        let cli = try collage()
        let at300 = try cli.run("save", "--layout", "grid", "--size", "2500x800", "--dpi", "300", "-o", "300.png", "--keep")
        #expect(at300.stderr == """
            collage: warning: \(CLI.jpegs[0]) prints at 108 dpi in its cell (below 150): it will look soft
            collage: warning: \(CLI.jpegs[1]) prints at 144 dpi in its cell (below 150): it will look soft

            """, "\(at300.stderr)")
        #expect(try cli.run("save", "--layout", "grid", "--size", "2500x800", "--dpi", "600", "-o", "600.png", "--keep").stderr.isEmpty)
    }

    /// The canvas object gains the print size, its other keys as they were.
    @Test func theDryRunsCanvasSaysThePaperAndTheResolution() throws {
        let cli = try collage()
        func canvas(_ arguments: String...) throws -> String {
            let plan = try cli.run(["save", "--dry-run", "--json"] + arguments).stdout
            return String(plan.prefix { $0 != "}" }) + "}"
        }
        #expect(try canvas("--size", "A4") == #"{"canvas":{"dpi":300,"height":3508,"heightMillimetres":297,"paper":"A4","width":2480,"widthMillimetres":210}"#)
        #expect(try canvas("--size", "6x4in", "--dpi", "150") == #"{"canvas":{"dpi":150,"height":600,"heightMillimetres":101.6,"paper":"6x4in","width":900,"widthMillimetres":152.4}"#)
        #expect(try canvas("--size", "1800x1200", "--dpi", "300") == #"{"canvas":{"dpi":300,"height":1200,"width":1800}"#)
        #expect(try canvas("--size", "1800x1200") == #"{"canvas":{"height":1200,"width":1800}"#)
        #expect(try cli.run("save", "--dry-run", "--size", "A4-landscape").stdout.hasPrefix("3508x2480 (A4-landscape at 300 dpi) auto, 2 photos (nothing written)\n"))
    }

    /// A batch list's `#size` lines, at the run's --dpi; the others at --size.
    @Test func aBatchListsSizeLinesSizeTheirCollages() throws {
        let cli = try CLI()
        let list = "#size A5\n\(CLI.jpegs[0])\n\(CLI.jpegs[1])\n\n\(CLI.jpegs[2])\n\(CLI.jpegs[3])\n\n#size 6x4in\n\(CLI.jpegs[0])\n\(CLI.jpegs[2])\n"
        try list.write(to: cli.workingDirectory.appendingPathComponent("list.txt"), atomically: true, encoding: .utf8)
        let batch = try cli.run("batch", "list.txt", "-o", "out", "--format", "png", "--size", "640x480")
        #expect(batch.status == 0, "\(batch.stderr)")
        let out = cli.workingDirectory.appendingPathComponent("out")
        #expect(try Self.sizeAndDPI(out.appendingPathComponent("collage-001.png").path) == "(1748, 2480) [300, 300]\n")
        #expect(try Self.sizeAndDPI(out.appendingPathComponent("collage-002.png").path) == "(640, 480) None\n")
        #expect(try Self.sizeAndDPI(out.appendingPathComponent("collage-003.png").path) == "(1800, 1200) [300, 300]\n")
        // At --dpi 1200 an A3 is too large: its collage is skipped naming the line, the others made.
        try "\(CLI.jpegs[0])\n\(CLI.jpegs[1])\n\n# poster\n#size A3\n\(CLI.jpegs[2])\n\(CLI.jpegs[3])\n"
            .write(to: cli.workingDirectory.appendingPathComponent("large.txt"), atomically: true, encoding: .utf8)
        let large = try cli.run("batch", "large.txt", "-o", "large", "--format", "png", "--size", "64x48", "--dpi", "1200")
        #expect(large.status == 1)
        #expect((large.stdout + large.stderr).contains("collage 2 (lines 5-7): skipped: line 5: size A3 at 1200 dpi is 14031x19843 pixels: each side must be 1 to 16384 pixels"),
                "\(large.stdout) \(large.stderr)")
        #expect(FileManager.default.fileExists(atPath: cli.workingDirectory.appendingPathComponent("large/collage-001.png").path))
    }

    /// preview draws a size on paper in its shape: as its pixels would be.
    @Test func previewDrawsASizeOnPaperAsItsPixels() throws {
        let cli = try collage()
        let paper = try cli.run("preview", "--width", "30", "--graphics", "symbols", "--size", "A4", "--dpi", "100")
        let pixels = try cli.run("preview", "--width", "30", "--graphics", "symbols", "--size", "827x1169")
        #expect(paper.status == 0 && paper.stdout == pixels.stdout, "\(paper.stderr)")
        #expect(paper.stdout.split(separator: "\n").count > 15, "a portrait picture")
    }

    /// suggest takes a size on paper for its shape and, at the default 300
    /// dpi, its pixels (how much a cell enlarges a photo, issue #41):
    /// A4-landscape chooses as 3508x2480 does.
    @Test func suggestTakesASizeOnPaperForItsShape() throws {
        let cli = try CLI()
        let cache = try temporaryDirectory()
        func suggest(_ size: String) throws -> Run {
            try cli.bash("XDG_CACHE_HOME=\(shellQuoted(cache.path)) exec \"$COLLAGE\" suggest --count 4 --json --size \(size) "
                         + shellQuoted(CLI.samples.path))
        }
        let paper = try suggest("A4-landscape")
        #expect(paper.succeeded && paper.stdout.contains(#""size" : "A4-landscape""#), "\(paper)")
        let pixels = try suggest("3508x2480")
        #expect(paper.stdout.replacingOccurrences(of: "A4-landscape", with: "3508x2480") == pixels.stdout)
        let small = try suggest("297x210")
        #expect(small.stdout.replacingOccurrences(of: "297x210", with: "3508x2480") != pixels.stdout, "the pixels count")
    }
}
