import Dispatch
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// What a preview pane shows.
public enum PreviewState: Equatable, Sendable {
    case none
    case loading
    case picture(TerminalPicture)
    case failed(String)

    /// What a finished preview shows: the picture, or why there is none.
    init(_ result: Result<TerminalPicture, Error>) {
        switch result {
        case let .success(picture): self = .picture(picture)
        case let .failure(error): self = .failed("\(error)")
        }
    }
}

/// Everything the photos screen shows.
public struct PhotosScreenState: Equatable, Sendable {
    /// The collage's title, kept visible while picking.
    public var collageTitle = CollageRules.title(count: 0)
    public var canAdd = true
    /// How many times each photo is in the collage (marked in the list).
    public var inCollage: [Photo: Int] = [:]
    /// The folder shown, as text (U+FFFD for bytes that are not UTF-8).
    public var directory: String
    /// Folders first, then photos, each in natural order, after the filter
    /// and the hidden-files setting.
    public var entries: [DirectoryEntry] = []
    public var highlighted: Int?
    /// The filter being typed; nil when no filter is active.
    public var filter: String?
    public var showHidden = false
    /// Files are still being judged by content.
    public var isScanning = false
    public var message: String?
    public var preview: PreviewState = .none
    /// The photos `S` suggested (`collage suggest` on this folder), marked
    /// until the next key: Enter adds them, any other key leaves them.
    public var suggested: [Photo] = []

    public var highlightedEntry: DirectoryEntry? { highlighted.map { entries[$0] } }
}

/// The photos screen (the original app's photo library), over a folder.
///
/// It exposes the photos the person picks as `selectedPhotos`, fed by a
/// private subject, and completes that stream when the screen closes, which
/// ends every subscription to it. Whether a pick is accepted is the collage
/// view model's decision; this screen only shows what it said.
///
/// On the main actor, with the keys and the drawing: folders are judged and
/// photos suggested on `scanQueue`, and what they find is delivered back
/// (`deliverOnMain`).
@MainActor
public final class PhotosViewModel {
    private let browser: DirectoryBrowsing
    private let previews: PreviewProviding?
    private let suggester: PhotoSuggesting?
    private let scanQueue: DispatchQueue
    private let picks = PassthroughSubject<[Photo], Never>()
    private let stateSubject: CurrentValueSubject<PhotosScreenState, Never>
    private let closedSubject = PassthroughSubject<Void, Never>()
    private var subscriptions: [AnyCancellable] = []

    private var folders: [DirectoryEntry] = []
    private var photos: [DirectoryEntry] = []
    private var scanGeneration = 0
    private var previewTicket: PreviewTicket?
    private var previewFile: Photo?
    private var previewSize = (columns: 0, rows: 0)
    private var pageSize = 10
    private(set) public var isClosed = false
    /// The folder shown, by its exact bytes.
    private(set) public var folder: Photo

    /// The photos picked, one pick at a time. Completes when the screen closes.
    public var selectedPhotos: AnyPublisher<[Photo], Never> { picks.eraseToAnyPublisher() }
    public var state: AnyPublisher<PhotosScreenState, Never> { stateSubject.removeDuplicates().eraseToAnyPublisher() }
    public var currentState: PhotosScreenState { stateSubject.value }
    /// Fires once, when the person leaves the screen.
    public var closed: AnyPublisher<Void, Never> { closedSubject.eraseToAnyPublisher() }

    public init(directory: Photo,
                collageState: AnyPublisher<CollageState, Never>,
                collageEvents: AnyPublisher<CollageEvent, Never>,
                browser: DirectoryBrowsing = FileSystemBrowser(),
                previews: PreviewProviding? = nil,
                suggester: PhotoSuggesting? = nil,
                resources: ResourceCounter = ResourceCounter(),
                scanQueue: DispatchQueue = DispatchQueue(label: "collage.photos.scan", qos: .userInitiated)) {
        self.browser = browser
        self.previews = previews
        self.suggester = suggester
        self.scanQueue = scanQueue
        folder = directory
        stateSubject = CurrentValueSubject(PhotosScreenState(directory: directory.path))
        subscriptions.append(resources.track(collageState.sink { [weak self] collage in
            self?.update {
                $0.collageTitle = collage.title
                $0.canAdd = collage.canAdd
                // By file: a photo in the collage may carry a focus; the file is the same.
                $0.inCollage = collage.photos.reduce(into: [:]) { $0[$1.focused(nil), default: 0] += 1 }
            }
        }))
        subscriptions.append(resources.track(collageEvents.sink { [weak self] event in
            self?.show(event)
        }))
        open(directory, highlighting: nil)
    }

    // MARK: Inputs

    /// How many list rows the view shows (PgUp/PgDn move by that much).
    public func setPageSize(_ rows: Int) { pageSize = max(1, rows) }

    /// The preview pane's size in character cells.
    public func setPreviewSize(columns: Int, rows: Int) {
        guard previewSize != (columns, rows) else { return }
        previewSize = (columns, rows)
        previewFile = nil
        updatePreview()
    }

    public func handle(_ key: Key) {
        guard !isClosed else { return }
        // A message stays until the next key: this one.
        if currentState.message != nil { update { $0.message = nil } }
        // Suggestions are marked until this key: Enter adds them, as one
        // pick (the collage's rules decide); any other key only unmarks.
        let suggested = currentState.suggested
        if !suggested.isEmpty {
            update { $0.suggested = [] }
            if key == .enter { picks.send(suggested) }
            return
        }
        if currentState.filter != nil {
            handleWhileFiltering(key)
        } else {
            handleBrowsing(key)
        }
    }

    /// Leaves the screen: completes `selectedPhotos`, stops every scan and
    /// preview, and ends this screen's subscriptions.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        scanGeneration += 1
        previewTicket?.cancel()
        previewTicket = nil
        picks.send(completion: .finished)
        subscriptions.forEach { $0.cancel() }
        subscriptions.removeAll()
        closedSubject.send(())
        closedSubject.send(completion: .finished)
    }

    // MARK: Keys

    private func handleBrowsing(_ key: Key) {
        switch key {
        case .character("k"): move(by: -1)
        case .character("j"): move(by: 1)
        case .character(" "): addHighlightedPhoto()
        case .backspace: openParent()
        case .character("/"): update { $0.filter = ""; $0.message = nil }
        case .character("."):
            update { $0.showHidden.toggle() }
            refresh()
        case .character("q"), .escape: close()
        case .character("S"): suggestHere()
        default: navigate(key)
        }
    }

    private func handleWhileFiltering(_ key: Key) {
        switch key {
        case let .character(character):
            update { $0.filter?.append(character) }
            refresh()
        case .backspace:
            if currentState.filter?.isEmpty == true {
                update { $0.filter = nil }
            } else {
                update { _ = $0.filter?.popLast() }
            }
            refresh()
        case .control("u"):
            update { $0.filter = "" }
            refresh()
        case .escape:
            update { $0.filter = nil }
            refresh()
        default: navigate(key)
        }
    }

    /// The keys that move and open the same way whether or not a filter is
    /// being typed.
    private func navigate(_ key: Key) {
        switch key {
        case .up: move(by: -1)
        case .down: move(by: 1)
        case .pageUp: move(by: -pageSize)
        case .pageDown: move(by: pageSize)
        case .home: move(to: 0)
        case .end: move(to: currentState.entries.count - 1)
        case .enter: activate(addingPhotos: true)
        case .right: activate(addingPhotos: false)
        case .left: openParent()
        default: break
        }
    }

    private func move(by delta: Int) {
        guard let current = currentState.highlighted else { return move(to: 0) }
        move(to: current + delta)
    }

    private func move(to index: Int) {
        let count = currentState.entries.count
        guard count > 0 else { return }
        update { $0.highlighted = min(max(0, index), count - 1) }
        updatePreview()
    }

    private func activate(addingPhotos: Bool) {
        guard let entry = currentState.highlightedEntry else { return }
        switch entry.kind {
        case .folder: open(entry.file, highlighting: nil)
        case .photo: if addingPhotos { addHighlightedPhoto() }
        case .unreadable: update { $0.message = "\(entry.name): \(entry.reason ?? "not a photo collage reads")" }
        }
    }

    private func addHighlightedPhoto() {
        guard let entry = currentState.highlightedEntry, entry.kind == .photo else { return }
        // A photo whose preview could not be decoded would fail the save:
        // refuse it now, with the decoder's reason.
        if previewFile == entry.file, case let .failed(reason) = currentState.preview {
            update { $0.message = reason }
            return
        }
        picks.send([entry.file])
    }

    /// `S`: the best photos of the folder shown to fill the collage's free
    /// places (never one in it already), chosen off the interface thread
    /// (measured through the cache), then marked.
    private func suggestHere() {
        guard let suggester else { return }
        let inCollage = currentState.inCollage
        let alreadyIn = inCollage.flatMap { Array(repeating: $0.key, count: $0.value) }
        update { $0.message = "Choosing the best photos of this folder…" }
        let generation = scanGeneration, folder = self.folder
        scanQueue.async { [weak self] in
            let result = Result { try suggester.suggest(in: folder, alreadyIn: alreadyIn) }
            deliverOnMain {
                guard let self, !self.isClosed, self.scanGeneration == generation else { return }
                switch result {
                case let .success(photos):
                    self.update {
                        $0.suggested = photos
                        $0.message = alreadyIn.isEmpty
                            ? "Suggested \(Self.photos(photos.count)) (★): Enter adds them, any other key leaves them"
                            : "Suggested \(Self.photos(photos.count)) (★) to add to the \(alreadyIn.count) in the collage, "
                                + "making \(photos.count + alreadyIn.count): Enter adds them, any other key leaves them"
                    }
                case let .failure(error):
                    self.update { $0.message = "\(error)" }
                }
            }
        }
    }

    private static func photos(_ count: Int) -> String { count == 1 ? "1 photo" : "\(count) photos" }

    private func openParent() {
        let parent = folder.parent
        guard parent != folder else { return }
        open(parent, highlighting: folder)
    }

    // MARK: Folders

    /// Reads `directory` now (a readdir is quick even for 10,000 entries),
    /// then judges its files by content in the background, in chunks, so the
    /// list fills in while the person can already move and type. If the
    /// folder cannot be read, the screen stays where it was and says why.
    private func open(_ directory: Photo, highlighting file: Photo?) {
        let listing: DirectoryListing
        do {
            listing = try browser.list(directory)
        } catch {
            update { $0.message = "\(error)" }
            return
        }
        scanGeneration += 1
        let generation = scanGeneration
        folders = listing.folders
        photos = []
        folder = directory
        update {
            $0.directory = directory.path
            $0.filter = nil
            $0.message = nil
            $0.highlighted = nil
            $0.isScanning = !listing.files.isEmpty
        }
        refresh(highlighting: file)

        guard !listing.files.isEmpty else { return }
        let browser = self.browser
        scanQueue.async { [weak self] in
            // Each name worked out once, not in every comparison of the sort.
            let files = listing.files.map { (name: $0.fileName, file: $0) }
                .sorted { naturalOrder($0.name, $1.name) }
            var start = 0
            while start < files.count {
                let end = min(files.count, start + 256)
                let found = files[start..<end].compactMap { item -> DirectoryEntry? in
                    switch browser.classify(item.file) {
                    case .photo: DirectoryEntry(name: item.name, file: item.file, kind: .photo)
                    case let .unreadable(reason): DirectoryEntry(name: item.name, file: item.file, kind: .unreadable, reason: reason)
                    case .other: nil
                    }
                }
                let last = end == files.count
                // Written on the main actor, read here once it is done.
                let stillWanted = Locked(true)
                let group = DispatchGroup()
                group.enter()
                deliverOnMain {
                    defer { group.leave() }
                    guard let self, self.scanGeneration == generation else {
                        stillWanted.withLock { $0 = false }
                        return
                    }
                    self.photos.append(contentsOf: found)
                    if last { self.update { $0.isScanning = false } }
                    self.refresh()
                }
                // Wait for the interface to take this chunk: it tells us whether
                // the folder is still open, and keeps the queue from running ahead.
                group.wait()
                if !stillWanted.current { return }
                start = end
            }
        }
    }

    /// Recomputes the visible entries, keeping the highlight on the same entry.
    private func refresh(highlighting file: Photo? = nil) {
        let state = currentState
        let keep = file ?? state.highlightedEntry?.file
        var visible = folders + photos
        if !state.showHidden { visible.removeAll { $0.isHidden } }
        if let filter = state.filter, !filter.isEmpty {
            let needle = filter.lowercased()
            visible.removeAll { !$0.name.lowercased().contains(needle) }
        }
        var highlighted: Int?
        if let keep, let index = visible.firstIndex(where: { $0.file == keep }) {
            highlighted = index
        } else if !visible.isEmpty {
            highlighted = min(state.highlighted ?? 0, visible.count - 1)
        }
        update {
            $0.entries = visible
            $0.highlighted = highlighted
        }
        updatePreview()
    }

    // MARK: Preview and messages

    private func updatePreview() {
        // A file collage does not read: its reason in full where its picture would be.
        if let entry = currentState.highlightedEntry, entry.kind == .unreadable {
            previewTicket?.cancel()
            previewFile = nil
            let reason = PreviewState.failed("\(entry.name): \(entry.reason ?? "not a photo collage reads")")
            if currentState.preview != reason { update { $0.preview = reason } }
            return
        }
        guard let entry = currentState.highlightedEntry, entry.kind == .photo,
              let previews, previewSize.columns > 0, previewSize.rows > 0 else {
            previewTicket?.cancel()
            previewFile = nil
            if currentState.preview != .none { update { $0.preview = .none } }
            return
        }
        guard entry.file != previewFile else { return }
        previewTicket?.cancel()
        previewFile = entry.file
        update { $0.preview = .loading }
        previewTicket = previews.photoPreview(entry.file, columns: previewSize.columns, rows: previewSize.rows) {
            [weak self] result in
            guard let self, self.previewFile == entry.file else { return }
            self.update { $0.preview = PreviewState(result) }
        }
    }

    private func show(_ event: CollageEvent) {
        let message: String
        switch event {
        case let .added(added):
            let names = added.map(\.fileName).joined(separator: ", ")
            // Adding a photo that is already in is allowed, as in the original
            // app; the state (sent before the event) already counts this one.
            let times = added.count == 1 ? currentState.inCollage[added[0]] ?? 1 : 1
            message = times > 1 ? "Added \(names) again: it is in the collage \(times) times" : "Added \(names)"
        default:
            message = event.message
        }
        update { $0.message = message }
    }

    private func update(_ change: (inout PhotosScreenState) -> Void) {
        stateSubject.change(change)
    }
}
