import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// An action of the collage screen, with its key.
public struct ScreenAction: Equatable, Sendable {
    /// What to press, as the key bar shows it ("a", or "HJKL" for a set).
    public let key: String
    public let label: String
    public let isEnabled: Bool
    /// Every key that does it, as the list of keys (`?`) shows it ("q Esc").
    public let keys: String
    /// What it does, in a few words, for the list of keys.
    public let help: String
    /// Which actions the key bar keeps when not all fit its width: the
    /// highest first (the list of keys, `?`, always shows every one).
    public let importance: Int

    public init(key: String, label: String, isEnabled: Bool, keys: String? = nil, help: String? = nil,
                importance: Int = 0) {
        self.key = key
        self.label = label
        self.isEnabled = isEnabled
        self.keys = keys ?? key
        self.help = help ?? label
        self.importance = importance
    }
}

/// Everything the collage screen shows.
public struct CollageScreenState: Equatable, Sendable {
    public var title: String
    public var photos: [Photo]
    /// The photos that can no longer be read (marked on screen), and why.
    public var missing: [Photo: PhotoAbsence] = [:]
    /// The photo the person is on (Up/Down): what x, [ and ] act on. Nil
    /// when the collage is empty.
    public var highlighted: Int?
    /// add, remove, clear, save, quit: disabled ones are shown dimmed.
    public var actions: [ScreenAction]
    /// What the last action said (a refusal or failure gives its reason); it
    /// stays until the next key.
    public var message: String?
    /// The text being typed: a file name for a save, a caption or the
    /// title; nil when nothing is being typed.
    public var prompt: String?
    /// What the prompt's text is for.
    public var promptPurpose: PromptPurpose = .save
    /// The title drawn across the top of the collage: `--title`, else the
    /// collage's own (`collage title`, `t`); nil for none.
    public var drawnTitle: String?
    public var isSaving = false
    public var preview: PreviewState = .none
    /// The layout the picture is drawn in and a save uses (`l` cycles it).
    public var layout: LayoutMode = .default
    /// The canvas size asked for (`--size`): "1920x1080", or "1920 wide"
    /// when the photos give the height (rows), "1080 high" the width
    /// (columns); a size on paper with its resolution and pixels, "A4 at 300
    /// dpi, 2480x3508".
    public var canvas: String = RequestedSize.default.description
    /// `c` was pressed once: the message asks, and the next key answers
    /// (c or y clears; any other key keeps the photos and does nothing else).
    public var confirmingClear = false
    /// The list of every key is shown (`?`); any key closes it.
    public var showingKeys = false
}

/// What the collage screen's prompt asks for.
public enum PromptPurpose: Equatable, Sendable {
    /// A file name to save to.
    case save
    /// The caption of the photo at this index (0-based).
    case caption(Int)
    /// The collage's title.
    case title
}

extension CollageScreenState {
    /// The photo (0-based) whose caption is being typed; nil otherwise.
    public var captioning: Int? {
        guard prompt != nil, case let .caption(index) = promptPurpose else { return nil }
        return index
    }
}

/// Where the collage screen wants to go; the coordinator takes it there.
public enum CollageScreenRoute: Equatable, Sendable {
    case photos
    case quit
}

/// The collage screen (the original app's main screen) over the collage view
/// model: it maps keys to the view model's actions and shows what the rules
/// allow. It decides nothing itself: enabled actions come from CollageState,
/// refusals from CollageRules.
///
/// On the main actor, with the keys and the drawing: a save runs on the
/// collage's work queue and its end is delivered back (`deliverOnMain`).
@MainActor
public final class CollageScreenViewModel {
    public let collage: CollageViewModel
    private let previews: PreviewProviding?
    private let workingDirectory: String
    /// The options of the picture and of a save; `l` changes the layout.
    /// Their title is `--title`'s, which `t` drops: the collage's own title
    /// is the selection's (`drawingOptions`).
    public private(set) var renderOptions: CollageRenderOptions
    /// What the picture is drawn with: the options, with the collage's own
    /// title where `--title` gave none (as a save draws it).
    private var drawingOptions: CollageRenderOptions { renderOptions.titled(collage.currentState.collageTitle) }
    /// The folder last browsed in the photos screen, where a save goes by
    /// default (nil: the working directory).
    private var saveFolder: String?
    private let now: () -> Date
    private let stateSubject: CurrentValueSubject<CollageScreenState, Never>
    private let routeSubject = PassthroughSubject<CollageScreenRoute, Never>()
    private var subscriptions: [AnyCancellable] = []
    private var previewTicket: PreviewTicket?
    private var previewSize = (columns: 0, rows: 0)
    private var saving: AnyCancellable?

    public var state: AnyPublisher<CollageScreenState, Never> { stateSubject.removeDuplicates().eraseToAnyPublisher() }
    public var currentState: CollageScreenState { stateSubject.value }
    public var routes: AnyPublisher<CollageScreenRoute, Never> { routeSubject.eraseToAnyPublisher() }

    public init(collage: CollageViewModel, previews: PreviewProviding? = nil,
                workingDirectory: String = FileManager.default.currentDirectoryPath,
                renderOptions: CollageRenderOptions = .defaults,
                now: @escaping () -> Date = Date.init) {
        self.collage = collage
        self.previews = previews
        self.workingDirectory = workingDirectory
        self.renderOptions = renderOptions
        self.now = now
        stateSubject = CurrentValueSubject(Self.screenState(for: collage.currentState, options: renderOptions))
        subscriptions.append(collage.resources.track(collage.state.sink { [weak self] state in
            self?.selectionChanged(state)
        }))
        subscriptions.append(collage.resources.track(collage.events.sink { [weak self] event in
            if case .added = event { return }  // the photos screen shows those
            self?.update { $0.message = event.message }
        }))
    }

    /// The preview pane's size in character cells.
    public func setPreviewSize(columns: Int, rows: Int) {
        guard previewSize != (columns, rows) else { return }
        previewSize = (columns, rows)
        requestPreview()
    }

    /// The folder the photos screen was on when it closed (the coordinator
    /// tells): the save prompt offers it. A folder whose name is not UTF-8
    /// cannot be typed in the prompt, so then the working directory stays.
    /// The collage's events reach this screen while the photos screen is in
    /// front too: a refusal there ("the collage is full") was shown there,
    /// and is not left here to be read as this screen's.
    public func browsed(folder: Photo) {
        saveFolder = folder.pathIsExact ? folder.path : nil
        if currentState.message != nil && !currentState.isSaving { update { $0.message = nil } }
    }

    public func handle(_ key: Key) {
        if currentState.prompt != nil {
            handlePrompt(key)
            return
        }
        // Any key closes the list of keys, and does nothing else.
        if currentState.showingKeys {
            update { $0.showingKeys = false }
            return
        }
        if currentState.confirmingClear {
            answerClear(key)
            return
        }
        // A message stays until the next key: this one.
        if currentState.message != nil { update { $0.message = nil } }
        let count = collage.currentState.count
        switch key {
        case .up, .character("k"):
            moveHighlight(by: -1)
        case .down, .character("j"):
            moveHighlight(by: 1)
        case .character("x"), .delete:
            guard let index = currentState.highlighted else {
                return update { $0.message = CollageRefusal.nothingToRemove.description }
            }
            collage.remove(at: [index])
        case .character("["), .character("]"):
            guard let index = currentState.highlighted else {
                return update { $0.message = CollageRefusal.nothingToMove.description }
            }
            let target = key == .character("[") ? index - 1 : index + 1
            // At either end there is nowhere to go: nothing to refuse either.
            guard (0..<count).contains(target) else { return }
            if collage.move(from: index, to: target).isSuccess { update { $0.highlighted = target } }
        case .character("H"), .character("J"), .character("K"), .character("L"), .character("F"):
            guard let index = currentState.highlighted, index < currentState.photos.count else {
                return update { $0.message = CollageRefusal.nothingToFocus.description }
            }
            // A photo without a focus starts from where its crop is drawn now.
            let photos = currentState.photos
            let start = photos[index].focus ?? previews?.cropCentres(of: photos, options: drawingOptions)?[index]
            collage.setFocus(Self.focus(after: key, from: start), at: index)
        case .character("a"):
            if let refusal = CollageRules.addRefusal(count: count, adding: 1) {
                update { $0.message = refusal.description }
            } else {
                update { $0.message = nil }
                routeSubject.send(.photos)
            }
        case .character("c"):
            if let refusal = CollageRules.clearRefusal(count: count, titled: collage.currentState.collageTitle != nil) {
                update { $0.message = refusal.description }
            } else {
                let question = count == 0 ? "Clear the title? Press c or y to clear it; any other key keeps it"
                    : count == 1 ? "Clear the photo? Press c or y to clear it; any other key keeps it"
                    : "Clear all \(count) photos? Press c or y to clear; any other key keeps them"
                update { $0.confirmingClear = true; $0.message = question }
            }
        case .character("l"):
            cycleLayout()
        case .character("?"):
            update { $0.showingKeys = true }
        case .character("e"):
            guard let index = currentState.highlighted, index < currentState.photos.count else {
                return update { $0.message = CollageRefusal.nothingToCaption.description }
            }
            let current = currentState.photos[index].caption ?? ""
            update { $0.promptPurpose = .caption(index); $0.prompt = current }
        case .character("t"):
            let current = currentState.drawnTitle ?? ""
            update { $0.promptPurpose = .title; $0.prompt = current }
        case .character("s"):
            if let refusal = collage.saveRefusal {
                update { $0.message = refusal.description }
            } else if !currentState.isSaving {
                let name = defaultCollageFileName(now: now())
                let prompt = saveFolder.map { $0.hasSuffix("/") ? $0 + name : $0 + "/" + name } ?? name
                update { $0.promptPurpose = .save; $0.prompt = prompt }
            }
        case .character("q"), .escape:
            routeSubject.send(.quit)
        default:
            break
        }
    }

    /// The answer to "Clear all N photos?": c or y clears (the rules still
    /// decide: CollageViewModel.clear); any other key keeps them and is not
    /// acted on.
    private func answerClear(_ key: Key) {
        update { $0.confirmingClear = false; $0.message = nil }
        switch key {
        case .character("c"), .character("y"), .character("Y"):
            collage.clear()
        default:
            let count = collage.currentState.count
            let kept = count > 0 ? CollageRules.title(count: count).lowercased()
                : collage.currentState.collageTitle != nil ? "the title" : nil
            update { $0.message = kept.map { "Kept \($0): nothing cleared" } }
        }
    }

    // MARK: Layouts

    /// `l`: the next layout (auto, grid, rows, columns, auto...) that can
    /// draw the canvas size asked for; the others are skipped, and the
    /// message says why. The picture is drawn again; a save uses it.
    private func cycleLayout() {
        let current = renderOptions.layout
        let size = renderOptions.size
        var skipped: [LayoutMode] = []
        var next = current.next
        while next != current, CollageRules.layoutRefusal(next, size: size) != nil {
            skipped.append(next)
            next = next.next
        }
        guard next != current else {
            return update { $0.message = "Only the \(current) layout can draw the size \(size): the others need both sides" }
        }
        renderOptions.layout = next
        update {
            $0.layout = next
            if !skipped.isEmpty {
                let names = skipped.map(\.description).joined(separator: ", ")
                $0.message = "\(next) (\(names) cannot draw the size \(size))"
            }
        }
        requestPreview()
    }

    // MARK: Saving

    private func handlePrompt(_ key: Key) {
        if currentState.message != nil && !currentState.isSaving { update { $0.message = nil } }
        switch key {
        case let .character(character): update { $0.prompt?.append(character) }
        case .backspace: update { _ = $0.prompt?.popLast() }
        case .control("u"): update { $0.prompt = "" }
        case .escape:
            let cancelled: String
            switch currentState.promptPurpose {
            case .save: cancelled = "Save cancelled"
            case .caption: cancelled = "Caption unchanged"
            case .title: cancelled = "Title unchanged"
            }
            update { $0.prompt = nil; $0.message = cancelled }
        case .enter:
            switch currentState.promptPurpose {
            case .save: save()
            case let .caption(index): caption(index)
            case .title: setTitle()
            }
        default: break
        }
    }

    /// Enter on a caption: the typed text becomes the photo's caption (none
    /// when empty); a caption the rules refuse keeps the prompt, with why.
    private func caption(_ index: Int) {
        let typed = currentState.prompt ?? ""
        var caption: String?
        if !typed.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            do {
                caption = try Photo.caption(parsing: typed)
            } catch {
                return update { $0.message = "\(error)" }
            }
        }
        update { $0.prompt = nil }
        collage.setCaption(caption, at: index)
    }

    /// Enter on the title: the typed text becomes the collage's own title
    /// (none when empty), kept with the selection as `collage title` keeps
    /// it, so it outlives `q`; it is drawn in the picture and a save uses it,
    /// in place of a `--title` given at start. A title `CollageTitle`
    /// refuses keeps the prompt, with why.
    private func setTitle() {
        let typed = currentState.prompt ?? ""
        var title: CollageTitle?
        if !TextLine.cleaned(typed).isEmpty {
            do {
                title = try CollageTitle(typed)
            } catch {
                return update { $0.message = "\(error)" }
            }
        }
        update { $0.prompt = nil }
        renderOptions.title = nil
        collage.setTitle(title)
        // The title the selection now has is drawn (selectionChanged), also
        // when it had it already and only `--title`'s was dropped.
        let drawn = drawingOptions.title?.text
        if drawn != currentState.drawnTitle {
            update { $0.drawnTitle = drawn }
            requestPreview()
        }
    }

    private func save() {
        guard let name = currentState.prompt?.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
            update { $0.message = "Type a file name to save to" }
            return
        }
        let destination = URL(fileURLWithPath: Photo(resolving: name, against: workingDirectory).path)
        update { $0.isSaving = true; $0.message = "Saving \(destination.path)…" }
        // Its end (the selection cleared, the collage's state and events) on
        // the main queue, where this screen and the photos screen listen.
        saving = collage.save(to: destination, options: renderOptions, overwrite: false, endingOn: .main)
            .sink(receiveCompletion: { [weak self] completion in
                // Later, not now: a refusal completes before `saving` is set.
                deliverOnMain {
                    guard let self else { return }
                    self.saving = nil
                    switch completion {
                    case .finished:
                        self.update { $0.isSaving = false; $0.prompt = nil; $0.message = "Saved \(destination.path)" }
                    case let .failure(error):
                        // The prompt stays open so the name can be changed.
                        self.update { $0.isSaving = false; $0.message = "\(error)" }
                    }
                }
            }, receiveValue: { _ in })
    }

    // MARK: State

    private func selectionChanged(_ collageState: CollageState) {
        let previous = currentState
        var next = Self.screenState(for: collageState, options: renderOptions)
        next.message = previous.message
        next.prompt = previous.prompt
        next.promptPurpose = previous.promptPurpose
        next.isSaving = previous.isSaving
        next.confirmingClear = previous.confirmingClear
        next.showingKeys = previous.showingKeys
        // The highlight stays on its place, within the (maybe shorter) list.
        if !next.photos.isEmpty {
            next.highlighted = min(previous.highlighted ?? 0, next.photos.count - 1)
        }
        let samePicture = previous.photos == next.photos && previous.drawnTitle == next.drawnTitle
        next.preview = samePicture ? previous.preview : .none
        stateSubject.send(next)
        if !samePicture { requestPreview() }
    }

    private func requestPreview() {
        previewTicket?.cancel()
        let photos = currentState.photos
        guard let previews, !photos.isEmpty, previewSize.columns > 0, previewSize.rows > 0 else {
            update { $0.preview = .none }
            return
        }
        update { $0.preview = .loading }
        let options = drawingOptions
        previewTicket = previews.collagePreview(photos, options: options, columns: previewSize.columns, rows: previewSize.rows) {
            [weak self] result in
            guard let self, self.currentState.photos == photos, self.drawingOptions == options else { return }
            self.update { $0.preview = PreviewState(result) }
        }
    }

    private func update(_ change: (inout CollageScreenState) -> Void) {
        stateSubject.change(change)
    }

    /// How far one press of H, J, K or L moves a photo's crop, as a fraction of the photo.
    public static let focusStep = 0.05

    /// The focus after a crop key: H J K L move the crop left, down, up and
    /// right (vi's directions, shifted, as h j k l already move the
    /// highlight), from `focus` (where the crop is now; the middle when
    /// unknown); F gives the crop back to --crop.
    static func focus(after key: Key, from focus: PhotoFocus?) -> PhotoFocus? {
        let start = focus ?? .centre
        switch key {
        case .character("H"): return start.moved(dx: -focusStep, dy: 0)
        case .character("L"): return start.moved(dx: focusStep, dy: 0)
        case .character("K"): return start.moved(dx: 0, dy: -focusStep)
        case .character("J"): return start.moved(dx: 0, dy: focusStep)
        default: return nil
        }
    }

    private func moveHighlight(by delta: Int) {
        let count = currentState.photos.count
        guard count > 0 else { return }
        update { $0.highlighted = min(max(0, ($0.highlighted ?? 0) + delta), count - 1) }
    }

    /// What the screen shows of a collage state: a pure function of it (the
    /// views' tests draw states made by it), so on no actor.
    nonisolated static func screenState(for collage: CollageState, options: CollageRenderOptions = .defaults) -> CollageScreenState {
        let hasPhotos = !collage.photos.isEmpty
        return CollageScreenState(
            title: collage.title,
            photos: collage.photos,
            missing: collage.absences,
            highlighted: collage.photos.isEmpty ? nil : 0,
            actions: [
                ScreenAction(key: "↑↓", label: "select", isEnabled: hasPhotos, keys: "↑↓ k j",
                             help: "highlight a photo", importance: 1),
                ScreenAction(key: "a", label: "add", isEnabled: collage.canAdd,
                             help: "add photos (the photos screen)", importance: 9),
                ScreenAction(key: "x", label: "remove", isEnabled: hasPhotos, keys: "x Del",
                             help: "remove the highlighted photo", importance: 6),
                ScreenAction(key: "[]", label: "move", isEnabled: hasPhotos, keys: "[ ]",
                             help: "move it up or down the order", importance: 3),
                ScreenAction(key: "HJKL", label: "crop", isEnabled: hasPhotos, keys: "H J K L",
                             help: "move its crop left, down, up, right", importance: 4),
                ScreenAction(key: "F", label: "reset", isEnabled: hasPhotos,
                             help: "give its crop back to the crop rule", importance: 2),
                ScreenAction(key: "e", label: "caption", isEnabled: hasPhotos,
                             help: "edit the highlighted photo's caption", importance: 2),
                ScreenAction(key: "t", label: "title", isEnabled: true,
                             help: "edit the title across the top of the collage", importance: 2),
                ScreenAction(key: "l", label: "layout", isEnabled: true,
                             help: "next layout: " + LayoutMode.allCases.map(\.rawValue).joined(separator: ", "), importance: 5),
                ScreenAction(key: "c", label: "clear", isEnabled: collage.canClear,
                             help: "clear every photo (asks first)", importance: 7),
                ScreenAction(key: "s", label: "save", isEnabled: collage.canSave,
                             help: "save (asks for a file name)", importance: 10),
                ScreenAction(key: "q", label: "quit", isEnabled: true, keys: "q Esc", help: "quit", importance: 11),
                ScreenAction(key: "?", label: "keys", isEnabled: true, help: "this list of keys", importance: 12),
            ],
            drawnTitle: options.titled(collage.collageTitle).title?.text,
            layout: options.layout,
            canvas: canvasText(options))
    }

    nonisolated static func canvasText(_ options: CollageRenderOptions) -> String {
        let size = options.size
        if let page = options.save.page, let resolution = options.save.resolution { return "\(page) at \(resolution), \(size)" }
        switch (size.width, size.height) {
        case let (width?, height?): return "\(width)x\(height)"
        case let (width?, nil): return "\(width) wide"
        case let (nil, height?): return "\(height) high"
        case (nil, nil): return "\(size)"
        }
    }
}
