import CollageImaging
import CollageKit
import CollageTestSupport
import Foundation
import Testing

/// `ci_measure_photo` and `ci_count_faces` (measure.c), what `collage
/// suggest` chooses by (issue #33).
@Suite struct MeasureTests {
    static let samples = TestData.packageRoot.appendingPathComponent("SampleImages")

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
        let image = try engine.picture(of: Photo(path: Self.samples.appendingPathComponent("chelsea-the-cat.jpg").path),
                                       fitting: 640, height: 480)
        let small = try engine.picture(of: Photo(path: Self.samples.appendingPathComponent("chelsea-the-cat.jpg").path),
                                       fitting: 160, height: 120)
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
