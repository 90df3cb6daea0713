import Foundation
import Testing
import CollageTestSupport
@testable import CollageKit

/// CollageKit's errors say what went wrong in values and plain words; the
/// views word them for their interface (the command line names its options,
/// Sources/collage/Commands/Support.swift). A kit error that named an option
/// sent `pick`, which has no `--max-pixels`, to one.
@Suite struct ErrorWordingTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every line of code (comments left out) in Sources/CollageKit with a
    /// word that begins like an option (`"--size"`, `" --force"`), by file.
    static func optionWords() throws -> [String] {
        let kit = packageRoot.appendingPathComponent("Sources/CollageKit")
        let files = FileManager.default.enumerator(at: kit, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        #expect(files.count > 20, "the kit's sources are found: \(files.count)")
        let option = try Regex(#"(^|[\s"'(\[])--[A-Za-z]"#)
        var found: [String] = []
        for file in files {
            for (number, line) in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces).hasPrefix("//") ? "" : line
                if code.contains(option) { found.append("\(file.lastPathComponent):\(number + 1): \(line)") }
            }
        }
        return found
    }

    @Test func noKitSourceWritesAnOptionName() throws {
        let found = try Self.optionWords()
        #expect(found.isEmpty, "option names belong to the command line:\n\(found.joined(separator: "\n"))")
    }

    /// The guard can fail: it finds an option word where there is one.
    @Test func theGuardFindsAnOptionName() throws {
        let option = try Regex(#"(^|[\s"'(\[])--[A-Za-z]"#)
        #expect("throw ValueError(\"--size is wrong\")".contains(option))
        #expect("\"give WIDTHxHEIGHT or --clear\"".contains(option))
        #expect(!"a -- b, x--y, \"-1\"".contains(option))
    }

    /// The photos screen of `pick` adds a photo over the limit: it says
    /// the photo, its size and the limit, and names no option; the failure
    /// carries the pixels a limit must allow, for the command line's advice.
    @MainActor @Test func aPhotoOverTheLimitIsToldWithoutAnOption() async throws {
        let samples = Self.packageRoot.appendingPathComponent("SampleImages").path
        let engine = ImageEngine(maxDecodedPixels: 1000)
        let collage = try CollageViewModel(store: InMemorySelectionStore(), inspector: engine, renderer: engine,
                                           writer: FakeWriter())
        let (screen, _) = await makePhotosScreen(FakeBrowser([samples: ["chelsea-the-cat.jpg"]]), at: samples, collage: collage)
        screen.handle(.end)
        screen.handle(.enter)
        let message = try #require(screen.currentState.message)
        #expect(message.hasPrefix("\(samples)/chelsea-the-cat.jpg: ") && message.contains("over the limit of 1000 pixels"), "\(message)")
        #expect(!message.contains("--"), "\(message)")
        #expect(collage.currentState.count == 0)
        let refusal = #expect(throws: ImageEngineError.self) { try engine.admit(Photo(path: "\(samples)/chelsea-the-cat.jpg")) }
        let failure = CollageFailure(try #require(refusal))
        #expect(failure.kind == .photo(.tooLarge) && failure.message == message)
        // `add` (the screen's, the command's) refuses it with those values.
        let cat = Photo(path: "\(samples)/chelsea-the-cat.jpg")
        #expect(collage.add([cat]) == .refused(.unreadablePhoto(path: cat.path, reason: message, pixelsNeeded: 57 * 38)))
        // The cat is 451 x 300: 1/8 scale is 57 x 38 pixels. Unwrapped first:
        // `#expect` on a `UInt64?` against a literal made libswiftCore's
        // AnyHashable conversion read 9 bytes from an 8-byte slot under ASan
        // (make test-sanitized stopped there; docs/reliability.md).
        #expect(try #require(failure.pixelsNeeded) == 57 * 38)
    }

    /// `suggest` measures a photo as `add` would admit it: one over the
    /// limit is refused with the same words, even where its thumbnail could
    /// be measured (a 200-megapixel phone HEIF was suggested, then failed the
    /// book it was chosen for). Here a 480x480 HEIC with a 240-pixel thumbnail
    /// (heif-enc), over a limit of 100,000 pixels.
    @Test func aPhotoOverTheLimitIsNotMeasuredFromItsThumbnail() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let heic = folder.appendingPathComponent("thumbnailed.heic")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/heif-enc")
        process.arguments = ["-q", "80", "-t", "240", "-o", heic.path,
                             Self.packageRoot.appendingPathComponent("SampleImages/retina-round-alpha.png").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "heif-enc (libheif-examples) failed")
        let photo = Photo(path: heic.path)
        #expect(try ImageEngine().measure(photo).fromThumbnail, "measured from its thumbnail")
        let engine = ImageEngine(maxDecodedPixels: 100_000)
        let refusal = #expect(throws: ImageEngineError.self) { try engine.measure(photo) }
        let admission = #expect(throws: ImageEngineError.self) { try engine.admit(photo) }
        #expect(refusal?.kind == .tooLarge && refusal?.message == admission?.message, "\(String(describing: refusal))")
    }

    /// The collage screen words a size only `rows` can draw without `--size`.
    @Test func theCollageScreenWordsAnOpenSideWithoutAnOption() throws {
        let open = try #require(RequestedSize(width: 1920, height: nil).openSide(for: .grid))
        #expect(open.capableLayout == .rows && open.side == .height)
        #expect("\(open)" == "the grid layout cannot draw the size 1920x: it leaves the height to the photos, which only rows does")
    }
}
