import CSQLite
import Foundation

extension FileStamp {
    /// The stamp of a regular file; nil for anything else, or one that cannot be stat'ed.
    public static func of(_ photo: Photo) -> FileStamp? {
        var info = stat()
        guard photo.withFileSystemPath({ stat($0, &info) }) == 0 else { return nil }
        return of(info)
    }

    /// The stamp of the file named by the NUL-terminated bytes `name` in
    /// the open folder `directory`.
    public static func of(_ name: UnsafePointer<UInt8>, in directory: Int32) -> FileStamp? {
        var info = stat()
        guard name.withMemoryRebound(to: CChar.self, capacity: 1, { fstatat(directory, $0, &info, 0) }) == 0 else { return nil }
        return of(info)
    }

    private static func of(_ info: stat) -> FileStamp? {
        guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileStamp(size: Int64(info.st_size),
                         modified: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }
}

/// The measures of photos already looked at, by path, size and
/// modification time, in `$XDG_CACHE_HOME/collage/measures.sqlite`
/// (`~/.cache/collage/` without it): a second `collage suggest` over the
/// same folder decodes nothing (issue #43, "Scale").
///
/// An SQLite database (Debian's libsqlite3), one row a photo keyed by its
/// folder's and its name's exact bytes, in WAL mode with a busy timeout:
/// photos are written as they are measured, a few hundred to a transaction
/// (not one sync a photo), so that runs at once lose none of each other's
/// measures and a run killed keeps what it measured but its last batch. A
/// run reads a folder's rows in one query (`measures(inFolder:)`), not a
/// query a photo. The JSON file of before (`MeasuresFile`, beside it as
/// `measures.json`) is imported once and removed. A database that is no
/// database or is damaged is removed and rebuilt (`wasDamaged`); one that
/// cannot be opened at all (an unwritable folder) leaves the run measuring
/// without a cache (`warning`). A row holding a value no measure has is not
/// trusted: the photo is measured again. Thread-safe: the measuring threads
/// store through one connection, behind a lock.
public final class MeasuresCache: Sendable {
    public let file: URL
    /// Whether the database (or the JSON file it replaces) was there but
    /// damaged, and is being rebuilt.
    public var wasDamaged: Bool { state.withLock { $0.wasDamaged } }
    /// One line when the cache cannot be used (this run measures without
    /// it) or a write failed; nil when all is well.
    public var warning: String? { state.withLock { $0.warning } }

    private struct State {
        var database: OpaquePointer?
        var pending: [Row] = []
        var lastWrite = Date()
        var warning: String?
        var wasDamaged = false
    }

    private struct Row {
        var folder: [UInt8], name: [UInt8], stamp: FileStamp, measures: PhotoMeasures
    }

    private let state = Locked(State())
    /// How many measured photos wait before they are written, and for how
    /// long at most: a killed run loses no more.
    private let batch: Int
    private static let longestWait: TimeInterval = 2

    public static func defaultFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let folder: URL
        if let cache = environment["XDG_CACHE_HOME"], cache.utf8.first == UInt8(ascii: "/") {
            folder = URL(fileURLWithPath: cache)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            folder = URL(fileURLWithPath: home).appendingPathComponent(".cache")
        }
        return folder.appendingPathComponent("collage/measures.sqlite")
    }

    /// The JSON cache of before, beside the database.
    public var legacyFile: URL { file.deletingLastPathComponent().appendingPathComponent("measures.json") }

    /// The measures' version the rows hold (`PRAGMA user_version`): rows of
    /// another are dropped, not trusted.
    static let version = Int32(MeasuresFile.version)

    /// The cache in `file`, created when there is none, rebuilt when it is
    /// damaged; the old JSON cache beside it imported and removed.
    public init(file: URL = MeasuresCache.defaultFile(), batch: Int = 256) {
        self.file = file
        self.batch = max(1, batch)
        var warning: String?
        do {
            try Self.makeFolder(file.deletingLastPathComponent().path)
            var database = try Self.openDatabase(file)
            if database == nil {
                // No database, or a damaged one: rebuilt.
                state.withLock { $0.wasDamaged = true }
                for suffix in ["", "-wal", "-shm"] { unlink(file.path + suffix) }
                database = try Self.openDatabase(file)
            }
            state.withLock { $0.database = database }
        } catch {
            warning = "\(file.path): \(error): measuring without the cache"
        }
        state.withLock { $0.warning = warning }
        importLegacyFile()
    }

    deinit {
        save()
        for reader in readers.current {
            sqlite3_finalize(reader.statement)
            sqlite3_close_v2(reader.database)
        }
        state.withLock { if let database = $0.database { sqlite3_close_v2(database) } }
    }

    private struct SQLiteError: Error, CustomStringConvertible {
        var description: String
    }

    /// `path` a folder, with its parents, or a failure with the system's
    /// reason in a few words ("cannot make /x/collage: File exists"):
    /// Foundation's own says a paragraph.
    private static func makeFolder(_ path: String) throws {
        var info = stat()
        if stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR { return }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != path { try makeFolder(parent) }
        guard mkdir(path, 0o755) == 0 || errno == EEXIST && stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR else {
            throw SQLiteError(description: "cannot make \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// The database ready for rows; nil when the file is no database or is
    /// damaged (to be removed); throws when it cannot be opened at all.
    private static func openDatabase(_ file: URL) throws -> OpaquePointer? {
        // Private, as the selection is: it names the person's photos.
        let descriptor = open(file.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SQLiteError(description: String(cString: strerror(errno))) }
        close(descriptor)
        var database: OpaquePointer?
        let opened = sqlite3_open_v2(file.path, &database, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, nil)
        guard opened == SQLITE_OK, let database else {
            let reason = database.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(opened))
            sqlite3_close_v2(database)
            throw SQLiteError(description: reason)
        }
        // Another run writing waits its turn rather than failing.
        sqlite3_busy_timeout(database, 30_000)
        func run(_ sql: String) -> Int32 { sqlite3_exec(database, sql, nil, nil, nil) }
        // SQLite does not call the busy handler for every lock: while two
        // runs open a new cache together, one's switch to WAL or its first
        // read of the schema came back "database is locked" at once, and
        // that run measured without the cache, its half of a library lost
        // (one time in four: SuggestEndToEndTests). So each step of the
        // opening is tried again while the file is busy, for as long as
        // the busy timeout would wait.
        func retrying(_ step: () -> Int32) -> Int32 {
            var result = step(), waited = 0
            while [SQLITE_BUSY, SQLITE_LOCKED].contains(result & 0xff) && waited < 30_000 {
                usleep(10_000)
                waited += 10
                result = step()
            }
            return result
        }
        var result = retrying { run("PRAGMA journal_mode=WAL") }
        // WAL with NORMAL: a killed process loses nothing committed; only a
        // power cut can lose the last transactions of a cache.
        if result == SQLITE_OK { result = retrying { run("PRAGMA synchronous=NORMAL") } }
        var version: Int32 = 0
        if result == SQLITE_OK {
            result = retrying { Self.query(database, "PRAGMA user_version", row: { version = sqlite3_column_int($0, 0) }) }
        }
        if result == SQLITE_OK && version != Self.version {
            // Asked again inside the write lock: another run may have just
            // made the table (and written rows to it).
            result = retrying { run("BEGIN IMMEDIATE") }
            if result == SQLITE_OK {
                result = Self.query(database, "PRAGMA user_version", row: { version = sqlite3_column_int($0, 0) })
            }
            if result == SQLITE_OK && version != Self.version {
                result = run("DROP TABLE IF EXISTS photos; " + Self.schema + "; PRAGMA user_version=\(Self.version)")
            }
            result = result == SQLITE_OK ? run("COMMIT") : result
            if result != SQLITE_OK { _ = run("ROLLBACK") }
        }
        if result == SQLITE_OK { return database }
        let reason = String(cString: sqlite3_errmsg(database))
        sqlite3_close_v2(database)
        if [SQLITE_NOTADB, SQLITE_CORRUPT, SQLITE_FORMAT].contains(result & 0xff) { return nil }
        throw SQLiteError(description: reason)
    }

    private static let schema = """
        CREATE TABLE IF NOT EXISTS photos (
            folder BLOB NOT NULL, name BLOB NOT NULL, size INTEGER NOT NULL, modified REAL NOT NULL,
            width INTEGER NOT NULL, height INTEGER NOT NULL, instant REAL, wall_clock REAL,
            latitude REAL, longitude REAL, hash INTEGER NOT NULL, gradient_hash INTEGER NOT NULL,
            sharpness REAL NOT NULL, dark REAL NOT NULL, bright REAL NOT NULL, mean REAL NOT NULL,
            from_thumbnail INTEGER NOT NULL, corrupt INTEGER NOT NULL, faces INTEGER,
            PRIMARY KEY (folder, name)) WITHOUT ROWID
        """

    private static let columns = "name, size, modified, width, height, instant, wall_clock, latitude, longitude, hash, "
        + "gradient_hash, sharpness, dark, bright, mean, from_thumbnail, corrupt, faces"

    /// Runs `sql` with `bind` binding its parameters, `row` for each row.
    @discardableResult
    private static func query(_ database: OpaquePointer, _ sql: String, bind: (OpaquePointer) -> Void = { _ in },
                              row: (OpaquePointer) -> Void = { _ in }) -> Int32 {
        var statement: OpaquePointer?
        var result = sqlite3_prepare_v2(database, sql, -1, &statement, nil)
        guard result == SQLITE_OK, let statement else { return result }
        defer { sqlite3_finalize(statement) }
        bind(statement)
        while true {
            result = sqlite3_step(statement)
            guard result == SQLITE_ROW else { break }
            row(statement)
        }
        return result == SQLITE_DONE ? SQLITE_OK : result
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func bind(_ statement: OpaquePointer, _ index: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { _ = sqlite3_bind_blob(statement, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), transient) }
    }

    private static func bytes(_ statement: OpaquePointer, _ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let start = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: start, count: count))
    }

    /// A photo's folder and name as keys: the bytes before and after its last "/".
    public static func key(_ photo: Photo) -> (folder: [UInt8], name: [UInt8]) {
        let path = photo.fileSystemPath
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return ([], path) }
        return (Array(path[..<slash]), Array(path[(slash + 1)...]))
    }

    /// A row's stamp and measures (its columns as `columns` names them),
    /// nil when it holds a value no measure has.
    private static func entry(_ s: OpaquePointer) -> MeasuresFile.Entry? {
        func double(_ column: Int32) -> Double? {
            sqlite3_column_type(s, column) == SQLITE_NULL ? nil : sqlite3_column_double(s, column)
        }
        let taken = double(5).flatMap { instant in double(6).map { PhotoTime(instant: instant, wallClock: $0) } }
        let position = double(7).flatMap { latitude in double(8).map { GeoPosition(latitude: latitude, longitude: $0) } }
        let measures = PhotoMeasures(
            width: Int(sqlite3_column_int64(s, 3)), height: Int(sqlite3_column_int64(s, 4)), taken: taken,
            hash: UInt64(bitPattern: sqlite3_column_int64(s, 9)), gradientHash: UInt64(bitPattern: sqlite3_column_int64(s, 10)),
            sharpness: sqlite3_column_double(s, 11), darkShare: sqlite3_column_double(s, 12),
            brightShare: sqlite3_column_double(s, 13), meanLevel: sqlite3_column_double(s, 14),
            fromThumbnail: sqlite3_column_int(s, 15) != 0, corruptData: Int(sqlite3_column_int64(s, 16)),
            faces: sqlite3_column_type(s, 17) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(s, 17)), position: position)
        let entry = MeasuresFile.Entry(stamp: FileStamp(size: sqlite3_column_int64(s, 1), modified: sqlite3_column_double(s, 2)),
                                       measures: measures)
        return entry.isPlausible ? entry : nil
    }

    /// Every photo of `folder` (a `key`'s folder) the cache knows, in the
    /// order of their names' bytes (`FileNames.indicesByBytes`'), each with
    /// the stamp it was measured at: one query for a folder of photos, so
    /// that its files are matched to their rows in one pass over both, not
    /// through a table of names (its hashing and growing were some 8% of a
    /// warm run over a library).
    /// Nothing when the cache is not there. Safe on several threads at
    /// once: each reads through a connection of its own (in WAL mode,
    /// readers wait neither for each other nor for the writer), so a
    /// library's folders are read on all the cores.
    public func measures(inFolder folder: [UInt8],
                         _ row: (_ name: UnsafeRawBufferPointer, _ stamp: FileStamp, _ measures: PhotoMeasures) -> Void) {
        func each(_ s: OpaquePointer) {
            guard let entry = Self.entry(s) else { return }
            row(UnsafeRawBufferPointer(start: sqlite3_column_blob(s, 0), count: Int(sqlite3_column_bytes(s, 0))),
                entry.stamp, entry.measures)
        }
        guard let reader = takeReader() else {
            // No connection of its own: through the shared one.
            read(Self.folderQuery, bind: { Self.bind($0, 1, folder) }, row: each)
            return
        }
        defer { readers.withLock { $0.append(reader) } }
        let s = reader.statement
        Self.bind(s, 1, folder)
        var result = sqlite3_step(s)
        while result == SQLITE_ROW {
            each(s)
            result = sqlite3_step(s)
        }
        // Reset: the read ends here, not at the next folder.
        sqlite3_reset(s)
        if result != SQLITE_DONE {
            let reason = String(cString: sqlite3_errmsg(reader.database))
            state.withLock { state in
                if state.warning == nil { state.warning = "\(file.path): \(reason): measuring what it could not read" }
            }
        }
    }

    private static let folderQuery = "SELECT \(columns) FROM photos WHERE folder = ? ORDER BY name"

    /// A connection that only reads, with the folder query ready.
    private struct Reader {
        let database: OpaquePointer, statement: OpaquePointer
    }

    /// The readers not in use (`measures(inFolder:)` takes one, or opens
    /// one when none is idle, and puts it back).
    private let readers = Locked([Reader]())

    /// An idle reader, or a new one; nil when the cache is not there or
    /// no connection could be opened (then the shared one reads).
    private func takeReader() -> Reader? {
        if let idle = readers.withLock({ $0.popLast() }) { return idle }
        guard state.withLock({ $0.database != nil }) else { return nil }
        var database: OpaquePointer?, statement: OpaquePointer?
        guard sqlite3_open_v2(file.path, &database, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let database else {
            sqlite3_close_v2(database)
            return nil
        }
        sqlite3_busy_timeout(database, 30_000)
        guard sqlite3_prepare_v2(database, Self.folderQuery, -1, &statement, nil) == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            sqlite3_close_v2(database)
            return nil
        }
        return Reader(database: database, statement: statement)
    }

    /// The measures of the file as it is now, if known.
    public func measures(of photo: Photo, stamp: FileStamp) -> PhotoMeasures? {
        let (folder, name) = Self.key(photo)
        var found: MeasuresFile.Entry?
        read("SELECT \(Self.columns) FROM photos WHERE folder = ? AND name = ?", bind: {
            Self.bind($0, 1, folder)
            Self.bind($0, 2, name)
        }) { found = Self.entry($0) }
        return found?.stamp == stamp ? found?.measures : nil
    }

    private func read(_ sql: String, bind: (OpaquePointer) -> Void, row: (OpaquePointer) -> Void) {
        state.withLock { state in
            guard let database = state.database else { return }
            let result = Self.query(database, sql, bind: bind, row: row)
            if result != SQLITE_OK && state.warning == nil {
                state.warning = "\(file.path): \(String(cString: sqlite3_errmsg(database))): measuring what it could not read"
            }
        }
    }

    /// Keeps the measures, written with the next batch (at most `batch`
    /// photos or two seconds later).
    public func store(_ measures: PhotoMeasures, of photo: Photo, stamp: FileStamp) {
        let (folder, name) = Self.key(photo)
        state.withLock { state in
            guard state.database != nil else { return }
            state.pending.append(Row(folder: folder, name: name, stamp: stamp, measures: measures))
            if state.pending.count >= batch || Date().timeIntervalSince(state.lastWrite) > Self.longestWait {
                write(&state)
            }
        }
    }

    /// Writes what waits.
    public func save() {
        state.withLock { write(&$0) }
    }

    /// The rows waiting, in one transaction; a failure is said once
    /// (`warning`), and its rows measured again next time.
    private func write(_ state: inout State) {
        state.lastWrite = Date()
        guard let database = state.database, !state.pending.isEmpty else { return }
        let rows = state.pending
        state.pending = []
        var result = sqlite3_exec(database, "BEGIN IMMEDIATE", nil, nil, nil)
        var statement: OpaquePointer?
        if result == SQLITE_OK {
            result = sqlite3_prepare_v2(database, "INSERT OR REPLACE INTO photos (folder, \(Self.columns)) "
                                        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &statement, nil)
        }
        if result == SQLITE_OK, let s = statement {
            for row in rows {
                let m = row.measures
                sqlite3_reset(s)
                Self.bind(s, 1, row.folder)
                Self.bind(s, 2, row.name)
                sqlite3_bind_int64(s, 3, row.stamp.size)
                sqlite3_bind_double(s, 4, row.stamp.modified)
                sqlite3_bind_int64(s, 5, Int64(m.width))
                sqlite3_bind_int64(s, 6, Int64(m.height))
                func bind(_ index: Int32, _ value: Double?) {
                    if let value { sqlite3_bind_double(s, index, value) } else { sqlite3_bind_null(s, index) }
                }
                bind(7, m.taken?.instant)
                bind(8, m.taken?.wallClock)
                bind(9, m.position?.latitude)
                bind(10, m.position?.longitude)
                sqlite3_bind_int64(s, 11, Int64(bitPattern: m.hash))
                sqlite3_bind_int64(s, 12, Int64(bitPattern: m.gradientHash))
                sqlite3_bind_double(s, 13, m.sharpness)
                sqlite3_bind_double(s, 14, m.darkShare)
                sqlite3_bind_double(s, 15, m.brightShare)
                sqlite3_bind_double(s, 16, m.meanLevel)
                sqlite3_bind_int(s, 17, m.fromThumbnail ? 1 : 0)
                sqlite3_bind_int64(s, 18, Int64(m.corruptData))
                if let faces = m.faces { sqlite3_bind_int64(s, 19, Int64(faces)) } else { sqlite3_bind_null(s, 19) }
                result = sqlite3_step(s)
                guard result == SQLITE_DONE else { break }
                result = SQLITE_OK
            }
        }
        sqlite3_finalize(statement)
        if result == SQLITE_OK { result = sqlite3_exec(database, "COMMIT", nil, nil, nil) }
        if result != SQLITE_OK {
            if state.warning == nil {
                state.warning = "\(file.path): \(String(cString: sqlite3_errmsg(database))): measures not kept"
            }
            sqlite3_exec(database, "ROLLBACK", nil, nil, nil)
        }
    }

    /// The JSON cache of before, read once into the database and removed;
    /// a damaged one is removed (its photos are measured again).
    private func importLegacyFile() {
        let legacy = legacyFile
        guard let data = FileManager.default.contents(atPath: legacy.path) else { return }
        if let entries = MeasuresFile.entries(reading: Array(data)) {
            state.withLock { state in
                for (key, entry) in entries {
                    guard let photo = MeasuresFile.photo(key: key) else { continue }
                    let (folder, name) = Self.key(photo)
                    state.pending.append(Row(folder: folder, name: name, stamp: entry.stamp, measures: entry.measures))
                }
                write(&state)
            }
        } else {
            state.withLock { $0.wasDamaged = true }
        }
        if state.withLock({ $0.database != nil && $0.warning == nil }) { unlink(legacy.path) }
    }

    /// How many photos the cache holds.
    public var count: Int {
        var count = 0
        read("SELECT count(*) FROM photos", bind: { _ in }) { count = Int(sqlite3_column_int64($0, 0)) }
        return count
    }
}
