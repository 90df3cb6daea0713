import Foundation
@testable import CollageKit
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// Accepts every photo except those whose name contains "bad".
struct FakeInspector: PhotoInspecting {
    func inspect(_ photo: Photo) throws -> PhotoInfo {
        if photo.path.contains("bad") {
            throw ImageEngineError(kind: .notImage, message: "\(photo.path): not a JPEG or PNG file")
        }
        return PhotoInfo(format: .jpeg, width: 4, height: 3, orientation: 1, displayWidth: 4, displayHeight: 3, hasAlpha: false)
    }
}

/// Renders a tiny image, or fails for photos whose name contains "gone".
final class FakeRenderer: CollageRendering, Sendable {
    private let renders = Locked<[[Photo]]>([])
    var rendered: [[Photo]] { renders.current }

    func render(_ photos: [Photo], options: CollageRenderOptions) throws -> RGBImage {
        renders.withLock { $0.append(photos) }
        if let gone = photos.first(where: { $0.path.contains("gone") }) {
            throw ImageEngineError(kind: .open, message: "\(gone.path): No such file or directory")
        }
        return RGBImage(width: 2, height: 2, filledWith: options.background)
    }
}

/// Records what it was asked to save; fails when `failure` is set. `during`
/// runs while "writing", to simulate another process acting meanwhile.
final class FakeWriter: PhotoWriting, @unchecked Sendable {
    var failure: Error?
    var during: (() -> Void)?
    private(set) var saved: [URL] = []

    func save(_ image: RGBImage, to destination: URL, format: ImageFormat, quality: Int, overwrite: Bool) -> Completable {
        during?()
        if let failure { return Fail(error: failure).eraseToAnyPublisher() }
        saved.append(destination)
        return Empty().eraseToAnyPublisher()
    }
}

/// Collects every value a publisher emits.
final class Recorder<Value> {
    private(set) var values: [Value] = []
    private var subscription: AnyCancellable?

    init<P: Publisher>(_ publisher: P) where P.Output == Value, P.Failure == Never {
        subscription = publisher.sink { [weak self] in self?.values.append($0) }
    }
}

func photo(_ name: String) -> Photo { Photo(path: "/photos/\(name)") }

func makeViewModel(
    store: SelectionStore = InMemorySelectionStore(),
    renderer: FakeRenderer = FakeRenderer(),
    writer: FakeWriter = FakeWriter()
) throws -> CollageViewModel {
    try CollageViewModel(store: store, inspector: FakeInspector(), renderer: renderer, writer: writer)
}

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("collage-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
