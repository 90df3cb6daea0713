// Fakes of the services, shared by the unit tests of every layer: one copy
// each (a test target cannot import another test target).
import Dispatch
import Foundation
import CollageImaging
import CollageKit
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// Accepts every photo except those whose name contains "bad"; photos whose
/// name contains "gone" have vanished since they were added, and those
/// whose name contains "locked" may no longer be read.
public struct FakeInspector: PhotoInspecting {
    public init() {}

    public func absence(of photo: Photo) -> PhotoAbsence? {
        if photo.path.contains("gone") { return .missing }
        if photo.path.contains("locked") { return .unreadable(reason: "Permission denied") }
        return nil
    }

    public func inspect(_ photo: Photo) throws -> PhotoInfo {
        if photo.path.contains("bad") {
            throw ImageEngineError(kind: .notImage, message: "\(photo.path): not a JPEG, PNG, HEIF or WebP file")
        }
        return Self.info
    }

    /// A 4 x 3 JPEG, upright.
    public static let info: PhotoInfo = {
        var info = ci_photo_info()
        (info.format, info.width, info.height, info.orientation) = (CI_FORMAT_JPEG, 4, 3, 1)
        (info.display_width, info.display_height) = (4, 3)
        return try! PhotoInfo(info)
    }()
}

/// Renders a tiny image, or fails for photos whose name contains "gone".
public final class FakeRenderer: CollageRendering, Sendable {
    /// One render: its photos and the options it was asked to draw with.
    public struct Render: Sendable {
        public let photos: [Photo]
        public let options: CollageRenderOptions
    }

    private let renders = Locked<[Render]>([])
    /// The photos of every render, in order.
    public var rendered: [[Photo]] { renders.current.map(\.photos) }
    /// The options of every render, in order.
    public var renderedOptions: [CollageRenderOptions] { renders.current.map(\.options) }
    /// Every render with its options, in order.
    public var renderCalls: [Render] { renders.current }

    public init() {}

    public func render(_ photos: [Photo], options: CollageRenderOptions) throws -> RenderedCollage {
        renders.withLock { $0.append(Render(photos: photos, options: options)) }
        if let gone = photos.first(where: { $0.path.contains("gone") }) {
            throw ImageEngineError(kind: .open, message: "\(gone.path): No such file or directory")
        }
        // The real plan for photos of FakeInspector's shape; every cell shows its whole photo.
        let shape = PhotoShape(width: FakeInspector.info.displayWidth, height: FakeInspector.info.displayHeight)
        let plan = try CollageLayout.plan(photos.map { _ in shape }, LayoutRequest(options))
        return RenderedCollage(image: RGBImage(width: 2, height: 2, filledWith: options.background), plan: plan,
                               shown: photos.map { _ in PhotoRegion(x: 0, y: 0, width: 1, height: 1) })
    }
}

/// Records what it was asked to save; fails when `failure` is set. `during`
/// runs while "writing", to simulate another process acting meanwhile.
public final class FakeWriter: PhotoWriting, @unchecked Sendable {
    public var failure: Error?
    public var during: (() -> Void)?
    public private(set) var saved: [URL] = []

    public init() {}

    public func save(_ collage: CollageOutput, to destination: URL, format: ImageFormat, options: SaveOptions,
                     overwrite: Bool) -> Completable {
        during?()
        if let failure { return Fail(error: failure).eraseToAnyPublisher() }
        saved.append(destination)
        return Empty().eraseToAnyPublisher()
    }

    /// Refuses as the real writer does, from the real file system: a file
    /// that exists, without `overwrite`.
    public func refusal(toSave destination: URL, overwrite: Bool) -> Error? {
        !overwrite && FileManager.default.fileExists(atPath: destination.path)
            ? FileWriteError.exists(path: destination.path) : nil
    }

    /// What was sent to standard output, by format.
    public private(set) var sent: [ImageFormat] = []

    public func send(_ collage: CollageOutput, format: ImageFormat, options: SaveOptions) -> Completable {
        during?()
        if let failure { return Fail(error: failure).eraseToAnyPublisher() }
        sent.append(format)
        return Empty().eraseToAnyPublisher()
    }
}

/// A folder tree in memory, keyed by folder path. Names ending in "/" are
/// folders; files whose name ends in .jpg or .png are photos, unless the name
/// contains "fake" (a photo by name only). Paths are UTF-8 text.
public final class FakeBrowser: DirectoryBrowsing, @unchecked Sendable {
    public var tree: [String: [String]]
    public var unreadable: Set<String> = []

    public init(_ tree: [String: [String]]) { self.tree = tree }

    public func list(_ directory: Photo) throws -> DirectoryListing {
        let path = directory.path
        if unreadable.contains(path) {
            throw CollageFailure(.folder, path: path, message: "cannot open \(path): Permission denied")
        }
        guard let names = tree[path] else {
            throw CollageFailure(.folder, path: path, message: "cannot open \(path): No such file or directory")
        }
        let folders = names.filter { $0.hasSuffix("/") }.map { String($0.dropLast()) }
            .map { DirectoryEntry(name: $0, file: directory.appending(Array($0.utf8)), kind: .folder) }
            .sorted { naturalOrder($0.name, $1.name) }
        let files = names.filter { !$0.hasSuffix("/") }.map { directory.appending(Array($0.utf8)) }
        return DirectoryListing(folders: folders, files: files)
    }

    public func classify(_ file: Photo) -> FileClass {
        if (file.path.hasSuffix(".jpg") || file.path.hasSuffix(".png")) && !file.path.contains("fake") { return .photo }
        // A photo by name only ("fake") is not listed here; the real browser's
        // dimming of it is tested with files (FileClassTests).
        return FileClass.unrecognised(name: file.fileName, firstBytes: [], readExtensions: [])
    }
}

/// Previews on the spot: the picture's only line names what it shows.
@MainActor
public final class FakePreviews: PreviewProviding {
    public private(set) var requests: [String] = []
    /// What `cropCentres(of:options:)` answers (as if a collage picture had been drawn).
    public var centres: [PhotoFocus]?
    /// The options of every collage picture asked for.
    public private(set) var collageOptions: [CollageRenderOptions] = []
    /// The options every crop centre was asked for with (the crop keys).
    public private(set) var cropOptions: [CollageRenderOptions] = []

    public init() {}

    public func photoPreview(_ photo: Photo, columns: Int, rows: Int,
                             completion: @escaping @MainActor (Result<TerminalPicture, Error>) -> Void) -> PreviewTicket {
        requests.append(photo.fileName)
        completion(.success(TerminalPicture(kind: .symbols, columns: columns, rows: rows, lines: [photo.fileName])))
        return PreviewTicket()
    }

    public func collagePreview(_ photos: [Photo], options: CollageRenderOptions, columns: Int, rows: Int,
                               completion: @escaping @MainActor (Result<TerminalPicture, Error>) -> Void) -> PreviewTicket {
        collageOptions.append(options)
        completion(.success(TerminalPicture(kind: .symbols, columns: columns, rows: rows,
                                            lines: [photos.map(\.fileName).joined(separator: "+")])))
        return PreviewTicket()
    }

    public func cropCentres(of photos: [Photo], options: CollageRenderOptions) -> [PhotoFocus]? {
        cropOptions.append(options)
        return centres.flatMap { $0.count == photos.count ? $0 : nil }
    }
}

/// What `PreviewService` draws with, without files or pixels: plans as the
/// engine does (the real layout, photos of FakeInspector's shape), draws a
/// canvas of the background, decodes a box of the size asked; records what
/// it was asked. Photos whose name contains "gone" fail, as FakeRenderer's do.
public final class FakeDrawer: PreviewDrawing {
    /// The plans drawn, in order.
    public var drawnPlans: [LayoutPlan] { drawn.current }
    /// The boxes photos were decoded to fit, in order.
    public var decodedBoxes: [String] { decoded.current }

    private let drawn = Locked<[LayoutPlan]>([])
    private let decoded = Locked<[String]>([])

    public init() {}

    public func plan(_ photos: [Photo], options: CollageRenderOptions) throws -> LayoutPlan {
        let shape = PhotoShape(width: FakeInspector.info.displayWidth, height: FakeInspector.info.displayHeight)
        return try CollageLayout.plan(photos.map { _ in shape }, LayoutRequest(options))
    }

    public func draw(_ photos: [Photo], plan: LayoutPlan, options: CollageRenderOptions) throws -> RenderedCollage {
        try Self.fail(photos)
        drawn.withLock { $0.append(plan) }
        return RenderedCollage(image: RGBImage(width: plan.canvas.width, height: plan.canvas.height, filledWith: options.background),
                               plan: plan, shown: photos.map { _ in PhotoRegion(x: 0.5, y: 0, width: 0.5, height: 1) })
    }

    public func picture(of photo: Photo, fitting width: Int, height: Int, background: RGBColor) throws -> RGBImage {
        try Self.fail([photo])
        decoded.withLock { $0.append("\(photo.fileName) \(width)x\(height)") }
        return RGBImage(width: width, height: height, filledWith: background)
    }

    private static func fail(_ photos: [Photo]) throws {
        if let gone = photos.first(where: { $0.path.contains("gone") }) {
            throw ImageEngineError(kind: .open, message: "\(gone.path): No such file or directory")
        }
    }
}

/// Runs a redraw at once, where the app schedules it on the main queue
/// (TerminalApp's `schedule`), so a test sees the frame a key made.
@MainActor
public func immediately(_ work: @escaping @MainActor () -> Void) { work() }

/// Waits, without holding the main actor, until `queue` has run everything
/// asked of it so far, then until the main actor has run what that work
/// delivered to it (`deliverOnMain`): a folder's scan, a suggestion, a save.
@MainActor
public func settle(_ queue: DispatchQueue) async {
    await withCheckedContinuation { done in queue.async { done.resume() } }
    await withCheckedContinuation { done in DispatchQueue.main.async { done.resume() } }
}

/// Collects every value a publisher emits.
public final class Recorder<Value> {
    public private(set) var values: [Value] = []
    private var subscription: AnyCancellable?

    public init<P: Publisher>(_ publisher: P) where P.Output == Value, P.Failure == Never {
        subscription = publisher.sink { [weak self] in self?.values.append($0) }
    }
}

/// A photo in the fake library folder, /photos.
public func photo(_ name: String) -> Photo { Photo(path: "/photos/\(name)") }

/// A collage view model over fakes. Saves run on `workQueue`: a test that
/// passes its own serial queue waits for a save with `workQueue.sync {}`.
public func makeViewModel(
    store: SelectionStore = InMemorySelectionStore(),
    renderer: FakeRenderer = FakeRenderer(),
    writer: FakeWriter = FakeWriter(),
    workQueue: DispatchQueue = .global(qos: .userInitiated)
) throws -> CollageViewModel {
    try CollageViewModel(store: store, inspector: FakeInspector(), renderer: renderer, writer: writer, workQueue: workQueue)
}

/// A new empty folder under the system's temporary folder.
public func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("collage-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The formats the tests save in by name, from the engine's table (the app
/// itself names none: a format is its table's entry).
extension ImageFormat {
    public static let jpeg = try! ImageFormat(extension: "jpg")
    public static let png = try! ImageFormat(extension: "png")
    public static let webp = try! ImageFormat(extension: "webp")
    public static let avif = try! ImageFormat(extension: "avif")
}
