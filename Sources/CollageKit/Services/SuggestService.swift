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
    /// Files that were no photo (content in no format the engine reads), in
    /// the order found, and those that could not be read (unreadable, cut
    /// short, broken), with each one's reason.
    public let notPhotos: [Photo]
    public let unreadable: [String]
    /// Folders that could not be listed, with the reason.
    public let unlistedFolders: [String]
    /// Links to folders that were not entered (without `followLinks`).
    public var unfollowedLinks: [Photo] = []
    /// Names the places of the photos' GPS positions in event titles; nil:
    /// titles by date alone.
    public var places: PlaceNaming? = nil
    /// Each event's photos, found once: a title asked of each of a
    /// library's 1,000 events would otherwise look through all its 100,000
    /// verdicts each time.
    private let members: [Int: [Int]]

    init(photos: [MeasuredPhoto], verdicts: [PhotoVerdict], choices: [[Int]], skippedEvents: [Int], notPhotos: [Photo],
         unreadable: [String], unlistedFolders: [String], unfollowedLinks: [Photo] = [], places: PlaceNaming? = nil) {
        self.photos = photos
        self.verdicts = verdicts
        self.choices = choices
        self.skippedEvents = skippedEvents
        self.notPhotos = notPhotos
        self.unreadable = unreadable
        self.unlistedFolders = unlistedFolders
        self.unfollowedLinks = unfollowedLinks
        self.places = places
        members = Dictionary(grouping: verdicts.indices, by: { verdicts[$0].event })
    }

    /// The event's photos in the order taken: indices.
    public func photos(ofEvent event: Int) -> [Int] { members[event] ?? [] }

    /// The locale of the environment, read once (not for each title).
    public static let environmentLocale = CaptionSource.environmentLocale()

    /// The photos without a capture date: indices (the last, in one event).
    public var undated: [Int] { photos.indices.filter { photos[$0].measures.taken == nil } }

    /// An event's title (`--events`' #title): where its photos were taken
    /// when their GPS says (`PlaceNaming.title(of:)`: "Arezzo", or "Arezzo –
    /// Florence" for photos more than 25 km apart), a middle dot, and its
    /// date in the locale's medium format, or the range of dates when it
    /// spans days, on the photos' own wall clocks (a day in Tokyo is that day
    /// wherever it is looked at): "Arezzo · Oct 22, 2008". For the undated
    /// photos' event, their folder's name.
    public func title(ofEvent event: Int, locale: Locale = SuggestionReport.environmentLocale) -> String {
        let members = photos(ofEvent: event)
        let clocks = members.compactMap { photos[$0].measures.taken?.wallClock }
        guard !clocks.isEmpty else { return Self.folderTitle(members.map { photos[$0].photo }) }
        let date = Self.dateTitle(from: clocks.min() ?? 0, to: clocks.max() ?? 0, locale: locale)
        guard let place = places?.title(of: members.compactMap { photos[$0].measures.position }) else { return date }
        return "\(place) · \(date)"
    }

    /// The name of the deepest folder holding all `photos`.
    public static func folderTitle(_ photos: [Photo]) -> String {
        var common = photos.first.map { $0.parent.fileSystemPath } ?? []
        for photo in photos.dropFirst() {
            let path = photo.parent.fileSystemPath
            var length = zip(common, path).prefix { $0 == $1 }.count
            // Whole names only: "/a/trip" and "/a/tripod" share "/a".
            if !(length == common.count && (length == path.count || path[length] == UInt8(ascii: "/")))
                && !(length == path.count && (length == common.count || common[length] == UInt8(ascii: "/"))) {
                while length > 0 && common[length - 1] != UInt8(ascii: "/") { length -= 1 }
                length = max(length - 1, 1)
            }
            common = Array(common.prefix(length))
        }
        let folder = Photo(fileSystemPath: common)
        return common.count > 1 ? folder.fileName : folder.path
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
    /// The best of the folder's photos, in the order taken, to fill the
    /// collage's free places: `SuggestionChoice`'s default count less
    /// `alreadyIn`'s count (the collage's total even), never one of them.
    func suggest(in folder: Photo, alreadyIn: [Photo]) throws -> [Photo]
}

/// Finds the photos under some paths, measures them (in parallel over the
/// cores, through the cache), and chooses (`SuggestionChoice`).
public final class SuggestService: Sendable {
    private let measurer: PhotoMeasuring
    private let browser: DirectoryBrowsing
    private let threads: Int
    private let cache: MeasuresCache?
    private let places: PlaceNaming?

    /// `cache` nil: measure everything afresh and keep nothing. `places`
    /// names where photos were taken in event titles (nil: dates alone).
    public init(measurer: PhotoMeasuring, browser: DirectoryBrowsing = FileSystemBrowser(), cache: MeasuresCache?,
                places: PlaceNaming? = GeoNamesPlaces(), threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.measurer = measurer
        self.places = places
        self.browser = browser
        self.cache = cache
        self.threads = max(1, threads)
    }

    /// The files under `paths`: a file as it is, a folder's files (not
    /// hidden ones), and with `recursive` its folders' too (each real folder
    /// once). A path named is followed even when it is a link; inside, a
    /// link to a file is that file, but a link to a folder is entered only
    /// with `followLinks` (as `find` does), so that the folder given is the
    /// folder searched: `d/loop -> ../..` would search d's parents. A path
    /// that is neither is a failure; a folder inside that cannot be listed is
    /// reported, not fatal.
    public func files(under paths: [Photo], recursive: Bool, followLinks: Bool = false) throws
        -> (files: [Photo], unlisted: [String], unfollowed: [Photo]) {
        var files: [Photo] = []
        var unlisted: [String] = []
        var unfollowed: [Photo] = []
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
            // (By the name's bytes: `fileName` makes a URL, which stats the file.)
            files += listing.files.filter { file in
                let path = file.fileSystemPath
                return path.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 < path.count && path[$0 + 1] != UInt8(ascii: ".") } ?? true
            }.sorted {
                $0.path < $1.path || ($0.path == $1.path && $0.fileSystemPath.lexicographicallyPrecedes($1.fileSystemPath))
            }
            guard recursive else { return }
            for sub in listing.folders where !sub.isHidden {
                var info = stat()
                if !followLinks, sub.file.withFileSystemPath({ lstat($0, &info) }) == 0, (info.st_mode & S_IFMT) == S_IFLNK {
                    unfollowed.append(sub.file)
                    continue
                }
                try walk(sub.file, top: false)
            }
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
        return (files, unlisted, unfollowed)
    }

    /// Measures, groups and chooses. `alreadyIn`: photos in the collage
    /// already, never chosen, nor their near-duplicates. `progress` is told
    /// (done, total) as photos are measured, from any thread.
    public func suggest(_ paths: [Photo], recursive: Bool, followLinks: Bool = false, choice: SuggestionChoice,
                        byEvents: Bool, alreadyIn: [Photo] = [],
                        progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) throws -> SuggestionReport {
        let (files, unlisted, unfollowed) = try self.files(under: paths, recursive: recursive, followLinks: followLinks)
        let measured = measureAll(files, progress: progress)
        var photos = measured.photos
        // In the order taken; the undated last, by path.
        photos.sort {
            ($0.measures.taken?.instant ?? .infinity, $0.photo.path) < ($1.measures.taken?.instant ?? .infinity, $1.photo.path)
        }

        var verdicts = choice.judge(photos)
        choice.setAside(&verdicts, photos: photos, alreadyIn: Set(alreadyIn))
        let scopes: [[Int]] = byEvents
            ? Dictionary(grouping: verdicts.indices, by: { verdicts[$0].event }).sorted { $0.key < $1.key }.map(\.value)
            : [Array(verdicts.indices)]
        var choices: [[Int]] = []
        var skipped: [Int] = []
        // Faces only where they could change a pick, `threads` photos at a time.
        for scope in scopes {
            let collage = choice.forCollage(&verdicts, photos: photos, among: scope)
            let chosen = collage.settle(&verdicts, photos: &photos, running: collage.running(verdicts, among: scope),
                                        among: scope, batch: threads) { asked, photos in lookForFaces(asked, in: &photos) }
            if chosen.isEmpty && byEvents { skipped.append(verdicts[scope[0]].event) } else { choices.append(chosen) }
        }
        cache?.save()
        return SuggestionReport(photos: photos, verdicts: verdicts, choices: choices, skippedEvents: skipped,
                                notPhotos: measured.notPhotos, unreadable: measured.unreadable, unlistedFolders: unlisted,
                                unfollowedLinks: unfollowed, places: places)
    }

    /// Each file's measures, from the cache when it knows the file as it is
    /// now, else from the measurer, on `threads` workers, a folder at a
    /// time (the cache's rows of a folder read in one query): the photos
    /// (in no order), the files that were no photo and why each unreadable
    /// one could not be read (both in the files' order). Each photo measured
    /// is stored at once (the cache writes them in batches), so a run
    /// killed keeps them. Only a photo's small value is kept, and of a file
    /// that is no photo only its index.
    private func measureAll(_ files: [Photo], progress: @escaping @Sendable (Int, Int) -> Void)
        -> (photos: [MeasuredPhoto], notPhotos: [Photo], unreadable: [String]) {
        let known = cache
        let photos = Locked([MeasuredPhoto]())
        photos.withLock { $0.reserveCapacity(files.count) }
        let notPhotos = Locked([Int]()), unreadable = Locked([(Int, String)]())
        let finished = Locked(0)
        let measurer = self.measurer
        var start = 0
        while start < files.count {
            // The files of one folder are listed together.
            // (A photo's path as the folder's and a "/" and its name.)
            let folder = MeasuresCache.key(files[start]).folder
            func inFolder(_ path: [UInt8]) -> Bool {
                path.lastIndex(of: UInt8(ascii: "/")) == folder.count && path.starts(with: folder)
            }
            // A constant: the workers below read it at once.
            let end = files[(start + 1)...].firstIndex { !inFolder($0.fileSystemPath) } ?? files.count
            let cached = known?.measures(inFolder: folder) ?? [:]
            // Each file stat'ed from its folder (fstatat): the kernel walks
            // the folder's path once, not once a photo.
            let directory = Photo(fileSystemPath: folder.isEmpty ? [UInt8(ascii: "/")] : folder)
                .withFileSystemPath { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } ?? -1
            defer { if directory >= 0 { close(directory) } }
            // First the files the cache has, in runs of up to 64 a worker
            // (a stat and a lookup each: a lock a photo cost more than
            // both, and a warm run over 100,000 photos is only this), then
            // those it has not, a photo at a time, so that the workers stay
            // even when each takes a decode.
            let toMeasure = Locked([(index: Int, stamp: FileStamp)]())
            let run = max(1, min(64, (end - start) / (threads * 4)))
            Self.shared(start..<end, among: threads, inRunsOf: run) { runOfFiles in
                let (first, last) = (runOfFiles.lowerBound, runOfFiles.upperBound)
                var found = [MeasuredPhoto](), missing = [(index: Int, stamp: FileStamp)](), unlisted = [(Int, String)]()
                found.reserveCapacity(last - first)
                for index in first..<last {
                    let photo = files[index]
                    let name = MeasuresCache.key(photo).name
                    guard let stamp = directory >= 0 ? FileStamp.of(name, in: directory) : FileStamp.of(photo) else {
                        unlisted.append((index, "\(photo.path): not a regular file that can be read"))
                        continue
                    }
                    if let entry = cached[MeasuresCache.Name(name)], entry.stamp == stamp {
                        found.append(MeasuredPhoto(photo: photo, measures: entry.measures))
                    } else {
                        missing.append((index, stamp))
                    }
                }
                if !found.isEmpty { photos.withLock { $0.append(contentsOf: found) } }
                if !missing.isEmpty { toMeasure.withLock { $0.append(contentsOf: missing) } }
                if !unlisted.isEmpty { unreadable.withLock { $0.append(contentsOf: unlisted) } }
                let done = found.count + unlisted.count
                if done > 0 {
                    progress(finished.withLock { count in
                        count += done
                        return count
                    }, files.count)
                }
            }
            let fresh = toMeasure.current
            Self.shared(0..<fresh.count, among: threads) { one in
                let (index, stamp) = fresh[one.lowerBound]
                let photo = files[index]
                do {
                    let measured = MeasuredPhoto(photo: photo, measures: try measurer.measure(photo))
                    photos.withLock { $0.append(measured) }
                    known?.store(measured.measures, of: photo, stamp: stamp)
                } catch let error as ImageEngineError where error.kind == .notImage {
                    notPhotos.withLock { $0.append(index) }
                } catch let error as ImageEngineError {
                    unreadable.withLock { $0.append((index, error.message)) }
                } catch {
                    unreadable.withLock { $0.append((index, "\(photo.path): \(error)")) }
                }
                progress(finished.withLock { count in
                    count += 1
                    return count
                }, files.count)
            }
            start = end
        }
        known?.save()
        return (photos.current, notPhotos.current.sorted().map { files[$0] }, unreadable.current.sorted { $0.0 < $1.0 }.map(\.1))
    }

    /// Faces for the photos at `indices` that have none yet, in parallel;
    /// a photo the search fails on counts as without faces. Each photo's
    /// search is asked once: its count is kept in its measures (and the
    /// cache), whichever event asks.
    private func lookForFaces(_ indices: [Int], in photos: inout [MeasuredPhoto]) {
        let wanted = indices.filter { photos[$0].measures.faces == nil }
        guard !wanted.isEmpty else { return }
        let found = Locked([Int](repeating: 0, count: wanted.count))
        let snapshot = photos
        let measurer = self.measurer
        Self.shared(0..<wanted.count, among: threads) { one in
            let k = one.lowerBound
            let faces = (try? measurer.countFaces(snapshot[wanted[k]].photo)) ?? 0
            found.withLock { $0[k] = faces }
        }
        for (k, i) in wanted.enumerated() {
            photos[i].measures.faces = found.current[k]
            if let stamp = FileStamp.of(photos[i].photo) { cache?.store(photos[i].measures, of: photos[i].photo, stamp: stamp) }
        }
    }
}

extension SuggestService {
    /// `work` called on `threads` workers for runs of `indices`, each run
    /// (of up to `run` indices) taken by whichever worker is free: the
    /// one way this service shares work out, so that a slow photo does not
    /// hold up the others.
    static func shared(_ indices: Range<Int>, among threads: Int, inRunsOf run: Int = 1,
                       _ work: @Sendable (Range<Int>) -> Void) {
        guard !indices.isEmpty else { return }
        let next = Locked(indices.lowerBound)
        DispatchQueue.concurrentPerform(iterations: min(threads, indices.count)) { _ in
            while true {
                let first: Int = next.withLock { value in
                    value += run
                    return value - run
                }
                guard first < indices.upperBound else { return }
                work(first..<min(first + run, indices.upperBound))
            }
        }
    }
}

extension SuggestService: PhotoSuggesting {
    public func suggest(in folder: Photo, alreadyIn: [Photo]) throws -> [Photo] {
        guard let choice = SuggestionChoice.filling(alreadyIn: alreadyIn.count) else {
            throw CollageFailure(.folder, path: folder.path, message: "the collage is full (\(alreadyIn.count) photos): nothing to add")
        }
        let report = try suggest([folder], recursive: false, choice: choice, byEvents: false, alreadyIn: alreadyIn)
        guard let chosen = report.choices.first, !chosen.isEmpty else {
            throw CollageFailure(.folder, path: folder.path, message: alreadyIn.isEmpty
                ? "fewer than two photos worth showing here" : "no photos worth adding here to the \(alreadyIn.count) in the collage")
        }
        return chosen.map { report.photos[$0].photo }
    }
}
