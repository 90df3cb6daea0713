import Foundation

extension FileStamp {
    /// The stamp of a regular file; nil for anything else, or one that cannot be stat'ed.
    public static func of(_ photo: Photo) -> FileStamp? {
        var info = stat()
        guard photo.withFileSystemPath({ stat($0, &info) }) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileStamp(size: Int64(info.st_size),
                         modified: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }
}

/// The measures of photos already looked at, by path, size and
/// modification time, in `$XDG_CACHE_HOME/collage/measures.json`
/// (`~/.cache/collage/` without it): a second `collage suggest` over the
/// same folder decodes nothing. Written whole and atomically (`AtomicFile`),
/// its checksum first (`MeasuresFile`); a file whose checksum fails, that
/// does not parse as this version's or holds values no measure has is not
/// trusted, only rebuilt. Not thread-safe: one per run, read before and
/// written after the measuring.
public struct MeasuresCache: Sendable {
    public let file: URL
    private var entries: [String: Entry] = [:]
    private var changed = false

    typealias Entry = MeasuresFile.Entry

    public static func defaultFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let folder: URL
        if let cache = environment["XDG_CACHE_HOME"], cache.utf8.first == UInt8(ascii: "/") {
            folder = URL(fileURLWithPath: cache)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            folder = URL(fileURLWithPath: home).appendingPathComponent(".cache")
        }
        return folder.appendingPathComponent("collage/measures.json")
    }

    /// Whether the file was there but damaged (and is being rebuilt).
    public private(set) var wasDamaged = false

    /// The cache in `file`: empty when there is none, or when it is damaged.
    public init(file: URL = MeasuresCache.defaultFile()) {
        self.file = file
        guard let data = FileManager.default.contents(atPath: file.path) else { return }
        guard let entries = MeasuresFile.entries(reading: Array(data)) else {
            wasDamaged = true
            changed = true
            return
        }
        self.entries = entries
    }

    /// A path as a key: its text, or for a name that is not UTF-8 its bytes
    /// in base64 after "b64:" (an absolute path starts with "/", so the two
    /// never meet).
    static func key(_ photo: Photo) -> String {
        photo.pathIsExact ? photo.path : "b64:" + Data(photo.fileSystemPath).base64EncodedString()
    }

    /// The measures of the file as it is now, if known.
    public func measures(of photo: Photo, stamp: FileStamp) -> PhotoMeasures? {
        guard let entry = entries[Self.key(photo)], entry.stamp == stamp else { return nil }
        return entry.measures
    }

    public mutating func store(_ measures: PhotoMeasures, of photo: Photo, stamp: FileStamp) {
        let entry = Entry(stamp: stamp, measures: measures)
        guard entries[Self.key(photo)] != entry else { return }
        entries[Self.key(photo)] = entry
        changed = true
    }

    public var count: Int { entries.count }

    /// Writes the cache when anything changed, creating its folder.
    public func save() throws {
        guard changed else { return }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try AtomicFile.write(try MeasuresFile.bytes(of: entries), to: file.path, overwrite: true,
                             mode: AtomicFile.privateFileMode)
    }
}
