import ArgumentParser
import CollageKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

struct Suggest: ServicedCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggest",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Choose the best photos of folders for a collage.",
        discussion: """
            Looks at every photo under the paths (\(ImageFormat.readTitles)) and
            prints the best --count, one path a line, in the order they were taken.
            Best: of near-duplicates (a burst, the same scene again, an exposure
            bracket) only the sharpest, well-exposed, largest shot; nothing nearly
            black, white or blank; photos with faces preferred, and shapes that
            fit --size; spread over the time the photos span. A photo its cell
            at --size would enlarge past 2x, or one cut short or corrupt, only
            when no other is left. Fewer (still an even number) when fewer are
            worth showing. --json explains every photo's measures and verdict.
            With --events: one collage per event (a gap in time much longer than
            the photos' usual gap, or over a day, starts one), printed as a
            `collage batch` list with a #title of its place and date ("Arezzo ·
            Oct 22, 2008": the nearest town to the photos' GPS positions, from
            GeoNames' places carried offline, else the date alone). A photo's date is
            the camera's (EXIF), never the file's: photos without one are a
            group of their own, titled by their folder's name, after the rest.
            With --add: as many as fill the collage's free places. Files that
            are no photo or cannot be read are skipped and named. Links to
            folders are not entered without --follow-links. Measures are cached
            in $XDG_CACHE_HOME/collage/, so a second run is quick.
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

    @Flag(help: "With --recursive, enter links to folders too (a path named is always followed).")
    var followLinks = false

    @Flag(help: "One collage per event: print a `collage batch` list with a #title per event.")
    var events = false

    @Flag(help: "Add the chosen photos to the collage (all or nothing, as `collage add`).")
    var add = false

    @Flag(help: "Print one JSON object: every photo's measures, duplicate group, event, score, and why it was not chosen.")
    var json = false

    @OptionGroup var limits: LimitOptionGroup
    var pixelLimit: PixelLimit { limits.maxPixels }

    func validate() throws {
        if paths.isEmpty { throw ValidationError("name at least one photo or folder to choose from") }
        if !SuggestionChoice.counts.contains(count) {
            throw ValidationError("--count \(count) is not one of 2, 4 or 6")
        }
        if size.aspectRatio == nil { throw ValidationError("--size needs both sides, e.g. 1920x1080") }
        if add && events { throw ValidationError("--add and --events do not go together: --events makes a list for `collage batch`") }
        if add && json { throw ValidationError("--add and --json do not go together") }
    }

    func run(with services: AppServices) throws {
        let photos = RawArguments.bytes(of: paths).map { Photo(resolvingFileSystemPath: $0) }
        let cache = MeasuresCache()
        if cache.wasDamaged { Console.warning("\(cache.file.path) was damaged: measuring again") }
        let cacheWarning = cache.warning
        if let cacheWarning { Console.warning(cacheWarning) }
        let service = services.suggester(cache: cache)
        var choice = SuggestionChoice(count: count, canvasShape: size.aspectRatio!, canvasArea: size.pixelArea)
        // --add fills the collage's free places, never with a photo in it.
        var alreadyIn: [Photo] = []
        if add {
            alreadyIn = try makeCollageViewModel(services).currentState.photos.map { $0.focused(nil) }
            guard let filling = SuggestionChoice.filling(alreadyIn: alreadyIn.count, canvasShape: choice.canvasShape,
                                                         canvasArea: choice.canvasArea) else {
                Console.error("the collage is full (\(alreadyIn.count) photos): nothing to add")
                throw ExitCode.failure
            }
            choice = filling
            choice.count = min(count, filling.count)
        }
        let progress = ProgressLine()
        // Interrupted while measuring: the progress line cleared, the
        // selection untouched (--add adds only at the end), then the signal's death.
        Interruption.onSignal { signal in
            progress.finish()
            Console.error("\(Interruption.name(signal)): nothing suggested")
        }
        let report: SuggestionReport
        do {
            report = try service.suggest(photos, recursive: recursive, followLinks: followLinks, choice: choice,
                                         byEvents: events, alreadyIn: alreadyIn, progress: { progress.show($0, $1) })
        } catch {
            progress.finish()
            Console.error("\(error)")
            throw ExitCode.failure
        }
        progress.finish()
        // A write that failed on the way (a full disk), said once.
        if cacheWarning == nil, let warning = cache.warning { Console.warning(warning) }
        summarise(report, roots: photos)
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
        guard let chosen = report.choices.first, !chosen.isEmpty else { fail(report, alreadyIn: alreadyIn.count) }
        if add {
            if !alreadyIn.isEmpty {
                Console.note("the collage holds \(alreadyIn.count) \(alreadyIn.count == 1 ? "photo" : "photos"): "
                             + "adding \(chosen.count) to make \(alreadyIn.count + chosen.count)")
            }
            try Add.add(chosen.map { report.photos[$0].photo }, services: services)
        } else {
            for index in chosen { writeLine(report.photos[index].photo.fileSystemPath) }
        }
    }

    private func fail(_ report: SuggestionReport, alreadyIn: Int = 0) -> Never {
        let under = paths.joined(separator: ", ")
        Console.error(alreadyIn > 0
            ? "no photos worth adding to the \(alreadyIn) in the collage under \(under) (\(report.photos.count) photos looked at)"
            : "fewer than two photos worth showing under \(under) (\(report.photos.count) photos looked at)")
        Foundation.exit(ExitCode.failure.rawValue)
    }

    /// How many files a summary names before it counts the rest.
    static let namedInSummary = 3

    /// Files as a person finds them: each path as given under the path
    /// named that holds it (its name alone for a folder's own file), the
    /// first few, then how many more (--json lists them all).
    static func named(_ files: [Photo], under roots: [Photo]) -> String {
        let shown = files.prefix(namedInSummary).map { file -> String in
            for root in roots {
                let prefix = root.fileSystemPath + (root.fileSystemPath.last == UInt8(ascii: "/") ? [] : [UInt8(ascii: "/")])
                if file.fileSystemPath.starts(with: prefix) {
                    return Console.printable(Photo(fileSystemPath: Array(file.fileSystemPath.dropFirst(prefix.count))).path)
                }
            }
            return Console.printable(file.path)
        }
        let more = files.count - shown.count
        return shown.joined(separator: ", ") + (more > 0 ? " and \(more) more" : "")
    }

    /// What was skipped, in one line, and the photos without a date.
    private func summarise(_ report: SuggestionReport, roots: [Photo]) {
        var parts: [String] = []
        let notPhotos = report.notPhotos.count
        if notPhotos > 0 {
            parts.append("\(notPhotos) not \(notPhotos == 1 ? "a photo" : "photos"): \(Self.named(report.notPhotos, under: roots))")
        }
        if !report.unreadable.isEmpty {
            let more = report.unreadable.count - 1
            parts.append("\(report.unreadable.count) unreadable (\(report.unreadable[0])\(more > 0 ? " and \(more) more" : ""))")
        }
        if !report.unlistedFolders.isEmpty {
            parts.append("\(report.unlistedFolders.count) \(report.unlistedFolders.count == 1 ? "folder" : "folders") not readable (\(report.unlistedFolders[0]))")
        }
        let links = report.unfollowedLinks.count
        if links > 0 {
            parts.append("\(links) \(links == 1 ? "link" : "links") to a folder, not entered without --follow-links: "
                         + Self.named(report.unfollowedLinks, under: roots))
        }
        if !parts.isEmpty { Console.warning("skipped \(parts.joined(separator: "; "))") }
        let undated = report.undated
        if !undated.isEmpty {
            let title = report.title(ofEvent: report.verdicts[undated[0]].event)
            Console.warning("\(undated.count) \(undated.count == 1 ? "photo has" : "photos have") no capture date (EXIF): "
                         + (events ? "one group of their own, titled \(Console.printable(title)), after the dated events"
                                   : "they count as taken after the dated ones"))
        }
    }
}

/// A path as its exact bytes and a line break, on standard output.
private func writeLine(_ bytes: [UInt8]) {
    FileHandle.standardOutput.write(Data(bytes + [UInt8(ascii: "\n")]))
}

/// "Measuring 120 of 800 photos" on standard error, rewritten in place, on a
/// terminal only (a script reading stderr gets no carriage returns). Also `book`'s.
final class ProgressLine: Sendable {
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
                // A list holds one path a line, as text. (By its bytes:
                // String.contains(String) searches through Foundation.)
                guard report.photos[index].photo.pathIsExact, !path.utf8.contains(where: { $0 == 10 || $0 == 13 }) else {
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

    /// `taken` is written as null when a photo has none (an absent key
    /// would read as a field the tool forgot).
    struct Entry: Encodable {
        let path: String
        let taken: String?
        let taken_from: String
        let position: GeoPosition?
        let place: String?
        let width: Int, height: Int
        let measured_on: String
        let sharpness: Double
        let exposure: Exposure
        let faces: Int?
        let duplicate_group: Int
        let event: Int
        let score: Double?
        let enlarged: Double?
        let corrupt_data: Int
        let chosen: Bool
        let why_not: String?

        enum CodingKeys: String, CodingKey {
            case path, taken, taken_from, position, place, width, height, measured_on, sharpness, exposure, faces, duplicate_group, event,
                 score, enlarged, corrupt_data, chosen, why_not
        }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(path, forKey: .path)
            try c.encode(taken, forKey: .taken)
            try c.encode(taken_from, forKey: .taken_from)
            try c.encodeIfPresent(position, forKey: .position)
            try c.encodeIfPresent(place, forKey: .place)
            try c.encode(width, forKey: .width)
            try c.encode(height, forKey: .height)
            try c.encode(measured_on, forKey: .measured_on)
            try c.encode(sharpness, forKey: .sharpness)
            try c.encode(exposure, forKey: .exposure)
            try c.encodeIfPresent(faces, forKey: .faces)
            try c.encode(duplicate_group, forKey: .duplicate_group)
            try c.encode(event, forKey: .event)
            try c.encodeIfPresent(score, forKey: .score)
            try c.encodeIfPresent(enlarged, forKey: .enlarged)
            try c.encode(corrupt_data, forKey: .corrupt_data)
            try c.encode(chosen, forKey: .chosen)
            try c.encodeIfPresent(why_not, forKey: .why_not)
        }
    }

    struct Document: Encodable {
        let count: Int
        let size: String
        let chosen: [[String]]
        let skipped_events: [Int]
        let not_photos: Int
        let not_photo_files: [String]
        let unreadable: [String]
        let links_not_followed: [String]
        let photos: [Entry]
    }

    static func text(_ report: SuggestionReport, count: Int, size: SizeRequest) -> String {
        func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
        let entries = zip(report.photos, report.verdicts).map { photo, verdict in
            let m = photo.measures
            return Entry(path: photo.photo.path, taken: m.taken?.iso8601, taken_from: m.taken == nil ? "none" : "exif",
                         position: m.position, place: m.position.flatMap { report.places?.name(of: $0)?.words },
                         width: m.width, height: m.height, measured_on: m.fromThumbnail ? "embedded thumbnail" : "smallest decode",
                         sharpness: rounded(m.sharpness),
                         exposure: Exposure(dark: rounded(m.darkShare), bright: rounded(m.brightShare), mean: rounded(m.meanLevel)),
                         faces: m.faces, duplicate_group: verdict.group, event: verdict.event,
                         score: verdict.score.map(rounded), enlarged: verdict.enlarged.map { ($0 * 100).rounded() / 100 },
                         corrupt_data: m.corruptData, chosen: verdict.chosen, why_not: verdict.whyNot)
        }
        let document = Document(count: count, size: size.description,
                                chosen: report.choices.map { $0.map { report.photos[$0].photo.path } },
                                skipped_events: report.skippedEvents, not_photos: report.notPhotos.count,
                                not_photo_files: report.notPhotos.map(\.path), unreadable: report.unreadable,
                                links_not_followed: report.unfollowedLinks.map(\.path), photos: entries)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(document)) ?? Data(), as: UTF8.self)
    }
}
