import Dispatch
import Foundation

/// A preview on its way; cancelling it drops the result (and the work, if it
/// has not started).
public final class PreviewTicket {
    private let onCancel: () -> Void
    public init(onCancel: @escaping () -> Void = {}) { self.onCancel = onCancel }
    public func cancel() { onCancel() }
}

/// Pictures of photos and collages for the terminal. The screens ask on the
/// main actor, and are answered there (at once when the picture is cached).
/// (Each requirement, not the protocol, is on the main actor: a protocol's
/// actor would be inferred for the whole of a class conforming to it, and
/// `PreviewService` draws on any thread for the command line.)
public protocol PreviewProviding: AnyObject {
    @MainActor
    func photoPreview(_ photo: Photo, columns: Int, rows: Int,
                      completion: @escaping @MainActor (Result<TerminalPicture, Error>) -> Void) -> PreviewTicket
    @MainActor
    func collagePreview(_ photos: [Photo], options: CollageRenderOptions, columns: Int, rows: Int,
                        completion: @escaping @MainActor (Result<TerminalPicture, Error>) -> Void) -> PreviewTicket
    /// Where the last collage picture of exactly these photos, drawn with
    /// these options, centred each one's crop, if one was drawn: where the
    /// crop keys start from.
    @MainActor
    func cropCentres(of photos: [Photo], options: CollageRenderOptions) -> [PhotoFocus]?
}

extension PreviewProviding {
    @MainActor
    public func cropCentres(of photos: [Photo], options: CollageRenderOptions) -> [PhotoFocus]? { nil }
}

/// What previews are drawn with: the collage's one plan and its draw (so a
/// picture shows what `save` writes), and one photo drawn to fit a box.
/// `ImageEngine` in the app; a fake in the tests.
public protocol PreviewDrawing: Sendable {
    func plan(_ photos: [Photo], options: CollageRenderOptions) throws -> LayoutPlan
    func draw(_ photos: [Photo], plan: LayoutPlan, options: CollageRenderOptions) throws -> RenderedCollage
    func picture(of photo: Photo, fitting width: Int, height: Int, background: RGBColor) throws -> RGBImage
}

extension ImageEngine: PreviewDrawing {}

/// Makes previews off the interface thread, through the engine's draw
/// (shrink-on-load, then scaled to the picture's size), and keeps the most recent ones, so moving back over a photo is instant.
///
/// One serial queue does the work: scrolling quickly through a folder queues
/// requests that are cancelled before they start, so only the photo the
/// highlight rests on is drawn.
public final class PreviewService: PreviewProviding, Sendable {
    private let engine: any PreviewDrawing
    private let renderer: PictureRendering
    private let queue = DispatchQueue(label: "collage.previews", qos: .userInitiated)
    private let cache: PictureCache

    /// The crop centres of the last collage picture, its photos and options.
    private let lastCentres = Locked<(photos: [Photo], options: CollageRenderOptions, centres: [PhotoFocus])?>(nil)

    public init(renderer: PictureRendering, engine: any PreviewDrawing, cacheLimit: Int = 64) {
        self.renderer = renderer
        self.engine = engine
        cache = PictureCache(limit: cacheLimit)
    }

    @MainActor
    public func photoPreview(_ photo: Photo, columns: Int, rows: Int,
                             completion: @escaping @MainActor (Result<TerminalPicture, Error>) -> Void) -> PreviewTicket {
        // By the exact bytes: two names that are not UTF-8 can read alike.
        let key = "photo\u{0}\(photo.fileSystemPath)\u{0}\(columns)x\(rows)"
        return schedule(key: key, completion: completion) { [engine, renderer] in
            let box = renderer.pixelSize(columns: columns, rows: rows)
            let image = try engine.picture(of: photo, fitting: box.width, height: box.height, background: .white)
            return renderer.render(image, columns: columns, rows: rows)
        }
    }

    @MainActor
    public func collagePreview(_ photos: [Photo], options: CollageRenderOptions, columns: Int, rows: Int,
                               completion: @escaping @MainActor (Result<TerminalPicture, Error>) -> Void) -> PreviewTicket {
        // A photo's focus changes its crop, so it is part of the key; so is
        // everything the options change.
        let key = "collage\u{0}" + photos.map { "\($0.fileSystemPath)@\($0.focus?.description ?? "-")" }
            .joined(separator: "\u{0}") + "\u{0}\(options)\u{0}\(columns)x\(rows)"
        return schedule(key: key, completion: completion) { [self] in
            try collagePicture(photos, options: options, columns: columns, rows: rows)
        }
    }

    /// Where the photos go on the canvas `options` ask for.
    public func collagePlan(_ photos: [Photo], options: CollageRenderOptions) throws -> LayoutPlan {
        try engine.plan(photos, options: options)
    }

    /// The collage as a picture of at most `columns` x `rows` cells, in the
    /// canvas's proportions (a portrait canvas is drawn portrait), made on
    /// the calling thread (`collage preview` has nothing else to do
    /// meanwhile). The plan is the saved collage's, scaled: with `--crop
    /// centre` (or photos shown whole) it is drawn at the pixel size the
    /// cells can show, so the picture has the saved file's layout without
    /// the work of a full-size render. Smart and attention crops are decided
    /// on what each cell's decode shows: in a picture-sized collage the cells
    /// are so small that faces go unseen (at 71 columns the astronaut lost
    /// her head in the picture but not in the saved file), so those are drawn
    /// at the canvas size (at most the default canvas's area), as `save`
    /// draws them, and scaled down for the terminal.
    public func collagePicture(_ photos: [Photo], options: CollageRenderOptions, columns: Int, rows: Int,
                               plan known: LayoutPlan? = nil) throws -> TerminalPicture {
        // A caller that already has the plan (for its proportions) passes it:
        // planning reads every photo's header for the layouts but the grid.
        let plan = try known ?? engine.plan(photos, options: options)
        let canvas = (width: Double(plan.canvas.width), height: Double(plan.canvas.height))
        let scale: Double
        if options.crop == .centre || plan.fit == .contain {
            let box = renderer.pixelSize(columns: columns, rows: rows)
            scale = min(1, Double(max(1, box.width)) / canvas.width, Double(max(1, box.height)) / canvas.height)
        } else {
            let largest = Double(CanvasSize.default.width * CanvasSize.default.height)
            scale = min(1, (largest / (canvas.width * canvas.height)).squareRoot())
        }
        let drawn = try engine.draw(photos, plan: scale < 1 ? plan.scaled(by: scale) : plan, options: options)
        lastCentres.withLock { $0 = (photos, options, drawn.cropCentres) }
        return renderer.render(drawn.image, columns: columns, rows: rows)
    }

    public func cropCentres(of photos: [Photo], options: CollageRenderOptions) -> [PhotoFocus]? {
        lastCentres.withLock { last in last.flatMap { $0.photos == photos && $0.options == options ? $0.centres : nil } }
    }

    /// The rows a collage picture `columns` wide needs to keep the canvas's
    /// proportions, given the cells' shape.
    public func collageRows(columns: Int, canvas: CanvasSize) -> Int {
        let row = renderer.pixelSize(columns: columns, rows: 1)
        guard row.height > 0 else { return 1 }
        let aspect = Double(canvas.width) / Double(canvas.height)
        return max(1, Int((Double(row.width) / aspect / Double(row.height)).rounded(.up)))
    }

    @MainActor
    private func schedule(key: String, completion: @escaping @MainActor (Result<TerminalPicture, Error>) -> Void,
                          make: @escaping @Sendable () throws -> TerminalPicture) -> PreviewTicket {
        if let cached = cache[key] {
            completion(.success(cached))
            return PreviewTicket()
        }
        let state = TicketState()
        // Sendable: this closure runs on the queue, not on the main actor
        // (a plain closure formed here would be the main actor's).
        let work = DispatchWorkItem { @Sendable [cache] in
            guard !state.isCancelled else { return }
            let result = Result { try make() }
            if case let .success(picture) = result { cache[key] = picture }
            deliverOnMain {
                if !state.isCancelled { completion(result) }
            }
        }
        queue.async(execute: work)
        return PreviewTicket {
            state.cancel()
            work.cancel()
        }
    }
}

private struct TicketState: Sendable {
    private let cancelled = Locked(false)
    var isCancelled: Bool { cancelled.current }
    func cancel() { cancelled.withLock { $0 = true } }
}

/// The most recently used pictures, at most `limit`.
private final class PictureCache: Sendable {
    private struct Entries {
        var pictures: [String: TerminalPicture] = [:]
        /// Least recently used first.
        var order: [String] = []
    }

    private let limit: Int
    private let entries = Locked(Entries())

    init(limit: Int) { self.limit = max(1, limit) }

    subscript(key: String) -> TerminalPicture? {
        get {
            entries.withLock { entries in
                guard let picture = entries.pictures[key] else { return nil }
                entries.order.removeAll { $0 == key }
                entries.order.append(key)
                return picture
            }
        }
        set {
            entries.withLock { entries in
                entries.pictures[key] = newValue
                entries.order.removeAll { $0 == key }
                if newValue != nil { entries.order.append(key) }
                while entries.order.count > limit { entries.pictures[entries.order.removeFirst()] = nil }
            }
        }
    }
}
