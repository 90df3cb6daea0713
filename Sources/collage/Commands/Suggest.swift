import ArgumentParser
import CollageKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

struct Suggest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggest",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Choose the best photos of folders for a collage.",
        discussion: """
            Looks at every photo under the paths (\(ImageFormat.readTitles)) and
            prints the best --count, one path a line, in the order they were taken.
            Best: of near-duplicates (a burst, the same scene again) only the
            sharpest, well-exposed shot; nothing nearly black, white or blank;
            photos with faces preferred, and shapes that fit --size; spread over
            the time the photos span. Fewer (still an even number) when fewer are
            worth showing. --json explains every photo's measures and verdict.
            With --events: one collage per event (a gap in time much longer than
            the photos' usual gap starts one), printed as a `collage batch` list
            with a #title of its date. Files that are no photo or cannot be read
            are skipped and counted. Measures are cached in
            $XDG_CACHE_HOME/collage/, so a second run is quick.
            """)

    @Argument(help: ArgumentHelp("Photos, or folders of photos.", valueName: "path"), completion: .file())
    var paths: [String]

    @Option(help: ArgumentHelp("How many photos to choose: 2, 4 or 6.", valueName: "n"),
            completion: .list(SuggestionChoice.counts.map(String.init)))
    var count: Int = SuggestionChoice.defaultCount

    /// The canvas the photos are for, whose shape they should fit (`--size`: the root command's, see CanvasSizeOption).
    @OptionGroup var canvas: CanvasSizeOption
    var size: SizeRequest { canvas.size }

    @Flag(help: "Look in folders inside the folders too.")
    var recursive = false

    @Flag(help: "One collage per event: print a `collage batch` list with a #title per event.")
    var events = false

    @Flag(help: "Add the chosen photos to the collage (all or nothing, as `collage add`).")
    var add = false

    @Flag(help: "Print one JSON object: every photo's measures, duplicate group, event, score, and why it was not chosen.")
    var json = false

    @OptionGroup var limits: LimitOptionGroup

    func validate() throws {
        if paths.isEmpty { throw ValidationError("name at least one photo or folder to choose from") }
        if !SuggestionChoice.counts.contains(count) {
            throw ValidationError("--count \(count) is not one of 2, 4 or 6")
        }
        if size.aspectRatio == nil { throw ValidationError("--size needs both sides, e.g. 1920x1080") }
        if add && events { throw ValidationError("--add and --events do not go together: --events makes a list for `collage batch`") }
        if add && json { throw ValidationError("--add and --json do not go together") }
    }

    func run() throws {
        let photos = RawArguments.bytes(of: paths).map { Photo(resolvingFileSystemPath: $0) }
        let engine = ImageEngine(maxDecodedPixels: limits.maxPixels.pixels)
        let cache = MeasuresCache()
        if cache.wasDamaged { Console.warning("\(cache.file.path) was damaged: measuring again") }
        let service = SuggestService(measurer: engine, cache: cache)
        let choice = SuggestionChoice(count: count, canvasShape: size.aspectRatio!)
        let progress = ProgressLine()
        // Interrupted while measuring: the progress line cleared, the
        // selection untouched (--add adds only at the end), then the signal's death.
        Interruption.onSignal { signal in
            progress.finish()
            Console.error("\(Interruption.name(signal)): nothing suggested")
        }
        let report: SuggestionReport
        do {
            report = try service.suggest(photos, recursive: recursive, choice: choice, byEvents: events,
                                         progress: { progress.show($0, $1) })
        } catch {
            progress.finish()
            Console.error("\(error)")
            throw ExitCode.failure
        }
        progress.finish()
        summarise(report)
        if json {
            print(SuggestionJSON.text(report, count: count, size: size))
            return
        }
        if events {
            for event in report.skippedEvents {
                Console.warning("skipped the event of \(report.title(ofEvent: event)): fewer than two photos worth showing")
            }
            guard !report.choices.isEmpty else { fail(report) }
            print(EventList.text(report), terminator: "")
            return
        }
        guard let chosen = report.choices.first, !chosen.isEmpty else { fail(report) }
        if add {
            try Add.add(chosen.map { report.photos[$0].photo }, maxDecodedPixels: limits.maxPixels.pixels)
        } else {
            for index in chosen { writeLine(report.photos[index].photo.fileSystemPath) }
        }
    }

    private func fail(_ report: SuggestionReport) -> Never {
        Console.error("fewer than two photos worth showing under \(paths.joined(separator: ", ")) (\(report.photos.count) photos looked at)")
        Foundation.exit(ExitCode.failure.rawValue)
    }

    /// What was skipped, in one line.
    private func summarise(_ report: SuggestionReport) {
        var parts: [String] = []
        if report.notPhotos > 0 { parts.append("\(report.notPhotos) not \(report.notPhotos == 1 ? "a photo" : "photos")") }
        if !report.unreadable.isEmpty { parts.append("\(report.unreadable.count) unreadable (\(report.unreadable[0]))") }
        if !report.unlistedFolders.isEmpty {
            parts.append("\(report.unlistedFolders.count) \(report.unlistedFolders.count == 1 ? "folder" : "folders") not readable (\(report.unlistedFolders[0]))")
        }
        guard !parts.isEmpty else { return }
        Console.warning("skipped \(parts.joined(separator: ", "))")
    }
}

/// A path as its exact bytes and a line break, on standard output.
private func writeLine(_ bytes: [UInt8]) {
    FileHandle.standardOutput.write(Data(bytes + [UInt8(ascii: "\n")]))
}

/// "Measuring 120 of 800 photos" on standard error, rewritten in place, on a
/// terminal only (a script reading stderr gets no carriage returns).
private final class ProgressLine: @unchecked Sendable {
    private let enabled = isatty(STDERR_FILENO) == 1
    private let shown = Locked((done: 0, at: 0.0))

    func show(_ done: Int, _ total: Int) {
        guard enabled else { return }
        let now = Date().timeIntervalSince1970
        let due: Bool = shown.withLock { last in
            guard done == total || now - last.at >= 0.1 else { return false }
            last = (done, now)
            return true
        }
        if due { FileHandle.standardError.write(Data("\rMeasuring \(done) of \(total) photos".utf8)) }
    }

    func finish() {
        guard enabled, shown.current.at > 0 else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}

/// The `--events` list, in `collage batch`'s format: per event a #title
/// line and its photos, a blank line between events.
enum EventList {
    static func text(_ report: SuggestionReport) -> String {
        var blocks: [String] = []
        for chosen in report.choices where !chosen.isEmpty {
            var lines = ["#title \(report.title(ofEvent: report.verdicts[chosen[0]].event))"]
            for index in chosen {
                let path = report.photos[index].photo.path
                // A list holds one path a line, as text.
                guard report.photos[index].photo.pathIsExact, !path.contains("\n"), !path.contains("\r") else {
                    Console.warning("\(Console.printable(path)): a name a batch list cannot hold: left out")
                    continue
                }
                lines.append(path)
            }
            blocks.append(lines.joined(separator: "\n") + "\n")
        }
        return blocks.joined(separator: "\n")
    }
}

/// `--json`: the choice, and every photo with its measures and verdict.
enum SuggestionJSON {
    struct Exposure: Encodable {
        let dark: Double, bright: Double, mean: Double
    }

    struct Entry: Encodable {
        let path: String
        let taken: String
        let taken_from: String
        let width: Int, height: Int
        let measured_on: String
        let sharpness: Double
        let exposure: Exposure
        let faces: Int?
        let duplicate_group: Int
        let event: Int
        let score: Double?
        let chosen: Bool
        let why_not: String?
    }

    struct Document: Encodable {
        let count: Int
        let size: String
        let chosen: [[String]]
        let skipped_events: [Int]
        let not_photos: Int
        let unreadable: [String]
        let photos: [Entry]
    }

    static func text(_ report: SuggestionReport, count: Int, size: SizeRequest) -> String {
        func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
        let entries = zip(report.photos, report.verdicts).map { photo, verdict in
            let m = photo.measures
            return Entry(path: photo.photo.path, taken: m.taken.iso8601, taken_from: m.taken.fromCamera ? "exif" : "file",
                         width: m.width, height: m.height, measured_on: m.fromThumbnail ? "embedded thumbnail" : "smallest decode",
                         sharpness: rounded(m.sharpness),
                         exposure: Exposure(dark: rounded(m.darkShare), bright: rounded(m.brightShare), mean: rounded(m.meanLevel)),
                         faces: m.faces, duplicate_group: verdict.group, event: verdict.event,
                         score: verdict.score.map(rounded), chosen: verdict.chosen, why_not: verdict.whyNot)
        }
        let document = Document(count: count, size: size.description,
                                chosen: report.choices.map { $0.map { report.photos[$0].photo.path } },
                                skipped_events: report.skippedEvents, not_photos: report.notPhotos,
                                unreadable: report.unreadable, photos: entries)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(document)) ?? Data(), as: UTF8.self)
    }
}
