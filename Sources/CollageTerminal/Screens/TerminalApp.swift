import CollageKit
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// The view of `collage pick`: binds the coordinator's screens to a terminal.
/// It forwards keys, tells the view models how much room they have, and
/// redraws whichever screen is in front when its state changes. It holds no
/// rule and decides no navigation. On the main actor, with the screens and
/// the terminal.
@MainActor
public final class TerminalApp {
    private let terminal: TerminalDevice
    private let coordinator: AppCoordinator
    private let frame: (ScreenBuffer) -> String
    private let invalidate: () -> Void
    private let closing: () -> String
    private let traceResources: Bool
    private let schedule: @MainActor (@escaping @MainActor () -> Void) -> Void
    private var subscriptions: [AnyCancellable] = []
    private var photosSubscription: AnyCancellable?
    private var redrawPending = false
    private var finished = false
    private var onQuit: (AppCoordinator.Quit) -> Void = { _ in }

    /// - Parameters:
    ///   - frame: turns a screen into what the terminal is sent (ANSIScreenWriter).
    ///   - invalidate: forget what the terminal shows (after a resize the
    ///     writer must send everything, pictures included, again).
    ///   - closing: what to send before giving the terminal back (e.g. kitty's
    ///     "delete images").
    ///   - traceResources: show "resources: N" (COLLAGE_TRACE_RESOURCES=1).
    ///   - schedule: where coalesced redraws run (the main queue; at once in tests).
    public init(terminal: TerminalDevice, coordinator: AppCoordinator, frame: @escaping (ScreenBuffer) -> String,
                invalidate: @escaping () -> Void = {}, closing: @escaping () -> String = { "" },
                traceResources: Bool = false,
                schedule: @escaping @MainActor (@escaping @MainActor () -> Void) -> Void = deliverOnMain) {
        self.terminal = terminal
        self.coordinator = coordinator
        self.frame = frame
        self.invalidate = invalidate
        self.closing = closing
        self.traceResources = traceResources
        self.schedule = schedule
    }

    /// Takes over the terminal and shows the collage screen, or the photos
    /// screen on `directory`. `onQuit` runs after the terminal is restored,
    /// told how the person quit.
    public func start(photosAt directory: Photo? = nil, onQuit: @escaping (AppCoordinator.Quit) -> Void = { _ in }) throws {
        self.onQuit = onQuit
        let resources = coordinator.collage.resources
        subscriptions.append(resources.track(coordinator.collageScreen.state.sink { [weak self] _ in self?.setNeedsRedraw() }))
        subscriptions.append(resources.track(coordinator.scene.sink { [weak self] scene in self?.sceneChanged(scene) }))
        subscriptions.append(resources.track(coordinator.quit.sink { [weak self] in self?.stop($0) }))
        do {
            try terminal.start(
                onKeys: { [weak self] keys in keys.forEach { self?.coordinator.handle($0) } },
                onResize: { [weak self] _ in
                    self?.invalidate()
                    self?.layoutChanged()
                    self?.redraw()
                })
        } catch {
            terminal.restore()
            throw error
        }
        layoutChanged()
        if let directory { coordinator.openPhotos(at: directory) }
        redraw()
    }

    /// Gives the terminal back and reports that the app is done.
    public func stop(_ quit: AppCoordinator.Quit = .asked) {
        guard !finished else { return }
        finished = true
        subscriptions.forEach { $0.cancel() }
        subscriptions.removeAll()
        photosSubscription = nil
        let last = closing()
        if !last.isEmpty { terminal.write(last) }
        terminal.restore()
        onQuit(quit)
    }

    private func sceneChanged(_ scene: AppCoordinator.Scene) {
        photosSubscription = nil
        if scene == .photos, let photos = coordinator.photosScreen {
            photosSubscription = coordinator.collage.resources.track(photos.state.sink { [weak self] _ in
                self?.setNeedsRedraw()
            })
        }
        layoutChanged()
        setNeedsRedraw()
    }

    /// Tells the screens how many cells their list and pictures have.
    private func layoutChanged() {
        let size = terminal.size
        let picture = CollageScreenView.pictureSize(columns: size.columns, rows: size.rows)
        coordinator.collageScreen.setPreviewSize(columns: picture.columns, rows: picture.rows)
        if let photos = coordinator.photosScreen {
            let geometry = PhotosScreenView.geometry(columns: size.columns, rows: size.rows)
            photos.setPageSize(geometry.listRows)
            photos.setPreviewSize(columns: geometry.preview.columns, rows: geometry.preview.rows)
        }
    }

    /// Several changes from one key press make one frame.
    private func setNeedsRedraw() {
        guard !redrawPending, !finished else { return }
        redrawPending = true
        schedule { [weak self] in
            self?.redrawPending = false
            self?.redraw()
        }
    }

    /// The current frame, as text: for tests and for `redraw`.
    public func currentScreen() -> ScreenBuffer {
        let size = terminal.size
        let resources = traceResources ? coordinator.resources : nil
        switch coordinator.currentScene {
        case .collage:
            return CollageScreenView.render(coordinator.collageScreen.currentState, columns: size.columns,
                                            rows: size.rows, resources: resources)
        case .photos:
            guard let photos = coordinator.photosScreen else { return ScreenBuffer(columns: size.columns, rows: size.rows) }
            return PhotosScreenView.render(photos.currentState, columns: size.columns, rows: size.rows, resources: resources)
        }
    }

    private func redraw() {
        guard !finished else { return }
        terminal.write(frame(currentScreen()))
    }
}
