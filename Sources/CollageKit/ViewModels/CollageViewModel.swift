import Dispatch
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// The collage screen's logic: owns the selection, enforces the rules, and
/// derives everything shown from the selection.
///
/// Inputs: picks streamed in through `bind(picks:)` (from the `add` command
/// or the photo picker), and the `clear` and `save` actions. Outputs:
/// publishers of the selection, the title and which actions are enabled, and
/// an `events` stream telling what became of each action. The view model, not
/// its caller, refuses what the rules forbid, and a refused action changes
/// nothing: neither the stored selection nor any output.
///
/// Every change goes through the `SelectionStore`, whose `update` re-reads the
/// stored selection under a lock: a long-lived screen and a command in another
/// shell never overwrite each other.
public final class CollageViewModel {
    private let store: SelectionStore
    private let inspector: PhotoInspecting
    private let renderer: CollageRendering
    private let writer: PhotoWriting
    private let workQueue: DispatchQueue
    /// Live subscriptions of the whole screen stack (see ResourceCounter).
    public let resources: ResourceCounter

    private let stateSubject: CurrentValueSubject<CollageState, Never>
    private let eventsSubject = PassthroughSubject<CollageEvent, Never>()
    /// Told what a person should know of a photo that was added or drawn
    /// (a damaged file, a photo enlarged until soft): nothing that stops
    /// the action. Called on the thread that found it.
    private let notice: @Sendable (PhotoNotice) -> Void
    private struct PickSubscriptions {
        var live: [Int: AnyCancellable] = [:]
        var nextID = 0
    }
    private let pickSubscriptions = Locked(PickSubscriptions())

    // MARK: Outputs

    /// The whole derived state; the outputs below are projections of it.
    public var state: AnyPublisher<CollageState, Never> { stateSubject.removeDuplicates().eraseToAnyPublisher() }
    public var photos: AnyPublisher<[Photo], Never> { project(\.photos) }
    public var title: AnyPublisher<String, Never> { project(\.title) }
    public var canAdd: AnyPublisher<Bool, Never> { project(\.canAdd) }
    public var canClear: AnyPublisher<Bool, Never> { project(\.canClear) }
    public var canSave: AnyPublisher<Bool, Never> { project(\.canSave) }
    /// What became of each action, in order.
    public var events: AnyPublisher<CollageEvent, Never> { eventsSubject.eraseToAnyPublisher() }

    public var currentState: CollageState { stateSubject.value }

    /// Why saving the current selection would be refused, or nil.
    public var saveRefusal: CollageRefusal? { currentState.saveRefusal }

    /// How many pick streams are still subscribed. A source that completes
    /// when its screen closes ends its subscription, so this stays flat across
    /// any number of open/close cycles.
    public var livePickSubscriptions: Int {
        pickSubscriptions.withLock { $0.live.count }
    }

    public init(store: SelectionStore,
                inspector: PhotoInspecting,
                renderer: CollageRendering,
                writer: PhotoWriting,
                workQueue: DispatchQueue = .global(qos: .userInitiated),
                resources: ResourceCounter = ResourceCounter(),
                notice: @escaping @Sendable (PhotoNotice) -> Void = { _ in }) throws {
        self.store = store
        self.notice = notice
        self.resources = resources
        self.inspector = inspector
        self.renderer = renderer
        self.writer = writer
        self.workQueue = workQueue
        stateSubject = CurrentValueSubject(Self.state(of: try store.loadSelection(), inspector: inspector))
    }

    // MARK: Inputs

    /// Subscribes to a source of picks. Each value is one pick: the photos
    /// chosen together, added together or not at all. The subscription ends
    /// when the source completes.
    public func bind<Picks: Publisher>(picks: Picks) where Picks.Output == [Photo], Picks.Failure == Never {
        let id = pickSubscriptions.withLock { subscriptions in
            defer { subscriptions.nextID += 1 }
            return subscriptions.nextID
        }

        var completedAlready = false
        let subscription = picks.sink(
            receiveCompletion: { [weak self] _ in
                completedAlready = true
                self?.endSubscription(id)
            },
            receiveValue: { [weak self] pick in self?.add(pick) })
        // A source may complete while `sink` runs; only keep live ones.
        if !completedAlready {
            let tracked = resources.track(subscription)
            pickSubscriptions.withLock { $0.live[id] = tracked }
        }
    }

    /// Adds `pick` if every photo is a readable photo (by content) and the collage
    /// has room for all of them; otherwise changes nothing.
    @discardableResult
    public func add(_ pick: [Photo]) -> CollageEvent {
        // A pick that could not fit even an empty collage is refused before
        // any file is read: a batch list missing its blank lines can make
        // one "collage" of thousands of photos, each opened and probed first.
        if pick.count > CollageRules.maximumPhotos,
           let refusal = CollageRules.addRefusal(count: currentState.count, adding: pick.count) {
            return publish(.refused(refusal))
        }
        // Check every file before recording anything: all or nothing. Every
        // bad file is named, so one attempt shows all there is to fix. Only
        // here is a file checked to be whole (`admit`), so a copy cut short
        // is refused now rather than at save; the files are checked at once,
        // as the check may decode (a GIF's corrupt data, and a JPEG's where
        // its structure is not plainly whole, is told only so; a JPEG XL's is
        // the only way to tell it is whole: 0.5 s for 12 megapixels).
        let reasons = Locked([CollageFailure?](repeating: nil, count: pick.count))
        let notices = Locked([[PhotoNotice]](repeating: [], count: pick.count))
        let inspector = self.inspector
        DispatchQueue.concurrentPerform(iterations: pick.count) { index in
            do {
                let admission = try inspector.admit(pick[index])
                notices.withLock { $0[index] = admission.notices }
            } catch {
                reasons.withLock { $0[index] = CollageFailure(error) }
            }
        }
        let unreadable: [CollageRefusal] = zip(pick, reasons.current).compactMap { photo, reason in
            reason.map { .unreadablePhoto(path: photo.path, reason: $0.message, pixelsNeeded: $0.pixelsNeeded) }
        }
        if unreadable.count == 1 { return publish(.refused(unreadable[0])) }
        if !unreadable.isEmpty { return publish(.refused(.unreadablePhotos(unreadable))) }
        let event = change { photos in
            if let refusal = CollageRules.addRefusal(count: photos.count, adding: pick.count) {
                return .refused(refusal)
            }
            photos.append(contentsOf: pick)
            return .added(pick)
        }
        // Told of the photos recorded only: a refused pick's refusal is what
        // there is to read.
        if case .added = event { notices.current.joined().forEach(notice) }
        return event
    }

    /// Empties the selection, its title too; refused when it is already empty.
    @discardableResult
    public func clear() -> CollageEvent {
        changeSelection { selection in
            if let refusal = CollageRules.clearRefusal(count: selection.photos.count, titled: selection.title != nil) {
                return .refused(refusal)
            }
            selection = Selection()
            return .cleared
        }
    }

    /// Removes the photos at `offsets` (0-based, any order); refused, changing
    /// nothing, when the collage is empty or an offset is out of range.
    @discardableResult
    public func remove(at offsets: [Int]) -> CollageEvent {
        change { photos in
            let unique = Array(Set(offsets)).sorted()
            if let refusal = CollageRules.removeRefusal(count: photos.count, offsets: unique) { return .refused(refusal) }
            let removed = unique.map { photos[$0] }
            for offset in unique.reversed() { photos.remove(at: offset) }
            return .removed(removed)
        }
    }

    /// Moves the photo at `from` to `to` (0-based; the others shift), which
    /// moves it to another cell of the grid.
    @discardableResult
    public func move(from: Int, to: Int) -> CollageEvent {
        change { photos in
            if let refusal = CollageRules.moveRefusal(count: photos.count, from: from, to: to) { return .refused(refusal) }
            let photo = photos.remove(at: from)
            photos.insert(photo, at: to)
            return .moved(photo, to: to)
        }
    }

    /// Sets (or with nil clears) the focus of the photo at `offset` (0-based):
    /// the point its crop is centred on.
    @discardableResult
    public func setFocus(_ focus: PhotoFocus?, at offset: Int) -> CollageEvent {
        changePhoto(at: offset, refusal: CollageRules.focusRefusal) { photo in
            photo.focus = focus
            return .focused(photo, at: offset)
        }
    }

    /// Sets (or with nil clears) the person's own caption of the photo at
    /// `offset` (0-based).
    @discardableResult
    public func setCaption(_ caption: String?, at offset: Int) -> CollageEvent {
        changePhoto(at: offset, refusal: CollageRules.captionRefusal) { photo in
            photo.caption = caption
            return .captioned(photo, at: offset)
        }
    }

    /// Sets (or with nil clears) the collage's own title, which a save draws
    /// unless its options give another. A title needs no photos: it waits
    /// for them.
    @discardableResult
    public func setTitle(_ title: CollageTitle?) -> CollageEvent {
        changeSelection { selection in
            selection.title = title
            return .titled(title)
        }
    }

    /// Re-reads the stored selection (another shell may have changed it) and
    /// which of its photos are still there.
    public func reload() {
        do {
            stateSubject.send(state(of: try store.loadSelection()))
        } catch {
            publish(.failed(CollageFailure(error)))
        }
    }

    /// What saving the selection would make, without writing anything:
    /// every photo's size, its cell and the part of it the cell shows, from
    /// an in-memory render (smart crops look at the pixels). Refused as a
    /// save would be; the selection is left as it is.
    public func plan(options: CollageRenderOptions) -> Result<CollagePlanReport, CollageActionError> {
        let selection: Selection
        do {
            selection = try store.loadSelection()
        } catch {
            return .failure(failed(.failed(CollageFailure(error))))
        }
        let photos = selection.photos
        let state = state(of: selection)
        stateSubject.send(state)
        if let refusal = state.saveRefusal { return .failure(failed(.refused(refusal))) }
        do {
            let shapes = try photos.map { PhotoShape(try inspector.inspect($0)) }
            let drawn = try renderer.render(photos, options: options.titled(selection.title))
            return .success(CollagePlanReport(photos: photos, shapes: shapes, drawn: drawn))
        } catch {
            return .failure(failed(.failed(CollageFailure(error).within("cannot plan the collage"))))
        }
    }

    /// Renders the selection and writes it to `destination`, as a
    /// Completable: it finishes once the file is in place and the saved photos
    /// are cleared from the selection (unless `keep`), or fails, keeping the
    /// selection. The format follows the destination's extension (a PDF is a
    /// page whose title and captions are text: `CollagePage`). Rendering
    /// and writing run on the work queue.
    ///
    /// `endingOn`: the queue its end runs on (clearing the selection, and the
    /// state and events that follow): the main queue for a screen, whose
    /// subscribers live on the main actor; nil, where the writing ended (the
    /// command line waits for it there).
    public func save(to destination: URL, options: CollageRenderOptions, overwrite: Bool,
                     keep: Bool = false, endingOn endQueue: DispatchQueue? = nil) -> Completable {
        save(to: .file(destination), options: options, overwrite: overwrite, keep: keep, endingOn: endQueue)
    }

    /// `save(to:)` for any target: a file, or standard output.
    public func save(to target: SaveTarget, options: CollageRenderOptions, overwrite: Bool,
                     keep: Bool = false, endingOn endQueue: DispatchQueue? = nil) -> Completable {
        Deferred { [self] () -> Completable in
            let format: ImageFormat
            let selection: Selection
            do {
                format = try target.format()
                selection = try store.loadSelection()
            } catch {
                return fail(.failed(CollageFailure(error)))
            }
            let photos = selection.photos
            // The stored title, unless the options give one for this save.
            let options = options.titled(selection.title)
            let state = state(of: selection)
            stateSubject.send(state)
            // Before any work: the rules, then a photo that has gone since it was added.
            if let refusal = state.saveRefusal {
                return fail(.refused(refusal))
            }
            // A file that would be refused is said before the photos are
            // drawn, not after (seconds for large photos).
            if case let .file(destination) = target, let refusal = writer.refusal(toSave: destination, overwrite: overwrite) {
                return fail(.failed(CollageFailure(refusal).within(target.cannotSave)))
            }
            let renderer = self.renderer
            let writer = self.writer
            let notice = self.notice
            return Future<CollageOutput, Error>.running(on: workQueue) {
                let drawn = try renderer.renderNoting(photos, options: options, text: TextDrawing(for: format))
                drawn.notices.forEach(notice)
                return CollageOutput(drawn.collage, format: format, options: options)
            }
            .flatMap { collage -> Completable in
                switch target {
                case let .file(destination):
                    writer.save(collage, to: destination, format: format, options: options.save, overwrite: overwrite)
                case .standardOutput:
                    writer.send(collage, format: format, options: options.save)
                }
            }
            .receiving(on: endQueue)
            .catch { [weak self] error -> Completable in
                guard let self else { return Fail(error: error).eraseToAnyPublisher() }
                return self.fail(.failed(CollageFailure(error).within(target.cannotSave)))
            }
            .handleEvents(receiveCompletion: { [weak self] completion in
                if case .finished = completion { self?.didSave(selection, to: target.name, keep: keep) }
            })
            .eraseToAnyPublisher()
        }
        .eraseToAnyPublisher()
    }

    // MARK: Private

    /// The state of a selection, with the photos that have gone since.
    private func state(of selection: Selection) -> CollageState { Self.state(of: selection, inspector: inspector) }

    private static func state(of selection: Selection, inspector: PhotoInspecting) -> CollageState {
        var absences: [Photo: PhotoAbsence] = [:]
        for photo in selection.photos where absences[photo] == nil { absences[photo] = inspector.absence(of: photo) }
        return CollageState(photos: selection.photos, title: selection.title, absences: absences)
    }

    private func project<Value: Equatable>(_ keyPath: KeyPath<CollageState, Value>) -> AnyPublisher<Value, Never> {
        stateSubject.map(keyPath).removeDuplicates().eraseToAnyPublisher()
    }

    /// Runs a rule-checked change of the photos through the store and publishes the result.
    private func change(_ body: (inout [Photo]) -> CollageEvent) -> CollageEvent {
        changeSelection { body(&$0.photos) }
    }

    /// Runs a rule-checked change through the store and publishes the result.
    private func changeSelection(_ body: (inout Selection) -> CollageEvent) -> CollageEvent {
        do {
            var after = Selection()
            let event = try store.updateSelection { selection -> CollageEvent in
                let event = body(&selection)
                after = selection
                return event
            }
            stateSubject.send(state(of: after))
            return publish(event)
        } catch {
            return publish(.failed(CollageFailure(error)))
        }
    }

    /// A rule-checked change of one photo (its focus, its caption).
    private func changePhoto(at offset: Int, refusal: (_ count: Int, _ offset: Int) -> CollageRefusal?,
                             _ body: (inout Photo) -> CollageEvent) -> CollageEvent {
        change { photos in
            if let refused = refusal(photos.count, offset) { return .refused(refused) }
            return body(&photos[offset])
        }
    }

    /// After a save, clear the photos that were saved, and the title with
    /// them (whether or not the save drew another). Photos another shell
    /// added meanwhile stay; a selection someone else changed is left alone,
    /// and so is a title set since.
    private func didSave(_ saved: Selection, to destination: String, keep: Bool) {
        if keep {
            publish(.saved(path: destination))
            return
        }
        do {
            let after = try store.updateSelection { selection -> Selection in
                if selection.photos.starts(with: saved.photos) {
                    selection.photos.removeFirst(saved.photos.count)
                    if selection.title == saved.title { selection.title = nil }
                }
                return selection
            }
            stateSubject.send(state(of: after))
            publish(.saved(path: destination))
        } catch {
            publish(.failed(CollageFailure(.clearAfterSave, path: destination,
                                           message: "saved \(destination), but could not clear the selection: \(error)")))
        }
    }

    /// Publishes a refusal or failure and completes with it.
    private func fail(_ error: CollageActionError) -> Completable {
        Fail(error: failed(error)).eraseToAnyPublisher()
    }

    /// Publishes a refusal or failure and returns it.
    private func failed(_ error: CollageActionError) -> CollageActionError {
        publish(error.event)
        return error
    }

    @discardableResult
    private func publish(_ event: CollageEvent) -> CollageEvent {
        eventsSubject.send(event)
        return event
    }

    private func endSubscription(_ id: Int) {
        // Cancelled outside the lock: cancelling runs the subscription's own code.
        pickSubscriptions.withLock { $0.live.removeValue(forKey: id) }?.cancel()
    }
}
