import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// Moves between the two screens of `collage pick`. Screens ask (their view
/// models publish routes); the coordinator alone carries it out: it creates
/// the photos screen, binds its picks to the collage, and tears it down when
/// it closes. Views never navigate. On the main actor, as its screens are.
@MainActor
public final class AppCoordinator {
    public enum Scene: Equatable, Sendable {
        case collage
        case photos
    }

    /// How the person left: by asking (q, Esc), or by interrupting (Ctrl-C),
    /// which a shell is told of with its status (130), as for any program.
    public enum Quit: Equatable, Sendable {
        case asked
        case interrupted
    }

    public let collage: CollageViewModel
    public let collageScreen: CollageScreenViewModel
    public private(set) var photosScreen: PhotosViewModel?

    /// A photos screen on a folder, over this coordinator's services.
    private let makePhotosScreen: (Photo) -> PhotosViewModel
    private let sceneSubject = CurrentValueSubject<Scene, Never>(.collage)
    private let quitSubject = PassthroughSubject<Quit, Never>()
    private var routeSubscription: AnyCancellable?
    private var photosClosedSubscription: AnyCancellable?
    private var photosDirectory: Photo
    private var liveUpdates: DispatchSourceTimer?

    public var scene: AnyPublisher<Scene, Never> { sceneSubject.removeDuplicates().eraseToAnyPublisher() }
    public var currentScene: Scene { sceneSubject.value }
    /// Fires when the person quits, saying how.
    public var quit: AnyPublisher<Quit, Never> { quitSubject.eraseToAnyPublisher() }
    /// Live subscriptions across every screen (COLLAGE_TRACE_RESOURCES).
    public var resources: Int { collage.resources.count }

    /// Folders are judged on `scanQueue` (tests pass their own queues and
    /// wait on them), their results delivered to the main actor.
    public init(collage: CollageViewModel, browser: DirectoryBrowsing = FileSystemBrowser(),
                previews: PreviewProviding? = nil,
                suggester: PhotoSuggesting? = nil,
                startDirectory: String = FileManager.default.currentDirectoryPath,
                renderOptions: CollageRenderOptions = .defaults,
                scanQueue: DispatchQueue = DispatchQueue(label: "collage.photos.scan", qos: .userInitiated)) {
        self.collage = collage
        makePhotosScreen = { directory in
            PhotosViewModel(directory: directory, collageState: collage.state, collageEvents: collage.events,
                            browser: browser, previews: previews, suggester: suggester, resources: collage.resources,
                            scanQueue: scanQueue)
        }
        photosDirectory = Photo(path: startDirectory)
        collageScreen = CollageScreenViewModel(collage: collage, previews: previews,
                                               workingDirectory: startDirectory, renderOptions: renderOptions)
        routeSubscription = collage.resources.track(collageScreen.routes.sink { [weak self] route in
            switch route {
            case .photos: self?.openPhotos(at: nil)
            case .quit: self?.quitSubject.send(.asked)
            }
        })
    }

    /// Opens the photos screen on `directory` (for `collage pick DIR`).
    public func openPhotos(at directory: Photo?) {
        guard photosScreen == nil else { return }
        if let directory { photosDirectory = directory }
        let screen = makePhotosScreen(photosDirectory)
        collage.bind(picks: screen.selectedPhotos)
        photosClosedSubscription = collage.resources.track(screen.closed.sink { [weak self] in
            self?.photosClosed()
        })
        photosScreen = screen
        sceneSubject.send(.photos)
    }

    /// Re-reads the stored selection every `interval` on the main queue (the
    /// main actor's, where the screens are), so that a photo added, removed
    /// or cleared from another shell, or a photo file that disappears, shows
    /// on the open screens without a key press. Reading is a locked read of
    /// a small file and a stat of at most six photos; nothing is redrawn
    /// unless something changed.
    public func startLiveUpdates(every interval: DispatchTimeInterval = .milliseconds(500)) {
        liveUpdates?.cancel()
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.collage.reload() }
        timer.resume()
        liveUpdates = timer
    }

    /// Isolated: the timer is the main actor's (the last release may come
    /// from elsewhere; the deinit then runs on the main actor).
    isolated deinit { liveUpdates?.cancel() }

    /// Keys go to the screen in front; Ctrl-C quits from anywhere, keeping
    /// what was done, as q does (every pick is already in the selection).
    public func handle(_ key: Key) {
        if key == .control("c") {
            quitSubject.send(.interrupted)
            return
        }
        switch sceneSubject.value {
        case .collage: collageScreen.handle(key)
        case .photos: photosScreen?.handle(key)
        }
    }

    private func photosClosed() {
        if let screen = photosScreen {
            photosDirectory = screen.folder
            // The next save is offered in the folder the person was looking at.
            collageScreen.browsed(folder: screen.folder)
        }
        photosScreen = nil
        photosClosedSubscription = nil
        sceneSubject.send(.collage)
        // Another shell may have changed the selection meanwhile.
        collage.reload()
    }
}
