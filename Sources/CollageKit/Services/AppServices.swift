import Foundation

/// The services the app runs on, built in one place: `collage`'s
/// `CommandLineEntry` makes one for the command it parsed (at its
/// `--max-pixels`) and hands it down, and every view model and service
/// that draws, measures or writes is made from it here, so no command or
/// view model makes an engine of its own.
public struct AppServices: Sendable {
    /// The C engine: probes, draws, encodes and measures, with all cores.
    public let engine: ImageEngine

    public init(maxDecodedPixels: UInt64) {
        engine = ImageEngine(maxDecodedPixels: maxDecodedPixels,
                             decodeThreads: ProcessInfo.processInfo.activeProcessorCount)
    }

    /// The collage over `store`, drawn and saved by the engine; `notice`
    /// is told of a damaged or soft photo.
    public func collage(store: SelectionStore,
                        notice: @escaping @Sendable (PhotoNotice) -> Void) throws -> CollageViewModel {
        try CollageViewModel(store: store, inspector: engine, renderer: engine, writer: PhotoWriter(encoder: engine),
                             notice: notice)
    }

    /// A batch's view model: each of its `options.jobs` collages decodes
    /// with its share of the cores, so the jobs together stay within the
    /// machine (the same engine otherwise).
    public func batch(_ options: BatchOptions) -> BatchViewModel {
        var shared = engine
        shared.maxDecodedPixels = options.maxDecodedPixels
        shared.decodeThreads = max(1, ProcessInfo.processInfo.activeProcessorCount / options.jobs)
        return BatchViewModel(options: options, inspector: shared, renderer: shared, writer: PhotoWriter(encoder: shared))
    }

    /// Pictures for a terminal, drawn by the engine.
    public func previews(renderer: PictureRendering) -> PreviewService {
        PreviewService(renderer: renderer, engine: engine)
    }

    /// `collage suggest`'s choice, measured by the engine through `cache`.
    public func suggester(cache: MeasuresCache?) -> SuggestService {
        SuggestService(measurer: engine, cache: cache)
    }

    /// `collage book`, its photos chosen through `cache`.
    public func book(cache: MeasuresCache?, note: @escaping (String) -> Void) -> BookService {
        BookService(engine: engine, suggester: suggester(cache: cache), note: note)
    }
}
