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
