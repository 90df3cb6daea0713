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
        members = Self.members(verdicts)
    }

    /// The indices of each event's verdicts, in order: what
    /// `Dictionary(grouping:by:)` gives, made a run of one event at a time
    /// (a library's 100,000 photos, in the order taken, are 1,000 runs).
    static func members(_ verdicts: [PhotoVerdict]) -> [Int: [Int]] {
        var members: [Int: [Int]] = [:]
        var start = 0
        while start < verdicts.count {
            let event = verdicts[start].event
            var end = start + 1
            while end < verdicts.count && verdicts[end].event == event { end += 1 }
            members[event, default: []].append(contentsOf: start..<end)
            start = end
        }
        return members
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
    private let threads: Int
    private let cache: MeasuresCache?
    private let places: PlaceNaming?

    /// `cache` nil: measure everything afresh and keep nothing. `places`
    /// names where photos were taken in event titles (nil: dates alone).
    public init(measurer: PhotoMeasuring, cache: MeasuresCache?,
                places: PlaceNaming? = GeoNamesPlaces(), threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.measurer = measurer
        self.places = places
        self.cache = cache
        self.threads = max(1, threads)
    }

    /// The files of one folder the walk found: the folder, and the names
    /// of those of its files that count (all but hidden ones; for a path
    /// named that is a file, that one alone).
    public struct FolderFiles: Sendable {
        public let folder: Photo
        public let names: FileNames

        /// The file `name` (a name's bytes) in the folder.
        public func file(_ name: ArraySlice<UInt8>) -> Photo { folder.appending(Array(name)) }

        /// The names' indices in the order the reports list them: sorted as
        /// text (exact bytes where that ties), quick for 100,000 names,
        /// where Foundation's natural order took seconds; the order only
        /// makes the reports the same run after run. `byBytes`: the
        /// indices in the order of their bytes, which is that order when
        /// every name is ASCII.
        public func reportOrder(byBytes: [Int]) -> [Int] {
            guard !names.isASCII else { return byBytes }
            let files = (0..<names.count).map { file(names[$0]) }
            return byBytes.sorted {
                files[$0].path < files[$1].path
                    || (files[$0].path == files[$1].path && files[$0].fileSystemPath.lexicographicallyPrecedes(files[$1].fileSystemPath))
            }
        }
    }

    /// The files under `paths`, a folder at a time: a file as it is, a
    /// folder's files (not hidden ones), and with `recursive` its folders'
    /// too (each real folder once). A path named is followed even when it
    /// is a link; inside, a link to a file is that file, but a link to a
    /// folder is entered only with `followLinks` (as `find` does), so that
    /// the folder given is the folder searched: `d/loop -> ../..` would
    /// search d's parents. A path that is neither is a failure; a folder
    /// inside that cannot be listed is reported, not fatal. The folders are
    /// walked depth first in the order of their names; a folder's
    /// sub-folders are listed on all the cores at once before they are
    /// walked (a library's 400 day folders in one folder), and used in the
    /// walk's order, so the result is the walk's of one core.
    public func files(under paths: [Photo], recursive: Bool, followLinks: Bool = false) throws
        -> (folders: [FolderFiles], unlisted: [String], unfollowed: [Photo]) {
        typealias Listing = (folders: [DirectoryEntry], files: FileNames)
        var found: [FolderFiles] = []
        var unlisted: [String] = []
        var unfollowed: [Photo] = []
        var seen = Set<[UInt64]>()
        func identity(_ folder: Photo) -> [UInt64]? {
            var info = stat()
            guard folder.withFileSystemPath({ stat($0, &info) }) == 0 else { return nil }
            return [UInt64(info.st_dev), UInt64(info.st_ino)]
        }
        func walk(_ folder: Photo, top: Bool, listed: Result<Listing, Error>? = nil) throws {
            if let id = identity(folder) {
                guard seen.insert(id).inserted else { return }
            }
            let listing: Listing
            do {
                // Hidden files and folders are left out, as the photos
                // screen leaves them out until asked.
                listing = try (listed ?? Result { try FileSystemBrowser.names(in: folder, hidden: false) }).get()
            } catch {
                if top { throw error }
                unlisted.append("\(error)")
                return
            }
            found.append(FolderFiles(folder: folder, names: listing.files))
            guard recursive else { return }
            let subs = listing.folders.filter { !$0.isHidden }.map { sub in
                var info = stat()
                let isLink = sub.file.withFileSystemPath({ lstat($0, &info) }) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
                return (folder: sub.file, entered: followLinks || !isLink)
            }
            let entered = subs.filter(\.entered).map(\.folder)
            let listings = Locked([Result<Listing, Error>?](repeating: nil, count: entered.count))
            Self.shared(0..<entered.count, among: threads) { one in
                let listing = Result { try FileSystemBrowser.names(in: entered[one.lowerBound], hidden: false) }
                listings.withLock { $0[one.lowerBound] = listing }
            }
            var next = listings.current.makeIterator()
            for sub in subs {
                guard sub.entered else {
                    unfollowed.append(sub.folder)
                    continue
                }
                try walk(sub.folder, top: false, listed: next.next() ?? nil)
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
                var name = FileNames()
                name.append(MeasuresCache.key(path).name)
                found.append(FolderFiles(folder: path.parent, names: name))
            }
        }
        return (found, unlisted, unfollowed)
    }

    /// Measures, groups and chooses. `alreadyIn`: photos in the collage
    /// already, never chosen, nor their near-duplicates. `progress` is told
    /// (done, total) as photos are measured, from any thread.
    public func suggest(_ paths: [Photo], recursive: Bool, followLinks: Bool = false, choice: SuggestionChoice,
                        byEvents: Bool, alreadyIn: [Photo] = [],
                        progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) throws -> SuggestionReport {
        let (folders, unlisted, unfollowed) = try self.files(under: paths, recursive: recursive, followLinks: followLinks)
        // The photos apart from the rest: one array of them held twice would
        // be copied whole when put in order.
        var photos: [MeasuredPhoto] = []
        let measured = measureAll(folders, into: &photos, progress: progress)
        Self.putInOrderTaken(&photos)

        var verdicts = choice.judge(photos)
        choice.setAside(&verdicts, photos: photos, alreadyIn: Set(alreadyIn))
        let scopes: [[Int]] = byEvents
            ? SuggestionReport.members(verdicts).sorted { $0.key < $1.key }.map(\.value)
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
    /// now, else from the measurer, on `threads` workers: the photos, into
    /// `photos` (a folder's together, the folders in no order), and the
    /// files that were no photo and why each unreadable one could not be
    /// read (both in the walk's order). First each folder's
    /// files are stat'ed and matched to the cache's rows (`FolderWork`),
    /// the folders shared out among the workers (a big folder's files
    /// among them all), then the files the cache does not know are
    /// measured, a photo at a time, so that the workers stay even when
    /// each takes a decode. Each photo measured is stored at once (the
    /// cache writes them in batches), so a run killed keeps them. Only a
    /// photo's small value is kept, and of a file that is no photo only
    /// its folder's and its name's numbers until the end.
    private func measureAll(_ folders: [FolderFiles], into photos: inout [MeasuredPhoto],
                            progress: @escaping @Sendable (Int, Int) -> Void) -> (notPhotos: [Photo], unreadable: [String]) {
        let known = cache
        let total = folders.reduce(0) { $0 + $1.names.count }
        var starts = [Int](), next = 0
        for folder in folders {
            starts.append(next)
            next += folder.names.count
        }
        // The walk's index of each folder's first file.
        let firstIndex = starts
        let results = FolderWork.Results(capacity: total)
        let finished = Locked(0)
        @Sendable func done(_ count: Int) {
            guard count > 0 else { return }
            progress(finished.withLock { done in
                done += count
                return done
            }, total)
        }
        // A folder of more than this many files is shared out among the
        // workers file by file, as one of a big folder; smaller ones go
        // whole to one worker each.
        let big = 4096
        let small = folders.indices.filter { folders[$0].names.count <= big }
        Self.shared(0..<small.count, among: threads) { one in
            let f = small[one.lowerBound]
            let work = FolderWork(folders[f], number: f, firstIndex: firstIndex[f], cache: known)
            done(work.resolve(0..<folders[f].names.count, into: results))
        }
        for f in folders.indices where folders[f].names.count > big {
            let work = FolderWork(folders[f], number: f, firstIndex: firstIndex[f], cache: known)
            Self.shared(0..<folders[f].names.count, among: threads, inRunsOf: 64) { run in
                done(work.resolve(run, into: results))
            }
        }
        // Taken out, not copied: a folder of 100,000 files that are no photos has 100,000.
        var toMeasure = results.toMeasure.take(leaving: [])
        toMeasure.sort { $0.index < $1.index }
        let fresh = toMeasure
        let measurer = self.measurer
        Self.shared(0..<fresh.count, among: threads) { one in
            let (index, folder, name, stamp) = fresh[one.lowerBound]
            let photo = folders[folder].file(folders[folder].names[name])
            do {
                let measured = MeasuredPhoto(photo: photo, measures: try measurer.measure(photo))
                results.photos.withLock { $0.append(measured) }
                known?.store(measured.measures, of: photo, stamp: stamp)
            } catch let error as ImageEngineError where error.kind == .notImage {
                results.notPhotos.withLock { $0.append((index, folder, name)) }
            } catch let error as ImageEngineError {
                results.unreadable.withLock { $0.append((index, error.message)) }
            } catch {
                results.unreadable.withLock { $0.append((index, "\(photo.path): \(error)")) }
            }
            done(1)
        }
        known?.save()
        photos = results.photos.take(leaving: [])
        return (results.notPhotos.current.sorted { $0.index < $1.index }.map { folders[$0.folder].file(folders[$0.folder].names[$0.name]) },
                results.unreadable.current.sorted { $0.0 < $1.0 }.map(\.1))
    }

    /// Puts `photos` in the order taken; the undated last, by path. The
    /// order is sorted first (a folder's photos, together and mostly in
    /// the order taken already, are runs the sort finds), then the photos
    /// moved into it in place, a cycle of places at a time: sorting the
    /// photos themselves moved each one's large value some 17 times, and a
    /// second array of them cost more in its pages first touched than in
    /// the moves.
    static func putInOrderTaken(_ photos: inout [MeasuredPhoto]) {
        let taken = photos.map { $0.measures.taken?.instant ?? .infinity }
        let order = photos.indices.sorted {
            taken[$0] < taken[$1] || (taken[$0] == taken[$1] && photos[$0].photo.path < photos[$1].photo.path)
        }
        // order[k]: the place of the photo that goes to place k.
        var placed = [Bool](repeating: false, count: photos.count)
        for start in photos.indices where !placed[start] && order[start] != start {
            let first = photos[start]
            var k = start
            while order[k] != start {
                placed[k] = true
                photos[k] = photos[order[k]]
                k = order[k]
            }
            placed[k] = true
            photos[k] = first
        }
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

/// One folder's files in a `SuggestService` run, matched to the cache's
/// rows: made once a folder (its names sorted, its rows read in one query
/// in the same order and matched in one pass, the folder opened), then
/// `resolve`d a run of files at a time on any worker.
final class FolderWork: Sendable {
    /// What the workers found, shared: the photos the cache knew, those it
    /// did not (with their stamps, to be measured), and the files that
    /// were no photo or could not be read, each by its index in the walk.
    /// A file not yet a photo by its folder's number and its name's (a
    /// path of its own each, for a folder of 100,000 files that are no
    /// photos, was more memory than all the rest).
    final class Results: Sendable {
        /// The photos, as the workers found them (a folder's together, in
        /// the order of its names).
        let photos = Locked([MeasuredPhoto]())
        let toMeasure = Locked([(index: Int, folder: Int, name: Int, stamp: FileStamp)]())
        let notPhotos = Locked([(index: Int, folder: Int, name: Int)]())
        let unreadable = Locked([(Int, String)]())

        init(capacity: Int) { photos.withLock { $0.reserveCapacity(capacity) } }
    }

    private let files: SuggestService.FolderFiles
    /// The folder's number in the walk.
    private let number: Int
    private let firstIndex: Int
    /// The names' indices in the reports' order.
    private let order: [Int]
    /// The cache's rows of the folder's files, and by each name's index
    /// the place of its row there (-1: none; not a row's room for each
    /// name: a folder of 100,000 files that are no photos has no row).
    private let rows: [MeasuresFile.Entry]
    private let rowOf: [Int32]
    /// The folder, open, to stat its files from (fstatat: the kernel walks
    /// the folder's path once, not once a photo); -1 when it cannot be.
    private let directory: Int32

    /// `firstIndex`: the walk's index of the folder's first file.
    init(_ files: SuggestService.FolderFiles, number: Int, firstIndex: Int, cache: MeasuresCache?) {
        self.files = files
        self.number = number
        self.firstIndex = firstIndex
        let names = files.names
        let byBytes = names.indicesByBytes()
        order = files.reportOrder(byBytes: byBytes)
        var rows: [MeasuresFile.Entry] = [], rowOf = [Int32](repeating: -1, count: names.count)
        if let cache, !byBytes.isEmpty {
            // Both in the order of the names' bytes: one pass.
            let folder = MeasuresCache.key(files.file(names[byBytes[0]])).folder
            names.bytes.withUnsafeBufferPointer { buffer in
                let base = buffer.baseAddress!
                var k = 0
                cache.measures(inFolder: folder) { name, stamp, measures in
                    let row = name.bindMemory(to: UInt8.self)
                    guard let rowBase = row.baseAddress else { return }
                    while k < byBytes.count,
                          FileNames.precedes(base + names.starts[byBytes[k]], names.bounds(byBytes[k]).count, rowBase, row.count) { k += 1 }
                    if k < byBytes.count, names.bounds(byBytes[k]).count == row.count,
                       memcmp(base + names.starts[byBytes[k]], rowBase, row.count) == 0 {
                        rowOf[byBytes[k]] = Int32(rows.count)
                        rows.append(MeasuresFile.Entry(stamp: stamp, measures: measures))
                    }
                }
            }
        }
        self.rows = rows
        self.rowOf = rowOf
        directory = files.folder.withFileSystemPath { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } ?? -1
        prefix = files.folder.appending([]).fileSystemPath
        pathsAreText = names.isASCII && files.folder.pathIsExact
    }

    /// The folder's path and a "/": each file's path starts so.
    private let prefix: [UInt8]
    /// Whether every file's path is text (valid UTF-8): an exact folder, ASCII names.
    private let pathsAreText: Bool

    /// The file at name `index`: as `FolderFiles.file`, but where its path
    /// is text, made as text straight away, one copy (the folder's path
    /// copied, the name appended, the whole copied again and checked, a
    /// photo, before).
    private func file(_ index: Int) -> Photo {
        let names = files.names
        guard pathsAreText else { return files.file(names[index]) }
        let name = names.bounds(index)
        return Photo(path: String(unsafeUninitializedCapacity: prefix.count + name.count) { text in
            let afterPrefix = text.initialize(fromContentsOf: prefix)
            let end = text[afterPrefix...].initialize(fromContentsOf: names.bytes[name])
            return end
        })
    }

    deinit { if directory >= 0 { close(directory) } }

    /// The files at `positions` of the reports' order: each stat'ed, and
    /// kept as the cache's photo when the cache knows it as it is, else
    /// kept to be measured (or said unreadable when it is no regular
    /// file). Returns how many are done (not to be measured).
    func resolve(_ positions: Range<Int>, into results: Results) -> Int {
        var found = [MeasuredPhoto](), missing = [(index: Int, folder: Int, name: Int, stamp: FileStamp)](), unlisted = [(Int, String)]()
        found.reserveCapacity(positions.count)
        let names = files.names
        names.bytes.withUnsafeBufferPointer { buffer in
            for position in positions {
                let i = order[position], index = firstIndex + position
                let start = buffer.baseAddress! + names.starts[i]
                guard let stamp = directory >= 0 ? FileStamp.of(start, in: directory) : FileStamp.of(file(i)) else {
                    unlisted.append((index, "\(file(i).path): not a regular file that can be read"))
                    continue
                }
                if rowOf[i] >= 0, rows[Int(rowOf[i])].stamp == stamp {
                    found.append(MeasuredPhoto(photo: file(i), measures: rows[Int(rowOf[i])].measures))
                } else {
                    missing.append((index, number, i, stamp))
                }
            }
        }
        if !found.isEmpty { results.photos.withLock { $0.append(contentsOf: found) } }
        if !missing.isEmpty { results.toMeasure.withLock { $0.append(contentsOf: missing) } }
        if !unlisted.isEmpty { results.unreadable.withLock { $0.append(contentsOf: unlisted) } }
        return found.count + unlisted.count
    }
}

