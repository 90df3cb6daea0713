import CollageImaging
import CollageKit
import CollageTestSupport
import Foundation
import Testing

/// `ci_measure_photo` and `ci_count_faces` (measure.c), what `collage
/// suggest` chooses by (issue #33).
@Suite struct MeasureTests {
    static let samples = TestData.packageRoot.appendingPathComponent("SampleImages")

    /// A sample photo drawn to fit `width` x `height`, to make test files from.
    static func sample(_ name: String, fitting width: Int, height: Int) throws -> RGBImage {
        try ImageEngine().picture(of: Photo(path: samples.appendingPathComponent(name).path), fitting: width, height: height)
    }

    static func measure(_ path: String, thumbnail: Bool = true) throws -> ci_measures {
        var options = ci_measure_options()
        options.use_thumbnail = thumbnail ? 1 : 0
        var measures = ci_measures()
        var error = ci_error()
        let status = ci_measure_photo(path, &options, &measures, &error)
        try #require(status == CI_OK, "\(withUnsafeBytes(of: error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })")
        return measures
    }

    /// The three kinds of copy, written by the engine.
    static func copies(of sample: String) throws -> (folder: URL, original: String, blurred: String, darkened: String) {
        let folder = try PNGTestSupport.temporaryFolder()
        let engine = ImageEngine()
        let image = try engine.picture(of: Photo(path: samples.appendingPathComponent(sample).path), fitting: 640, height: 480)
        var dark = image
        dark.pixels = image.pixels.map { UInt8(Double($0) * 0.2) }
        var paths: [String] = []
        for (name, picture) in [("original", image), ("blurred", SuggestPhotos.blurred(image)), ("dark", dark)] {
            let path = folder.appendingPathComponent("\(name).jpg").path
            try Data(try engine.encode(picture, as: .standard, options: SaveOptions(quality: 90))).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        return (folder, paths[0], paths[1], paths[2])
    }

    @Test func aBlurredCopyIsLessSharpADarkOneClippedAndBothNearTheOriginal() throws {
        for sample in ["astronaut-eileen-collins.jpg", "chelsea-the-cat.jpg", "coffee-cup.jpg", "cameraman-grayscale.jpg"] {
            let set = try Self.copies(of: sample)
            defer { try? FileManager.default.removeItem(at: set.folder) }
            let original = try Self.measure(set.original), blurred = try Self.measure(set.blurred),
                dark = try Self.measure(set.darkened)
            #expect(max(original.measured_width, original.measured_height) == 160, "\(sample)")
            #expect(original.from_thumbnail == 0)
            #expect(blurred.sharpness < 0.5 * original.sharpness, "\(sample): \(blurred.sharpness) against \(original.sharpness)")
            #expect(dark.mean_level < 0.15 && dark.mean_level < original.mean_level, "\(sample)")
            #expect(DuplicateGroups.distance(original.hash, blurred.hash) <= DuplicateGroups.maximumDistance, "\(sample)")
            #expect(DuplicateGroups.distance(original.hash, dark.hash) <= DuplicateGroups.maximumDistance, "\(sample)")
        }
    }

    @Test func differentScenesAreFarApart() throws {
        let names = ["astronaut-eileen-collins.jpg", "chelsea-the-cat.jpg", "coffee-cup.jpg", "cameraman-grayscale.jpg",
                     "rocket-exif-orientation-6.jpg"]
        let hashes = try names.map { try Self.measure(Self.samples.appendingPathComponent($0).path).hash }
        for i in hashes.indices {
            for j in hashes.indices where j > i {
                #expect(DuplicateGroups.distance(hashes[i], hashes[j]) > 2 * DuplicateGroups.maximumDistance,
                        "\(names[i]) and \(names[j]): \(DuplicateGroups.distance(hashes[i], hashes[j]))")
            }
        }
    }

    @Test func theOrientationIsApplied() throws {
        // Stored 4:3 landscape, shown upright as portrait (EXIF 6).
        let rocket = try Self.measure(Self.samples.appendingPathComponent("rocket-exif-orientation-6.jpg").path)
        #expect(rocket.measured_height > rocket.measured_width)
        #expect(rocket.info.display_height > rocket.info.display_width)
    }

    @Test func theCamerasThumbnailIsMeasuredWhenItHasThePhotosShape() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let engine = ImageEngine()
        let image = try Self.sample("chelsea-the-cat.jpg", fitting: 640, height: 480)
        let small = try Self.sample("chelsea-the-cat.jpg", fitting: 160, height: 120)
        let full = try engine.encode(image, as: .standard, options: SaveOptions(quality: 90))
        let thumbnail = try engine.encode(small, as: .standard, options: SaveOptions(quality: 80))
        let withThumbnail = folder.appendingPathComponent("thumb.jpg").path
        try Data(EXIFBlock.inserted(EXIFBlock.thumbnail(thumbnail), into: full)).write(to: URL(fileURLWithPath: withThumbnail))
        let measured = try Self.measure(withThumbnail)
        #expect(measured.from_thumbnail == 1)
        #expect(measured.info.display_width == image.width)
        #expect(try Self.measure(withThumbnail, thumbnail: false).from_thumbnail == 0)
        // The thumbnail and the decode see one scene.
        #expect(DuplicateGroups.distance(measured.hash, try Self.measure(withThumbnail, thumbnail: false).hash) <= 6)

        // A letterboxed (square) thumbnail of a 4:3 photo is not used.
        let square = try engine.encode(RGBImage(width: 120, height: 120, filledWith: .white), as: .standard, options: SaveOptions(quality: 80))
        let letterboxed = folder.appendingPathComponent("square.jpg").path
        try Data(EXIFBlock.inserted(EXIFBlock.thumbnail(square), into: full)).write(to: URL(fileURLWithPath: letterboxed))
        #expect(try Self.measure(letterboxed).from_thumbnail == 0)

        // A thumbnail that is no JPEG, or cut short, is passed over.
        for bad in [[UInt8](repeating: 0x41, count: 300), Array(thumbnail.prefix(100))] {
            let path = folder.appendingPathComponent("bad.jpg").path
            try Data(EXIFBlock.inserted(EXIFBlock.thumbnail(bad), into: full)).write(to: URL(fileURLWithPath: path))
            #expect(try Self.measure(path).from_thumbnail == 0)
        }
    }

    /// A HEIF's own thumbnail stands in as a JPEG's EXIF one does, when it
    /// covers the 160 pixels measured: made here by heif-enc (Debian
    /// libheif-examples, which the tests install) from a sample, with a
    /// thumbnail and without one; and a phone's HEIC and a camera's HIF from
    /// the shared test data, which carry theirs. (Any decode takes a HEIF's
    /// thumbnail that covers what it asks for, 160 x 160 here without
    /// `use_thumbnail`; with it, the measure asks for no more than it
    /// measures, so a 160 x 120 thumbnail of a 4:3 photo does too.)
    @Test func aHEIFsThumbnailIsMeasuredWhenItCoversWhatIsMeasured() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 512 x 384 of the cameraman, so that heif-enc's 160 x 120 thumbnail
        // has the photo's shape exactly (the loader takes one within a pixel
        // of it; heif-enc rounds down).
        let engine = ImageEngine()
        let square = try Self.sample("cameraman-grayscale.jpg", fitting: 512, height: 512)
        var wide = RGBImage(width: 512, height: 384, filledWith: .white)
        wide.pixels = Array(square.pixels[(64 * 512 * 3)..<(448 * 512 * 3)])
        let source = folder.appendingPathComponent("source.jpg")
        try Data(try engine.encode(wide, as: .standard, options: SaveOptions(quality: 95))).write(to: source)
        let with = folder.appendingPathComponent("with.heic").path, without = folder.appendingPathComponent("without.heic").path
        for (output, thumbnail) in [(with, ["-t", "160"]), (without, [])] {
            let run = try ToolRun("/usr/bin/heif-enc", ["-q", "80"] + thumbnail + ["-o", output, source.path])
            try #require(run.status == 0, "heif-enc \(thumbnail)")
        }
        let measured = try Self.measure(with), primary = try Self.measure(without)
        #expect(measured.from_thumbnail == 1)
        #expect(measured.info.display_width == 512 && measured.info.display_height == 384)
        #expect(measured.measured_width == 160 && measured.measured_height == 120)
        #expect(try Self.measure(with, thumbnail: false).from_thumbnail == 0)
        #expect(primary.from_thumbnail == 0)
        // The thumbnail and the decode see one scene.
        #expect(DuplicateGroups.distance(measured.hash, primary.hash) <= 6, "\(DuplicateGroups.distance(measured.hash, primary.hash))")

        guard let heif = TestData.folder("heif/pillow-heif") else { return TestData.reportAbsent("heif/pillow-heif") }
        // arrow.heic: 3024 x 4032 with a 240 x 320 thumbnail; cat.hif:
        // 4240 x 2832 with 1616 x 1080 and 320 x 212 ones.
        for name in ["arrow.heic", "cat.hif"] {
            let phone = try Self.measure(heif.appendingPathComponent(name).path)
            #expect(phone.from_thumbnail == 1, "\(name)")
            #expect(max(phone.measured_width, phone.measured_height) == 160, "\(name)")
        }
    }

    @Test func notAPhotoIsRefusedByName() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("notes.txt").path
        try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
        var options = ci_measure_options()
        var measures = ci_measures()
        var error = ci_error()
        #expect(ci_measure_photo(path, &options, &measures, &error) == CI_ERR_NOT_IMAGE)
        #expect(ci_measure_photo(nil, &options, &measures, &error) == CI_ERR_INVALID_ARGUMENT)
    }

    @Test func facesAreCountedWithTheSmartCropsSearch() throws {
        var error = ci_error()
        var faces: Int32 = -1
        #expect(ci_count_faces(Self.samples.appendingPathComponent("astronaut-eileen-collins.jpg").path, nil, &faces, &error) == CI_OK)
        #expect(faces >= 1)
        #expect(ci_count_faces(Self.samples.appendingPathComponent("coffee-cup.jpg").path, nil, &faces, &error) == CI_OK)
        #expect(faces == 0)
    }
}

/// The gradient hash (issue #41): an exposure bracket of one scene keeps it
/// where the DCT hash loses a dozen bits or more; other scenes stay far.
@Suite struct GradientHashTests {
    @Test func aBracketKeepsTheGradientHashAndOtherScenesStayFar() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var brackets = SuggestPhotos.brackets
        // Each sample at each of 1 and 2 EV darker and brighter.
        brackets = brackets.flatMap { b in [-2.0, -1, 1, 2].map { SuggestPhotos.Bracket(sample: b.sample, stops: $0, date: b.date, seconds: 1) } }
        var measured: [(String, ci_measures, ci_measures)] = []
        for (k, bracket) in brackets.enumerated() {
            let sub = folder.appendingPathComponent("\(k)")
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            try SuggestPhotos.makeBrackets(in: sub, samples: MeasureTests.samples, brackets: [bracket])
            let pair = bracket.pair.map { sub.appendingPathComponent($0).path }
            measured.append(("\(bracket.name) \(bracket.stops) EV", try MeasureTests.measure(pair[0]), try MeasureTests.measure(pair[1])))
        }
        var notes: [String] = []
        for (name, a, b) in measured {
            let dct = DuplicateGroups.distance(a.hash, b.hash), gradient = DuplicateGroups.distance(a.gradient_hash, b.gradient_hash)
            notes.append("\(name): dct \(dct), gradient \(gradient)")
            #expect(gradient <= DuplicateGroups.maximumGradientDistance, "\(name): dct \(dct), gradient \(gradient)")
        }
        // Different scenes: far in both hashes, whatever their exposure.
        var nearest = 64
        for (i, x) in measured.enumerated() {
            for (j, y) in measured.enumerated() where j > i && x.0.prefix(while: { $0 != " " }) != y.0.prefix(while: { $0 != " " }) {
                for (p, q) in [(x.1, y.1), (x.1, y.2), (x.2, y.1), (x.2, y.2)] {
                    nearest = min(nearest, DuplicateGroups.distance(p.gradient_hash, q.gradient_hash))
                    #expect(DuplicateGroups.distance(p.gradient_hash, q.gradient_hash) > DuplicateGroups.maximumGradientDistance + 4, "\(x.0) and \(y.0)")
                }
            }
        }
        print("gradient hash: " + notes.joined(separator: "; ") + "; nearest other scene: \(nearest) bits")
    }
}

/// A photo's capture date (issue #41): EXIF DateTimeOriginal, else
/// DateTimeDigitized, else DateTime, else the GPS's UTC date and time; none
/// when the file says none. In EXIF blocks written here by hand into a JPEG
/// the engine made without one.
@Suite struct CaptureDateTests {
    struct Entry {
        let tag: UInt16, type: UInt16, count: UInt32, bytes: [UInt8]
        static func ascii(_ tag: UInt16, _ text: String) -> Entry {
            let bytes = Array(text.utf8) + [0]
            return Entry(tag: tag, type: 2, count: UInt32(bytes.count), bytes: bytes)
        }
        static func rationals(_ tag: UInt16, _ values: [UInt32]) -> Entry {
            Entry(tag: tag, type: 5, count: UInt32(values.count), bytes: values.flatMap { le($0) + le(UInt32(1)) })
        }
        static func long(_ tag: UInt16, _ value: UInt32) -> Entry { Entry(tag: tag, type: 4, count: 1, bytes: le(value)) }
    }

    static func le(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
    static func le(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }

    /// A little-endian TIFF structure: IFD0, and the EXIF and GPS IFDs
    /// when they hold anything, each followed by its values.
    static func tiff(ifd0: [Entry], exif: [Entry] = [], gps: [Entry] = []) -> [UInt8] {
        var first = ifd0
        if !exif.isEmpty { first.append(.long(0x8769, 0)) }
        if !gps.isEmpty { first.append(.long(0x8825, 0)) }
        var ifds = [first] + [exif, gps].filter { !$0.isEmpty }
        func size(_ ifd: [Entry]) -> Int { 6 + 12 * ifd.count + ifd.reduce(0) { $0 + ($1.bytes.count > 4 ? ($1.bytes.count + 1) & ~1 : 0) } }
        var offsets = [8]
        for ifd in ifds.dropLast() { offsets.append(offsets.last! + size(ifd)) }
        var k = 1
        for (i, entry) in ifds[0].enumerated() where entry.tag == 0x8769 || entry.tag == 0x8825 {
            ifds[0][i] = .long(entry.tag, UInt32(offsets[k]))
            k += 1
        }
        var out: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le(UInt32(8))
        for (n, ifd) in ifds.enumerated() {
            let sorted = ifd.sorted { $0.tag < $1.tag }
            var data: [UInt8] = []
            let dataStart = offsets[n] + 6 + 12 * sorted.count
            out += le(UInt16(sorted.count))
            for entry in sorted {
                out += le(entry.tag) + le(entry.type) + le(entry.count)
                if entry.bytes.count <= 4 {
                    out += entry.bytes + Array(repeating: 0, count: 4 - entry.bytes.count)
                } else {
                    out += le(UInt32(dataStart + data.count))
                    data += entry.bytes + (entry.bytes.count % 2 == 1 ? [0] : [])
                }
            }
            out += le(UInt32(0)) + data
        }
        return out
    }

    /// The date the engine reads from a JPEG carrying `tiff` as its EXIF.
    static func date(_ tiff: [UInt8], in folder: URL) throws -> String? {
        let engine = ImageEngine()
        let picture = try MeasureTests.sample("coffee-cup.jpg", fitting: 64, height: 64)
        let jpeg = try engine.encode(picture, as: .standard, options: .defaults)
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        let app1: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        let file = folder.appendingPathComponent("dated.jpg")
        try Data(Array(jpeg.prefix(2)) + app1 + Array(jpeg.dropFirst(2))).write(to: file)
        return try engine.inspect(Photo(path: file.path)).dateTaken
    }

    @Test func eachDateTagInTurnAndNoneIsNone() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = Entry.ascii(0x9003, "2022:05:06 07:08:09"), digitized = Entry.ascii(0x9004, "2021:03:04 05:06:07")
        let digitizedOffset = Entry.ascii(0x9012, "+05:30"), dateTime = Entry.ascii(0x0132, "2020:01:02 03:04:05")
        let blank = Entry.ascii(0x9003, "    :  :     :  :  ")
        let gps = [Entry.ascii(0x001D, "2019:12:31"), .rationals(0x0007, [23, 59, 30])]
        let cases: [(String, [UInt8], String?)] = [
            ("original first", Self.tiff(ifd0: [dateTime], exif: [original, digitized], gps: gps), "2022:05:06 07:08:09"),
            ("digitized, with its offset", Self.tiff(ifd0: [dateTime], exif: [digitized, digitizedOffset], gps: gps),
             "2021:03:04 05:06:07+05:30"),
            ("DateTime", Self.tiff(ifd0: [dateTime], gps: gps), "2020:01:02 03:04:05"),
            ("a blank original is none", Self.tiff(ifd0: [dateTime], exif: [blank]), "2020:01:02 03:04:05"),
            ("GPS, in UTC", Self.tiff(ifd0: [], exif: [blank], gps: gps), "2019:12:31 23:59:30+00:00"),
            ("none", Self.tiff(ifd0: [Entry.ascii(0x010F, "Camera maker")]), nil),
        ]
        for (name, tiff, expected) in cases {
            #expect(try Self.date(tiff, in: folder) == expected, "\(name)")
        }
    }

    /// PNG (eXIf), WebP and AVIF carry EXIF too: the date the engine
    /// writes into each is the date it reads back.
    @Test func otherFormatsEXIFDatesAreRead() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let engine = ImageEngine()
        var picture = try MeasureTests.sample("coffee-cup.jpg", fitting: 64, height: 64)
        picture.dateTaken = "2024:02:29 12:34:56"
        for ext in ["png", "webp", "avif"] {
            guard let format = ImageFormat.writable.first(where: { $0.extensions.contains(ext) }) else {
                Issue.record("no writer for \(ext)")
                continue
            }
            let file = folder.appendingPathComponent("dated.\(ext)")
            try Data(try engine.encode(picture, as: format, options: .defaults)).write(to: file)
            #expect(try engine.inspect(Photo(path: file.path)).dateTaken?.hasPrefix("2024:02:29 12:34:56") == true, "\(ext)")
        }
    }
}
