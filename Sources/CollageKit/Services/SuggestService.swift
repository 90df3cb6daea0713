import Dispatch
import Foundation

/// What `collage suggest` found: every photo considered in the order taken,
/// its measures and verdict, and the choice: one when not by events, else
/// one per event that has enough photos worth showing.
public struct SuggestionReport: Sendable {
    public let photos: [MeasuredPhoto]
    public let verdicts: [PhotoVerdict]
    /// Per collage, the chosen photos' indices in the order taken.
    public let choices: [[Int]]
    /// By events: those skipped for having fewer than two photos worth
    /// showing (event numbers, as in the verdicts).
    public let skippedEvents: [Int]
    /// Files that were no photo (content in no format the engine reads) and
    /// those that could not be read (unreadable, cut short, broken), with
    /// each one's reason.
    public let notPhotos: Int
    public let unreadable: [String]
    /// Folders that could not be listed, with the reason.
    public let unlistedFolders: [String]

    /// The event's photos in the order taken: indices.
    public func photos(ofEvent event: Int) -> [Int] { verdicts.indices.filter { verdicts[$0].event == event } }

    /// An event's title (`--events`' #title): its date in the locale's
    /// medium format, or the range of dates when it spans days, on the
    /// photos' own wall clocks (a day in Tokyo is that day wherever it is
    /// looked at).
    public func title(ofEvent event: Int, locale: Locale = CaptionSource.environmentLocale()) -> String {
        let clocks = photos(ofEvent: event).map { photos[$0].measures.taken.wallClock }
        return Self.dateTitle(from: clocks.min() ?? 0, to: clocks.max() ?? 0, locale: locale)
    }

    /// Wall-clock seconds (since 1970, read as UTC) as a medium date or range.
    public static func dateTitle(from first: Double, to last: Double, locale: Locale) -> String {
        let utc = TimeZone(identifier: "UTC")!
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        let (start, end) = (Date(timeIntervalSince1970: first), Date(timeIntervalSince1970: last))
        if calendar.isDate(start, inSameDayAs: end) { return CaptionSource.mediumDate(wallClock: first, locale: locale) }
        let formatter = DateIntervalFormatter()
        formatter.locale = locale
        formatter.timeZone = utc
        formatter.dateStyle = .medium
        formatter.timeStyle = .none
        return formatter.string(from: start, to: end)
    }
}

/// Suggests photos of one folder: the photos screen's `S`.
public protocol PhotoSuggesting: Sendable {
    /// The best of the folder's photos (`SuggestionChoice`'s default
    /// count), in the order taken.
    func suggest(in folder: Photo) throws -> [Photo]
}

/// Finds the photos under some paths, measures them (in parallel over the
/// cores, through the cache), and chooses (`SuggestionChoice`).
public final class SuggestService: @unchecked Sendable {
    private let measurer: PhotoMeasuring
    private let browser: DirectoryBrowsing
    private let threads: Int
    private var cache: MeasuresCache?

    /// `cache` nil: measure everything afresh and keep nothing.
    public init(measurer: PhotoMeasuring, browser: DirectoryBrowsing = FileSystemBrowser(), cache: MeasuresCache?,
                threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.measurer = measurer
        self.browser = browser
        self.cache = cache
        self.threads = max(1, threads)
    }

    /// The files under `paths`: a file as it is, a folder's files (not
    /// hidden ones), and with `recursive` its folders' too (each real folder once: a symbolic link
    /// back up the tree is not a loop). A path that is neither is a failure;
    /// a folder inside that cannot be listed is reported, not fatal.
    public func files(under paths: [Photo], recursive: Bool) throws -> (files: [Photo], unlisted: [String]) {
        var files: [Photo] = []
        var unlisted: [String] = []
        var seen = Set<[UInt64]>()
        func identity(_ folder: Photo) -> [UInt64]? {
            var info = stat()
            guard folder.withFileSystemPath({ stat($0, &info) }) == 0 else { return nil }
            return [UInt64(info.st_dev), UInt64(info.st_ino)]
        }
        func walk(_ folder: Photo, top: Bool) throws {
            if let id = identity(folder) {
                guard seen.insert(id).inserted else { return }
            }
            let listing: DirectoryListing
            do {
                listing = try browser.list(folder)
            } catch {
                if top { throw error }
                unlisted.append("\(error)")
                return
            }
            // Hidden files and folders are left out, as the photos screen
            // leaves them out until asked.
            // Sorted as text (exact bytes where that ties): quick for
            // 100,000 names, where Foundation's natural order took seconds;
            // the order only makes the reports the same run after run.
            files += listing.files.filter { !$0.fileName.hasPrefix(".") }.sorted {
                $0.path != $1.path ? $0.path < $1.path : $0.fileSystemPath.lexicographicallyPrecedes($1.fileSystemPath)
            }
            if recursive { for sub in listing.folders where !sub.isHidden { try walk(sub.file, top: false) } }
        }
        for path in paths {
            var info = stat()
            guard path.withFileSystemPath({ stat($0, &info) }) == 0 else {
                throw CollageFailure(.folder, path: path.path,
                                     message: "cannot read \(path.path): \(String(cString: strerror(errno)))")
            }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                try walk(path, top: true)
            } else {
                files.append(path)
            }
        }
        return (files, unlisted)
    }

    /// Measures, groups and chooses. `progress` is told (done, total) as
    /// photos are measured, from any thread.
    public func suggest(_ paths: [Photo], recursive: Bool, choice: SuggestionChoice, byEvents: Bool,
                        progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) throws -> SuggestionReport {
        let (files, unlisted) = try self.files(under: paths, recursive: recursive)
        let measured = measureAll(files, progress: progress)
        var photos = measured.photos
        photos.sort { ($0.measures.taken.instant, $0.photo.path) < ($1.measures.taken.instant, $1.photo.path) }

        var verdicts = choice.judge(photos)
        let scopes: [[Int]] = byEvents
            ? Dictionary(grouping: verdicts.indices, by: { verdicts[$0].event }).sorted { $0.key < $1.key }.map(\.value)
            : [Array(verdicts.indices)]
        var choices: [[Int]] = []
        var skipped: [Int] = []
        // Faces only where they could change a pick, `threads` photos at a time.
        for scope in scopes {
            let chosen = choice.settle(&verdicts, photos: &photos, running: choice.running(verdicts, among: scope),
                                       among: scope, batch: threads) { asked, photos in lookForFaces(asked, in: &photos) }
            if chosen.isEmpty && byEvents { skipped.append(verdicts[scope[0]].event) } else { choices.append(chosen) }
        }
        try cache?.save()
        return SuggestionReport(photos: photos, verdicts: verdicts, choices: choices, skippedEvents: skipped,
                                notPhotos: measured.notPhotos, unreadable: measured.unreadable, unlistedFolders: unlisted)
    }

    /// Each file's measures, from the cache when it knows the file as it is
    /// now, else from the measurer, on `threads` workers: the photos (in no
    /// order), how many files were no photo, and why each unreadable one
    /// could not be read (in the files' order). Only a photo's small value is
    /// kept, and of a file that is no photo only the count: 100,000 entries
    /// are a few megabytes.
    private func measureAll(_ files: [Photo], progress: @escaping @Sendable (Int, Int) -> Void)
        -> (photos: [MeasuredPhoto], notPhotos: Int, unreadable: [String]) {
        let known = cache
        let photos = Locked([MeasuredPhoto]()), fresh = Locked([(MeasuredPhoto, FileStamp)]())
        let notPhotos = Locked(0), unreadable = Locked([(Int, String)]())
        let next = Locked(0), finished = Locked(0)
        let measurer = self.measurer
        DispatchQueue.concurrentPerform(iterations: min(threads, max(1, files.count))) { _ in
            while true {
                let index: Int = next.withLock { value in
                    value += 1
                    return value - 1
                }
                guard index < files.count else { return }
                let photo = files[index]
                if let stamp = FileStamp.of(photo) {
                    if let measures = known?.measures(of: photo, stamp: stamp) {
                        photos.withLock { $0.append(MeasuredPhoto(photo: photo, measures: measures)) }
                    } else {
                        do {
                            let measured = MeasuredPhoto(photo: photo, measures: try measurer.measure(photo, fileTime: stamp.modified))
                            photos.withLock { $0.append(measured) }
                            fresh.withLock { $0.append((measured, stamp)) }
                        } catch let error as ImageEngineError where error.kind == .notImage {
                            notPhotos.withLock { $0 += 1 }
                        } catch let error as ImageEngineError {
                            unreadable.withLock { $0.append((index, error.message)) }
                        } catch {
                            unreadable.withLock { $0.append((index, "\(photo.path): \(error)")) }
                        }
                    }
                } else {
                    unreadable.withLock { $0.append((index, "\(photo.path): not a regular file that can be read")) }
                }
                progress(finished.withLock { count in
                    count += 1
                    return count
                }, files.count)
            }
        }
        for (photo, stamp) in fresh.current { cache?.store(photo.measures, of: photo.photo, stamp: stamp) }
        return (photos.current, notPhotos.current, unreadable.current.sorted { $0.0 < $1.0 }.map(\.1))
    }

    /// Faces for the photos at `indices` that have none yet, in parallel;
    /// a photo the search fails on counts as without faces. Each photo's
    /// search is asked once: its count is kept in its measures (and the
    /// cache), whichever event asks.
    private func lookForFaces(_ indices: [Int], in photos: inout [MeasuredPhoto]) {
        let wanted = indices.filter { photos[$0].measures.faces == nil }
        guard !wanted.isEmpty else { return }
        let found = Locked([Int](repeating: 0, count: wanted.count))
        let next = Locked(0)
        let snapshot = photos
        let measurer = self.measurer
        DispatchQueue.concurrentPerform(iterations: min(threads, wanted.count)) { _ in
            while true {
                let k: Int = next.withLock { value in
                    value += 1
                    return value - 1
                }
                guard k < wanted.count else { return }
                let faces = (try? measurer.countFaces(snapshot[wanted[k]].photo)) ?? 0
                found.withLock { $0[k] = faces }
            }
        }
        for (k, i) in wanted.enumerated() {
            photos[i].measures.faces = found.current[k]
            if let stamp = FileStamp.of(photos[i].photo) { cache?.store(photos[i].measures, of: photos[i].photo, stamp: stamp) }
        }
    }
}

extension SuggestService: PhotoSuggesting {
    public func suggest(in folder: Photo) throws -> [Photo] {
        let report = try suggest([folder], recursive: false, choice: SuggestionChoice(), byEvents: false)
        guard let chosen = report.choices.first, !chosen.isEmpty else {
            throw CollageFailure(.folder, path: folder.path, message: "fewer than two photos worth showing here")
        }
        return chosen.map { report.photos[$0].photo }
    }
}
