import Dispatch
import Foundation
// Preconcurrency: `resultsSubject`, a PassthroughSubject, is sent to from the
// job threads; Combine and OpenCombine subjects are thread-safe (a lock
// around their subscribers) but not declared Sendable.
#if canImport(Combine)
@preconcurrency import Combine
#else
@preconcurrency import OpenCombine
#endif

/// How a batch run makes its collages.
public struct BatchOptions: Sendable {
    public var outputDirectory: URL
    public var format: ImageFormat
    public var render: CollageRenderOptions
    /// Collages made at once.
    public var jobs: Int
    public var overwrite: Bool
    /// Leave collages whose file exists alone, as done (`--skip-existing`).
    public var skipExisting: Bool
    public var dryRun: Bool
    /// The most pixels one decoded photo may have (`ImageEngine.maxDecodedPixels`).
    public var maxDecodedPixels: UInt64
    /// The part of the list this run makes (`--shard K/N`); the others' groups are read past.
    public var shard: BatchShard
    /// The print resolution asked (`--dpi`), which a `#size` line's size is
    /// drawn at as `--size`'s is (`CollageRenderOptions.resize(to:dpi:)`):
    /// what `render` says may be the 300 dpi of a `--size` on paper, which
    /// a `#size` in pixels does not take.
    public var dpi: PrintResolution?

    public init(outputDirectory: URL, format: ImageFormat = .standard, render: CollageRenderOptions,
                jobs: Int = ProcessInfo.processInfo.activeProcessorCount, overwrite: Bool = false,
                skipExisting: Bool = false, dryRun: Bool = false,
                maxDecodedPixels: UInt64 = ImageEngine.defaultMaxDecodedPixels, shard: BatchShard = .whole,
                dpi: PrintResolution? = nil) {
        self.outputDirectory = outputDirectory
        self.format = format
        self.render = render
        self.jobs = max(1, jobs)
        self.overwrite = overwrite
        self.skipExisting = skipExisting
        self.dryRun = dryRun
        self.maxDecodedPixels = maxDecodedPixels
        self.shard = shard
        self.dpi = dpi
    }

    /// Why `overwrite` and `skipExisting` cannot be asked for together: one
    /// replaces the files that exist, the other leaves them alone, and a run
    /// cannot do both.
    public static func refusal(overwrite: Bool, skipExisting: Bool) -> ValueError? {
        guard overwrite && skipExisting else { return nil }
        return ValueError("existing collages cannot be both left alone and replaced: ask for one or the other")
    }

    /// Whether this run makes `group` (it is in `shard`).
    public func makes(_ group: BatchGroup) -> Bool { shard.contains(group.number) }

    /// How `group` is drawn: the run's options, in the layout of its
    /// `#layout` line, with the title of its `#title` line and at the size of
    /// its `#size` line if it has them. Throws, naming the `#size` line, for
    /// a size on paper too large at `dpi`.
    public func render(for group: BatchGroup) throws -> CollageRenderOptions {
        var render = self.render
        if let layout = group.layout { render.layout = layout }
        if let title = group.title { render.title = title }
        if let size = group.size {
            do { try render.resize(to: size.request, dpi: dpi) } catch { throw ValueError("line \(size.line): \(error)") }
        }
        return render
    }

    /// `DIR/collage-NNN.EXT`, numbered by the collage's position in the list,
    /// so a skipped collage leaves its number unused and re-runs give the same names.
    public func outputPath(for group: BatchGroup) -> String {
        outputDirectory.appendingPathComponent(String(format: "collage-%03d.%@", group.number, format.fileExtension)).path
    }
}

/// Why a collage of the list was not attempted.
public enum BatchSkip: Equatable, Sendable, CustomStringConvertible {
    /// Its lines say something the list's format does not allow.
    case problem(String)
    /// A collage rule refuses it (an unreadable photo, one over the pixel
    /// limit, too many photos, an odd count).
    case refused(CollageRefusal)
    /// Its layout cannot work out the side the size leaves to the photos;
    /// `listed`: the layout is its own `#layout` line's, not the run's.
    case openSide(OpenSide, listed: Bool)

    public var description: String { BatchWording.plain.skip(self) }
}

/// How a view words a batch's failures and skips: the kit's lines, with the
/// advice and the names of options only the view has.
public struct BatchWording: Sendable {
    public let failure: @Sendable (CollageFailure) -> String
    public let skip: @Sendable (BatchSkip) -> String

    public init(failure: @escaping @Sendable (CollageFailure) -> String,
                skip: @escaping @Sendable (BatchSkip) -> String) {
        self.failure = failure
        self.skip = skip
    }

    /// The kit's own lines, naming no option.
    public static let plain = BatchWording(failure: { $0.message }, skip: { skip in
        switch skip {
        case let .problem(reason): reason
        case let .refused(refusal): refusal.description
        case let .openSide(open, listed): listed ? open.refusal(naming: "#layout \(open.layout)") : "\(open)"
        }
    })
}

/// What became of one collage of the list.
public struct BatchResult: Equatable, Sendable {
    public enum Outcome: Equatable, Sendable {
        /// Written (or, in a dry run, would be written).
        case saved
        case planned
        /// Its file exists and `--skip-existing` leaves it alone: done already.
        case kept
        /// Breaks a collage rule; not attempted.
        case skipped(BatchSkip)
        /// Allowed, but writing failed (e.g. the file exists).
        case failed(CollageFailure)
        /// Being made when the run was interrupted (Ctrl-C): nothing written.
        case interrupted
    }

    public let group: BatchGroup
    public let output: String
    /// The layout it is (or would be) drawn in: its `#layout` line's, else the run's.
    public let layout: LayoutMode
    /// The title it is (or would be) drawn with: its `#title` line's, else the run's, if any.
    public let title: CollageTitle?
    public let outcome: Outcome
    /// What a person should be told of its photos (a damaged file, a photo
    /// enlarged until soft), each once.
    public var notices: [PhotoNotice] = []

    public var succeeded: Bool {
        switch outcome {
        case .saved, .planned, .kept: return true
        case .skipped, .failed, .interrupted: return false
        }
    }

    /// How its lines begin: "collage 2 (lines 4-6)".
    public var label: String { "collage \(group.number) (\(group.lineRange))" }

    /// One line for a person; `wording` says a failure or a skip (a view
    /// adds the advice it can give).
    public func message(wording: BatchWording = .plain) -> String {
        switch outcome {
        case .saved: return "\(label): saved \(output)"
        case .kept: return "\(label): kept \(output) (it exists)"
        case .planned:
            // A long title cut short: the line is to check the plan by.
            let titled = title.map { ", titled \($0.text.shortened(to: 40).debugDescription)" } ?? ""
            let sized = group.size.map { ", size \($0.request)" } ?? ""
            return "\(label): \(CollageRules.title(count: group.photos.count)), \(layout) layout\(sized)\(titled) -> \(output)"
        case let .skipped(skip): return "\(label): skipped: \(wording.skip(skip))"
        case let .failed(failure): return "\(label): failed: \(wording.failure(failure))"
        case .interrupted: return "\(label): interrupted: nothing written"
        }
    }
}

extension BatchResult {
    /// What `status` says in a report line.
    public var status: String {
        switch outcome {
        case .saved: "saved"
        case .planned: "planned"
        case .kept: "kept"
        case .skipped: "skipped"
        case .failed: "failed"
        case .interrupted: "interrupted"
        }
    }

    /// Why it was not made, for a skipped or failed collage; `wording` says a failure.
    public func reason(wording: BatchWording = .plain) -> String? {
        switch outcome {
        case .saved, .planned, .kept: nil
        case let .skipped(skip): wording.skip(skip)
        case let .failed(failure): wording.failure(failure)
        case .interrupted: "the run was interrupted while it was being made: nothing written"
        }
    }

    /// Its line of `batch --report`: one JSON object, its keys in this
    /// order (a line per collage, so a crashed run's report is whole up to
    /// its last line), e.g. `{"collage":3,"line":9,"output":"/abs/out/collage-003.jpg",
    /// "status":"saved","photos":["/abs/a.jpg","/abs/b.jpg"],"reason":null}`;
    /// `line` is the group's first line; `output` is null for a collage not
    /// written (skipped or failed: a path there read as a file made). Written
    /// by hand rather than by JSONEncoder, whose key order is not the
    /// documented one unless sorted.
    public func reportLine(wording: BatchWording = .plain) -> String {
        let photos = group.photos.map { Self.json($0.path) }.joined(separator: ",")
        let reason = reason(wording: wording)
        let output = reason == nil ? Self.json(output) : "null"
        return "{\"collage\":\(group.number),\"line\":\(group.firstLine),\"output\":\(output),"
            + "\"status\":\"\(status)\",\"photos\":[\(photos)],\"reason\":\(reason.map(Self.json) ?? "null")}"
    }

    /// `text` as a JSON string, escaped by JSONEncoder (a String always encodes).
    private static func json(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return String(decoding: (try? encoder.encode(text)) ?? Data("null".utf8), as: UTF8.self)
    }
}

/// How many collages came to each end, counted with the words their lines
/// use (a summary that called a skipped collage failed contradicted them).
public struct BatchSummary: Equatable, Sendable {
    public var saved = 0
    /// Broke a collage rule: not attempted.
    public var skipped = 0
    /// Allowed, but writing failed.
    public var failed = 0
    /// Left alone by `--skip-existing`: neither made nor failed.
    public var kept = 0
    public var total: Int { saved + skipped + failed + kept }
    public var allSucceeded: Bool { skipped == 0 && failed == 0 }
}

/// Batch mode's logic: every collage of a list goes through its own
/// `CollageViewModel`, over a selection kept in memory, so the rules are the
/// interactive ones and the interactive selection is never read or changed.
public final class BatchViewModel: Sendable {
    private let options: BatchOptions
    private let inspector: PhotoInspecting
    private let renderer: CollageRendering
    private let writer: PhotoWriting
    private let resultsSubject = PassthroughSubject<BatchResult, Never>()
    /// The counts, the collages being made, and whether the run was
    /// interrupted; its lock also orders the results: one is sent at a time.
    private let tally = Locked(RunState())
    private struct RunState {
        var summary = BatchSummary()
        /// Started and not finished, in the order started.
        var underway: [BatchGroup] = []
        var interrupted = false
    }
    /// The output folder, made before the first collage is written (nil
    /// until then): a run that saves nothing (every collage kept, skipped or
    /// planned) leaves no empty folder behind. Made once; its failure is
    /// every collage's.
    private let folder = Locked<Result<Void, CollageFailure>?>(nil)

    /// One value per collage, as each finishes (in parallel runs, not
    /// necessarily in list order), from the worker that finished it.
    public var results: AnyPublisher<BatchResult, Never> { resultsSubject.eraseToAnyPublisher() }

    /// The services are the app's (`AppServices.batch`, which gives each
    /// collage's decoding its share of the cores) or a test's fakes.
    public init(options: BatchOptions, inspector: PhotoInspecting, renderer: CollageRendering, writer: PhotoWriting) {
        self.options = options
        // A dry run draws nothing: there `add` checks as it always does (a JPEG
        // whose structure is not plainly whole, and a GIF, drawn small).
        self.inspector = options.dryRun ? inspector : DrawnNext(inspector)
        self.renderer = renderer
        self.writer = writer
    }

    /// Makes every collage of `groups`, `options.jobs` at a time, pulling the
    /// next group from the sequence only when a job is free (so a list
    /// streams through in bounded memory). Blocks until all are done.
    public func run<Groups: Sequence>(_ groups: Groups) -> BatchSummary where Groups.Element == BatchGroup {
        let slots = DispatchSemaphore(value: options.jobs)
        let running = DispatchGroup()
        tally.withLock { $0 = RunState() }
        for group in groups where options.makes(group) {
            slots.wait()
            guard tally.withLock({ state in
                if !state.interrupted { state.underway.append(group) }
                return !state.interrupted
            }) else { break }
            running.enter()
            // Each job on its own serial queue, not on one shared concurrent
            // queue: a job blocks until its collage is saved, and the blocks
            // of a concurrent queue run on the same width-limited thread pool
            // (one thread per core) as the render they wait for. With every
            // pool thread blocked, libdispatch only adds a thread after about
            // a second: ten W6 collages took 2.9 s instead of 1.3 s.
            // Serial queues get their own threads.
            DispatchQueue(label: "collage.batch.job", qos: .userInitiated).async { [self] in
                let result = make(group)
                tally.withLock { state in
                    state.underway.removeAll { $0.number == group.number }
                    // Once interrupted, the run's account is closed (`interrupt`).
                    guard !state.interrupted else { return }
                    switch result.outcome {
                    case .kept: state.summary.kept += 1
                    case .saved, .planned: state.summary.saved += 1
                    case .skipped: state.summary.skipped += 1
                    case .failed: state.summary.failed += 1
                    case .interrupted: break  // never made here: `interrupt` says it
                    }
                    resultsSubject.send(result)
                }
                slots.signal()
                running.leave()
            }
        }
        running.wait()
        return tally.current.summary
    }

    /// Closes the run's account when it is interrupted (the process is about
    /// to end): no result is sent after this, no collage is started; what
    /// was done so far, and the collages being made, which are left
    /// unfinished (`BatchResult.interrupted`), in the order they were started.
    public func interrupt() -> (summary: BatchSummary, unfinished: [BatchResult]) {
        tally.withLock { state in
            state.interrupted = true
            let unfinished = state.underway.map { group in
                let render = (try? options.render(for: group)) ?? options.render
                return BatchResult(group: group, output: options.outputPath(for: group), layout: render.layout,
                                   title: render.title, outcome: .interrupted)
            }
            return (state.summary, unfinished)
        }
    }

    /// Creates the output folder the first time a collage is about to be
    /// written; why it cannot be, for this and every later collage.
    private func outputFolder() -> CollageFailure? {
        folder.withLock { folder in
            if folder == nil {
                folder = Result { try OutputFolder.create(options.outputDirectory.path) }
                    .mapError(CollageFailure.init)
            }
            if case let .failure(failure) = folder { return failure }
            return nil
        }
    }

    /// One collage: the rules through a CollageViewModel, then its save.
    func make(_ group: BatchGroup) -> BatchResult {
        let output = options.outputPath(for: group)
        let render: CollageRenderOptions
        do {
            render = try options.render(for: group)
        } catch {
            // Its #size line's size on paper is too large at --dpi: a problem
            // of its list (the earliest line's, if it has another).
            return BatchResult(group: group, output: output, layout: options.render.layout, title: options.render.title,
                               outcome: .skipped(.problem(group.problem ?? "\(error)")))
        }
        // Said at the add and again at the save: kept once.
        let notices = Locked<[PhotoNotice]>([])
        func result(_ outcome: BatchResult.Outcome) -> BatchResult {
            BatchResult(group: group, output: output, layout: render.layout, title: render.title, outcome: outcome,
                        notices: notices.current)
        }
        if let problem = group.problem { return result(.skipped(.problem(problem))) }
        // Before any file is read, and in a dry run too: `--size 1920x` is
        // valid with `--layout rows`, but not for a collage whose #layout is grid.
        if let open = render.size.openSide(for: render.layout) {
            // A side its #size line leaves open: that line's problem, not --size's.
            if let size = group.size { return result(.skipped(.problem("line \(size.line): \(open)"))) }
            return result(.skipped(.openSide(open, listed: group.layout != nil)))
        }
        let collage: CollageViewModel
        do {
            collage = try CollageViewModel(store: InMemorySelectionStore(), inspector: inspector,
                                           renderer: renderer, writer: writer) { notice in
                notices.withLock { $0.appendOnce(notice) }
            }
        } catch {
            return result(.failed(CollageFailure(error)))
        }
        let added = collage.add(group.photos)
        switch added {
        case let .refused(refusal): return result(.skipped(.refused(refusal)))
        case let .failed(failure): return result(.failed(failure))
        default: break
        }
        if let refusal = collage.saveRefusal { return result(.skipped(.refused(refusal))) }
        if options.skipExisting && !options.overwrite && FileManager.default.fileExists(atPath: output) {
            return result(.kept)
        }
        if let refusal = writer.refusal(toSave: URL(fileURLWithPath: output), overwrite: options.overwrite) {
            return result(.failed(CollageFailure(refusal)))
        }
        if options.dryRun { return result(.planned) }
        if let failure = outputFolder() { return result(.failed(failure)) }
        switch collage.save(to: URL(fileURLWithPath: output), options: render, overwrite: options.overwrite)
            .waitForCompletion() {
        case .success: return result(.saved)
        case let .failure(error):
            // Another run may have written it since the check above.
            return result(.failed((error as? CollageActionError)?.failure ?? CollageFailure(error)))
        }
    }
}

/// The inspector a batch's collages add through: each collage is drawn
/// right after it is added, and that draw says what `add`'s small draw would
/// have (issue #42: batch decoded every photo twice, 1.56x the time).
private struct DrawnNext: PhotoInspecting {
    let base: PhotoInspecting
    init(_ base: PhotoInspecting) { self.base = base }
    func inspect(_ photo: Photo) throws -> PhotoInfo { try base.inspect(photo) }
    func admit(_ photo: Photo) throws -> Admission { try base.admitForDrawing(photo) }
    func absence(of photo: Photo) -> PhotoAbsence? { base.absence(of: photo) }
}
