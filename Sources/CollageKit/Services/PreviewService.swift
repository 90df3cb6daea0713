import Dispatch
import Foundation

/// Hands a result back to the thread that draws the interface (the main
/// queue in the app; the calling thread in tests).
public typealias Deliver = (@escaping () -> Void) -> Void

public let deliverOnMain: Deliver = { work in DispatchQueue.main.async(execute: work) }

/// A preview on its way; cancelling it drops the result (and the work, if it
/// has not started).
public final class PreviewTicket {
    private let onCancel: () -> Void
    public init(onCancel: @escaping () -> Void = {}) { self.onCancel = onCancel }
    public func cancel() { onCancel() }
}

/// Pictures of photos and collages for the terminal.
public protocol PreviewProviding: AnyObject {
    func photoPreview(_ photo: Photo, columns: Int, rows: Int,
                      completion: @escaping (Result<TerminalPicture, Error>) -> Void) -> PreviewTicket
    func collagePreview(_ photos: [Photo], columns: Int, rows: Int,
                        completion: @escaping (Result<TerminalPicture, Error>) -> Void) -> PreviewTicket
    /// Where the last collage picture of exactly these photos centred each
    /// one's crop, if one was drawn: where the crop keys start from.
    func cropCentres(of photos: [Photo]) -> [PhotoFocus]?
}

extension PreviewProviding {
    public func cropCentres(of photos: [Photo]) -> [PhotoFocus]? { nil }
}

/// Makes previews off the interface thread, from shrink-on-load decodes,
/// and keeps the most recent ones, so moving back over a photo is instant.
///
/// One serial queue does the work: scrolling quickly through a folder queues
/// requests that are cancelled before they start, so only the photo the
/// highlight rests on is decoded.
public final class PreviewService: PreviewProviding {
    private let engine: ImageEngine
    private let renderer: PictureRendering
    private let deliver: Deliver
    private let queue = DispatchQueue(label: "collage.previews", qos: .userInitiated)
    private let cache: PictureCache

    /// The collage's proportions in previews: the default canvas's.
    public var collageAspect = Double(CanvasSize.default.width) / Double(CanvasSize.default.height)
    /// Where collage previews crop their photos, and whether they fit whole
    /// (`--crop`, `--fit`), as the saved collage will.
    public let crop: CropMode
    public let fit: FitMode
    /// The crop centres of the last collage picture, and its photos.
    private let lastCentres = Locked<(photos: [Photo], centres: [PhotoFocus])?>(nil)

    public init(renderer: PictureRendering, engine: ImageEngine = ImageEngine(),
                deliver: @escaping Deliver = deliverOnMain, cacheLimit: Int = 64,
                crop: CropMode = .smart, fit: FitMode = .cover) {
        self.renderer = renderer
        self.engine = engine
        self.crop = crop
        self.fit = fit
        self.deliver = deliver
        cache = PictureCache(limit: cacheLimit)
    }

    public func photoPreview(_ photo: Photo, columns: Int, rows: Int,
                             completion: @escaping (Result<TerminalPicture, Error>) -> Void) -> PreviewTicket {
        // By the exact bytes: two names that are not UTF-8 can read alike.
        let key = "photo\u{0}\(photo.fileSystemPath)\u{0}\(columns)x\(rows)"
        return schedule(key: key, completion: completion) { [engine, renderer] in
            let box = renderer.pixelSize(columns: columns, rows: rows)
            let image = try engine.decode(photo, fitting: box.width, height: box.height)
            return renderer.render(image, columns: columns, rows: rows)
        }
    }

    public func collagePreview(_ photos: [Photo], columns: Int, rows: Int,
                               completion: @escaping (Result<TerminalPicture, Error>) -> Void) -> PreviewTicket {
        // A photo's focus changes its crop, so it is part of the key.
        let key = "collage\u{0}" + photos.map { "\($0.fileSystemPath)@\($0.focus?.description ?? "-")" }
            .joined(separator: "\u{0}") + "\u{0}\(columns)x\(rows)"
        return schedule(key: key, completion: completion) { [self] in
            try collagePicture(photos, columns: columns, rows: rows)
        }
    }

    /// The collage as a picture of at most `columns` x `rows` cells, in the
    /// collage's proportions, made on the calling thread (`collage preview`
    /// has nothing else to do meanwhile). With `--crop centre` it is rendered
    /// at the pixel size the cells can show, never above the default canvas,
    /// so the picture has the saved file's layout without the work of a
    /// full-size render. Smart and attention crops are decided on what each
    /// cell's decode shows: in a picture-sized collage the cells are so small
    /// that faces go unseen (at 71 columns the astronaut lost her head in the
    /// picture but not in the saved file), so those are rendered at the
    /// default canvas, as `save` draws them, and scaled down for the terminal.
    public func collagePicture(_ photos: [Photo], columns: Int, rows: Int) throws -> TerminalPicture {
        let box = crop == .centre ? renderer.pixelSize(columns: columns, rows: rows)
                                  : (width: CanvasSize.default.width, height: CanvasSize.default.height)
        let canvas = CanvasSize.default
        let width = max(1, min(box.width, canvas.width, Int((Double(box.height) * collageAspect).rounded())))
        let height = max(1, min(box.height, canvas.height, Int((Double(box.width) / collageAspect).rounded())))
        let (image, centres) = try engine.renderPlaced(photos, options: CollageRenderOptions(
            size: try CanvasSize(width: width, height: height), crop: crop, fit: fit))
        lastCentres.withLock { $0 = (photos, centres) }
        return renderer.render(image, columns: columns, rows: rows)
    }

    public func cropCentres(of photos: [Photo]) -> [PhotoFocus]? {
        lastCentres.withLock { last in last.flatMap { $0.photos == photos ? $0.centres : nil } }
    }

    /// The rows a collage picture `columns` wide needs to keep the collage's
    /// proportions, given the cells' shape.
    public func collageRows(columns: Int) -> Int {
        let row = renderer.pixelSize(columns: columns, rows: 1)
        guard row.height > 0 else { return 1 }
        return max(1, Int((Double(row.width) / collageAspect / Double(row.height)).rounded(.up)))
    }

    private func schedule(key: String, completion: @escaping (Result<TerminalPicture, Error>) -> Void,
                          make: @escaping () throws -> TerminalPicture) -> PreviewTicket {
        if let cached = cache[key] {
            completion(.success(cached))
            return PreviewTicket()
        }
        let state = TicketState()
        let work = DispatchWorkItem { [cache, deliver] in
            guard !state.isCancelled else { return }
            let result = Result { try make() }
            if case let .success(picture) = result { cache[key] = picture }
            deliver {
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
