import CollageImaging
import CollageTestSupport
import Foundation
import Testing

/// What a saved collage says of itself: an sRGB ICC profile, and the date
/// its earliest photo was taken; nothing else of the photos' metadata.
@Suite struct OutputTagsEndToEndTests {
    /// Two dated copies of the sample coffee cup (the later one first) and
    /// an undated PNG.
    func collage() throws -> CLI {
        let cli = try CLI()
        let sample = [UInt8](try Data(contentsOf: CLI.samples.appendingPathComponent("coffee-cup.jpg")))
        var paths: [String] = []
        for (name, date) in [("later.jpg", "2024:08:01 09:00:00"), ("earlier.jpg", "2019:07:04 18:30:00")] {
            let url = cli.workingDirectory.appendingPathComponent(name)
            try Data(EXIFBlock.inserted(EXIFBlock.dateTaken(date), into: sample)).write(to: url)
            paths.append(url.path)
        }
        let png = cli.workingDirectory.appendingPathComponent("undated.png")
        try Data(PNGFile.encode(width: 16, height: 12, colourType: 2, samples: [UInt8](repeating: 90, count: 16 * 12 * 3)))
            .write(to: png)
        paths += [png.path, png.path]
        #expect(try cli.run(["add"] + paths).status == 0)
        return cli
    }

    static func dateTaken(_ path: String) throws -> String {
        var info = ci_photo_info()
        var error = ci_error()
        try #require(ci_probe_file(path, &info, &error) == CI_OK)
        return withUnsafeBytes(of: info.date_taken) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        return bytes.count >= needle.count && (0...(bytes.count - needle.count)).contains { Array(bytes[$0..<$0 + needle.count]) == needle }
    }

    @Test("JPEG, PNG, WebP and AVIF carry an sRGB profile and the earliest date", arguments: ["jpg", "png", "webp", "avif"])
    func tagged(format: String) throws {
        let cli = try collage()
        let saved = try cli.run(["save", "-o", "tagged.\(format)", "--keep", "--size", "400x300"])
        #expect(saved.status == 0, "\(saved.stderr)")
        let path = cli.workingDirectory.appendingPathComponent("tagged.\(format)").path
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // The profile's own marker: each container's chunk or segment, and lcms2's sRGB description.
        let container = ["jpg": "ICC_PROFILE", "png": "iCCP", "webp": "ICCP", "avif": "colrprof"][format]!
        #expect(Self.contains(bytes, container), "no \(container)")
        #expect(Self.contains(bytes, "2019:07:04 18:30:00"), "not the earliest photo's date")
        #expect(!Self.contains(bytes, "2024:08:01 09:00:00"))
        // The engine reads the date back where it reads EXIF (JPEG, WebP, AVIF).
        if format != "png" { #expect(try Self.dateTaken(path) == "2019:07:04 18:30:00") }
        // Nothing else: the EXIF block is the TIFF header, the Exif IFD's
        // pointer and the date (JPEG's APP1 says its length).
        if format == "jpg", let at = (0..<bytes.count - 10).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xE1 }) {
            #expect(Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) < 100, "an APP1 of more than the date")
        }
    }

    @Test func theDatesOffsetFromUTCTravelsWithIt() throws {
        let cli = try CLI()
        let sample = [UInt8](try Data(contentsOf: CLI.samples.appendingPathComponent("coffee-cup.jpg")))
        let photo = cli.workingDirectory.appendingPathComponent("zoned.jpg")
        try Data(EXIFBlock.inserted(EXIFBlock.dateTaken("2019:07:04 18:30:00", offset: "-04:00"), into: sample)).write(to: photo)
        #expect(try Self.dateTaken(photo.path) == "2019:07:04 18:30:00-04:00")
        #expect(try cli.run("add", photo.path, photo.path).status == 0)
        let saved = try cli.run("save", "-o", "collage.jpg", "--size", "200x100", "--caption", "date")
        #expect(saved.status == 0, "\(saved.stderr)")
        let path = cli.workingDirectory.appendingPathComponent("collage.jpg").path
        #expect(try Self.dateTaken(path) == "2019:07:04 18:30:00-04:00")
        // An offset that is none ("+25:00") is not kept; the date is.
        try Data(EXIFBlock.inserted(EXIFBlock.dateTaken("2019:07:04 18:30:00", offset: "+25:00"), into: sample)).write(to: photo)
        #expect(try Self.dateTaken(photo.path) == "2019:07:04 18:30:00")
    }

    @Test func withoutADateOnlyTheProfile() throws {
        let cli = try CLI()
        let png = cli.workingDirectory.appendingPathComponent("undated.png")
        try Data(PNGFile.encode(width: 16, height: 12, colourType: 2, samples: [UInt8](repeating: 90, count: 16 * 12 * 3)))
            .write(to: png)
        #expect(try cli.run(["add", png.path, png.path]).status == 0)
        #expect(try cli.run(["save", "-o", "plain.jpg", "--size", "64x32"]).status == 0)
        let bytes = [UInt8](try Data(contentsOf: cli.workingDirectory.appendingPathComponent("plain.jpg")))
        #expect(Self.contains(bytes, "ICC_PROFILE"))
        #expect(!Self.contains(bytes, "Exif"))
    }

    /// `tool` with `arguments`; its standard output (exiftool, python3).
    static func output(_ tool: String, _ arguments: [String]) throws -> String {
        try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing: make test installs it")
        return try ToolRun(tool, arguments).text
    }

    /// Issue #34: `--dpi` makes the file say its print size, read back by
    /// exiftool (every format) and Pillow (JPEG's JFIF density, PNG's pHYs).
    @Test("--dpi 300 is in the file as its formats say resolution", arguments: ["jpg", "png", "webp", "avif"])
    func printResolution(format: String) throws {
        let cli = try collage()
        let saved = try cli.run(["save", "-o", "print.\(format)", "--keep", "--size", "1800x1200", "--dpi", "300"])
        #expect(saved.status == 0, "\(saved.stderr)")
        let path = cli.workingDirectory.appendingPathComponent("print.\(format)").path
        let exif = try Self.output("/usr/bin/exiftool", ["-s", "-s", "-s", "-EXIF:XResolution", "-EXIF:YResolution",
                                                          "-EXIF:ResolutionUnit", path])
        #expect(exif == "300\n300\ninches\n", "exiftool: \(exif)")
        if format == "jpg" || format == "png" {
            // Pillow's "dpi": from JFIF's density, or pHYs's 11811 pixels a metre.
            let dpi = try Self.output("/usr/bin/python3", ["-c", "from PIL import Image; print([round(v) for v in Image.open('\(path)').info['dpi']])"])
            #expect(dpi == "[300, 300]\n", "Pillow: \(dpi)")
        }
        // Without --dpi the file says no print size, as before.
        #expect(try cli.run(["save", "-o", "plain.\(format)", "--keep", "--size", "1800x1200"]).status == 0)
        let plain = try Self.output("/usr/bin/exiftool", ["-s", "-s", "-s", "-EXIF:XResolution",
                                                           cli.workingDirectory.appendingPathComponent("plain.\(format)").path])
        #expect(plain.isEmpty, "exiftool: \(plain)")
    }

    @Test func aResolutionOutsideTheRangeIsRefused() throws {
        let cli = try CLI()
        let refused = try cli.run(["save", "--dpi", "50"])
        #expect(refused.status != 0 && refused.stderr.contains("resolution '50' is not a whole number of dpi from 72 to 1200"),
                "\(refused.stderr)")
    }
}
