import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the selection lives between commands.
///
/// `updateSelection` is the only way to change it: it runs `change` on the
/// latest stored selection while holding an exclusive lock, and stores the
/// result atomically, so concurrent commands never lose each other's changes.
public protocol SelectionStore: AnyObject {
    func loadSelection() throws -> Selection
    func updateSelection<T>(_ change: (inout Selection) throws -> T) throws -> T
}

extension SelectionStore {
    /// The photos alone, for the many changes that touch nothing else.
    public func load() throws -> [Photo] { try loadSelection().photos }

    /// `updateSelection` of the photos alone: the title is kept as it is.
    public func update<T>(_ change: (inout [Photo]) throws -> T) throws -> T {
        try updateSelection { try change(&$0.photos) }
    }
}

/// A selection kept in memory only: for tests and for batch mode, which must
/// never touch the interactive selection.
public final class InMemorySelectionStore: SelectionStore {
    private let selection: Locked<Selection>

    public init(_ photos: [Photo] = [], title: CollageTitle? = nil) {
        selection = Locked(Selection(photos: photos, title: title))
    }

    public func loadSelection() throws -> Selection { selection.current }

    public func updateSelection<T>(_ change: (inout Selection) throws -> T) throws -> T {
        try selection.withLock { selection in
            // On a throw, nothing changes.
            var copy = selection
            let result = try change(&copy)
            selection = copy
            return result
        }
    }
}

/// A failure to read or write the stored selection.
public struct SelectionStoreError: Error, CustomStringConvertible {
    public let description: String
}

/// The persistent selection: `selection.json` in `$XDG_STATE_HOME/collage/`
/// (default `~/.local/state/collage/`), guarded by `selection.lock`.
///
/// - Every change holds an exclusive `flock` on the lock file, so twenty
///   `collage add` runs at once serialise instead of losing writes.
/// - The file is replaced atomically (`AtomicFile`, mode 0600): a crash
///   leaves the old selection or the new, never half.
/// - A file that does not parse is moved aside, `notice` is told its new name,
///   and a fresh selection starts.
public final class FileSelectionStore: SelectionStore {
    public let directory: URL
    public var stateFile: URL { directory.appendingPathComponent("selection.json") }
    private var lockFile: URL { directory.appendingPathComponent("selection.lock") }
    private let notice: (String) -> Void

    /// `title` is absent without one, so such a file reads the same in
    /// older versions (which ignore the key when there is one: version 1
    /// still, as nothing they read has changed).
    private struct StoredSelection: Codable {
        var version: Int
        var photos: [StoredPath]
        var title: CollageTitle?
    }

    /// One photo in the file: its path as a JSON string, as ever. A path
    /// that is not valid UTF-8 cannot be a JSON string, so it is stored as
    /// Photo's own coding, `{"path": "<shown as text>", "bytes": "<base64 of
    /// the exact bytes>"}`, and so is a photo with a focus (`"focus": {"x":
    /// 0.5, "y": 0.2}`) or a caption (`"caption": "..."`); only such photos
    /// are written that way, so a selection of UTF-8 names without either
    /// reads the same in older versions.
    private struct StoredPath: Codable {
        let photo: Photo

        init(_ photo: Photo) { self.photo = photo }

        /// Absolute, and a possible file name (no NUL byte).
        var isValid: Bool {
            let bytes = photo.fileSystemPath
            return bytes.first == UInt8(ascii: "/") && !bytes.contains(0)
        }

        init(from decoder: Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                photo = Photo(path: text)
                return
            }
            // The object form exists only for the bytes, a focus or a
            // caption: one with none of them is corrupt.
            let container = try decoder.container(keyedBy: Photo.CodingKeys.self)
            guard container.contains(.bytes) || container.contains(.focus) || container.contains(.caption) else {
                throw DecodingError.keyNotFound(Photo.CodingKeys.bytes, .init(
                    codingPath: container.codingPath, debugDescription: "a stored photo without its bytes"))
            }
            photo = try Photo(from: decoder)
        }

        func encode(to encoder: Encoder) throws {
            if photo.pathIsExact && photo.focus == nil && photo.caption == nil {
                var container = encoder.singleValueContainer()
                try container.encode(photo.path)
            } else {
                try photo.encode(to: encoder)
            }
        }
    }

    public init(directory: URL, notice: @escaping (String) -> Void = { _ in }) {
        self.directory = directory
        self.notice = notice
    }

    /// `$XDG_STATE_HOME/collage`, or `~/.local/state/collage` when unset or
    /// not absolute (as the XDG base directory specification says).
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let state = environment["XDG_STATE_HOME"], state.utf8.first == UInt8(ascii: "/") {
            return URL(fileURLWithPath: state).appendingPathComponent("collage")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".local/state/collage")
    }

    /// Reading creates nothing: `status`, `preview` and `--help` leave the
    /// disk as they found it. Without the folder or its lock file nobody has
    /// ever stored a selection here, so there is nothing to wait for.
    public func loadSelection() throws -> Selection {
        try withLock(creating: false) { try read() }
    }

    public func updateSelection<T>(_ change: (inout Selection) throws -> T) throws -> T {
        try withLock {
            let before = try read()
            var selection = before
            let result = try change(&selection)
            if selection != before { try write(selection) }
            return result
        }
    }

    // MARK: - Locking

    private func withLock<T>(creating: Bool = true, _ body: () throws -> T) throws -> T {
        if creating {
            do {
                // Private, as the XDG base directory specification asks of state
                // folders (and whatever the umask): the selection names your files.
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw SelectionStoreError(description: "cannot create the state folder \(directory.path): \(error.localizedDescription)")
            }
        }
        let fd = open(lockFile.path, O_RDWR | O_CLOEXEC | (creating ? O_CREAT : 0), 0o600)
        if fd < 0 && !creating && errno == ENOENT { return try body() }
        guard fd >= 0 else { throw posixError("cannot open the lock file \(lockFile.path)") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            if errno != EINTR { throw posixError("cannot lock \(lockFile.path)") }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    // MARK: - Reading and writing (called with the lock held)

    private func read() throws -> Selection {
        let data: Data
        do {
            data = try Data(contentsOf: stateFile)
        } catch CocoaError.fileReadNoSuchFile {
            return Selection()
        } catch {
            if !FileManager.default.fileExists(atPath: stateFile.path) { return Selection() }
            throw SelectionStoreError(description: "cannot read \(stateFile.path): \(error.localizedDescription)")
        }
        if let stored = try? JSONDecoder().decode(StoredSelection.self, from: data), stored.version == 1,
           stored.photos.allSatisfy(\.isValid) {
            return Selection(photos: stored.photos.map(\.photo), title: stored.title)
        }
        try moveAsideCorrupt()
        return Selection()
    }

    private func moveAsideCorrupt() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let stamp = formatter.string(from: Date())
        var destination = directory.appendingPathComponent("selection.json.corrupt-\(stamp)")
        var attempt = 1
        while FileManager.default.fileExists(atPath: destination.path) {
            attempt += 1
            destination = directory.appendingPathComponent("selection.json.corrupt-\(stamp)-\(attempt)")
        }
        guard rename(stateFile.path, destination.path) == 0 else {
            throw posixError("the state file \(stateFile.path) is corrupt and cannot be moved aside")
        }
        notice("the state file was corrupt: moved it to \(destination.path) and started a new selection")
    }

    private func write(_ selection: Selection) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
        let data = try encoder.encode(StoredSelection(version: 1, photos: selection.photos.map(StoredPath.init),
                                                      title: selection.title))
        removeLeftoverTemporaries()
        do {
            try AtomicFile.write(Array(data), to: stateFile.path, overwrite: true, mode: AtomicFile.privateFileMode)
        } catch {
            throw SelectionStoreError(description: "\(error)")
        }
    }

    /// A process killed (kill -9, power loss) while replacing the file can
    /// leave a hidden temporary behind (`AtomicFile`'s, or
    /// `.selection.json.XXXXXX` from versions that used mkstemp). Only the
    /// holder of the lock writes, and we hold it, so any such file now is
    /// such a leftover: remove it, or they would pile up.
    private func removeLeftoverTemporaries() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        let fileName = stateFile.lastPathComponent
        for name in names where AtomicFile.isLeftoverTemporary(name, of: fileName)
            || (name.hasPrefix(".selection.json.") && name.count == ".selection.json.XXXXXX".count) {
            unlink(directory.appendingPathComponent(name).path)
        }
    }

    private func posixError(_ what: String) -> SelectionStoreError {
        SelectionStoreError(description: "\(what): \(String(cString: strerror(errno)))")
    }
}
