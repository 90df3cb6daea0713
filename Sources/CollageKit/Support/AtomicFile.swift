import CollageSystem
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Why a file could not be written. Messages name the file.
public enum FileWriteError: Error, Equatable, CustomStringConvertible {
    case exists(path: String)
    case io(path: String, reason: String)

    public var description: String {
        switch self {
        case let .exists(path): return "\(path) already exists"
        case let .io(path, reason): return "cannot write \(path): \(reason)"
        }
    }
}

/// Writing a file all at once or not at all: the collages and the stored
/// selection alike.
///
/// The bytes go to an unnamed O_TMPFILE in the target folder (or, where the
/// file system lacks it, a hidden temporary name), are fsynced, and only then
/// get their name: with `link`, which refuses to replace an existing file, or,
/// with `overwrite`, by renaming over it; then the folder is fsynced, so the
/// name itself survives a crash. A reader sees the old file or the new, never
/// half of one.
enum AtomicFile {
    /// rw-rw-r--, then the umask: 0644 under the usual umask 022, 0600 under
    /// 077, and never writable by others. For files people share (collages).
    static let sharedFileMode: mode_t = 0o664
    /// rw-------: for private state (the selection names your files).
    static let privateFileMode: mode_t = 0o600

    /// Why writing `path` would be refused before any work is done for it:
    /// it exists and `overwrite` is off. Asked first to fail fast (a save
    /// draws its photos only after it); `link` in `write` is what makes the
    /// refusal safe against another process naming the file meanwhile.
    static func refusal(toWrite path: String, overwrite: Bool) -> FileWriteError? {
        !overwrite && FileManager.default.fileExists(atPath: path) ? .exists(path: path) : nil
    }

    /// `mode` is reduced by the umask, as for any file a program creates.
    static func write(_ bytes: [UInt8], to path: String, overwrite: Bool, mode: mode_t) throws {
        try write(to: path, overwrite: overwrite, mode: mode) { fd in
            guard writeEvery(bytes, to: fd) else { throw ioError(path) }
        }
    }

    /// The same, the bytes written by `fill` to the file's descriptor as
    /// they are made (a book's pages, one at a time): nothing is named until
    /// `fill` returns, and a `fill` that throws leaves nothing behind.
    static func write(to path: String, overwrite: Bool, mode: mode_t, fill: (Int32) throws -> Void) throws {
        let directory = (path as NSString).deletingLastPathComponent.isEmpty
            ? "." : (path as NSString).deletingLastPathComponent
        if let refusal = refusal(toWrite: path, overwrite: overwrite) { throw refusal }
        let fd = csys_open_tmpfile(directory, UInt32(mode))
        if fd >= 0 {
            try writeAll(fill, to: fd, path: path) { fd in
                if overwrite {
                    let hidden = try uniqueHiddenName(beside: path)
                    guard csys_link_fd(fd, hidden) == 0 else { throw ioError(path) }
                    guard rename(hidden, path) == 0 else {
                        let error = ioError(path)
                        unlink(hidden)
                        throw error
                    }
                } else if csys_link_fd(fd, path) != 0 {
                    throw errno == EEXIST ? FileWriteError.exists(path: path) : ioError(path)
                }
            }
        } else if errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL {
            try writeThroughHiddenFile(fill, to: path, overwrite: overwrite, mode: mode)
        } else {
            throw ioError(path)
        }
        syncDirectory(directory)
    }

    /// The fallback for file systems without O_TMPFILE: a hidden name in the
    /// same folder, removed on every failure.
    private static func writeThroughHiddenFile(_ fill: (Int32) throws -> Void, to path: String, overwrite: Bool,
                                               mode: mode_t) throws {
        let hidden = try uniqueHiddenName(beside: path)
        let fd = open(hidden, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw ioError(path) }
        do {
            try writeAll(fill, to: fd, path: path) { _ in
                if overwrite {
                    guard rename(hidden, path) == 0 else { throw ioError(path) }
                } else {
                    guard link(hidden, path) == 0 else {
                        throw errno == EEXIST ? FileWriteError.exists(path: path) : ioError(path)
                    }
                    unlink(hidden)
                }
            }
        } catch {
            unlink(hidden)
            throw error
        }
    }

    /// Writes every byte to `fd`, through short writes and interruptions;
    /// false with errno set on an error.
    static func writeEvery(_ bytes: [UInt8], to fd: Int32) -> Bool {
        bytes.withUnsafeBytes { writeEvery($0, to: fd) }
    }

    /// The same, of bytes borrowed (a page document's, as they come).
    static func writeEvery(_ raw: UnsafeRawBufferPointer, to fd: Int32) -> Bool {
        var offset = 0
        while offset < raw.count {
            let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }

    /// Writes, fsyncs, runs `publish` (which names the file), closes.
    private static func writeAll(_ fill: (Int32) throws -> Void, to fd: Int32, path: String,
                                 publish: (Int32) throws -> Void) throws {
        defer { close(fd) }
        try fill(fd)
        guard fsync(fd) == 0 else { throw ioError(path) }
        try publish(fd)
    }

    private static func uniqueHiddenName(beside path: String) throws -> String {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        for _ in 0..<100 {
            let candidate = "\(folder)/.\(url.lastPathComponent).\(UInt32.random(in: 0...UInt32.max)).tmp"
            if !FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        throw FileWriteError.io(path: path, reason: "cannot find a free temporary name")
    }

    /// Whether `name` (in the same folder) is a hidden temporary of
    /// `fileName` that a killed process left between naming it and renaming
    /// it over the file: `.NAME.<number>.tmp`.
    static func isLeftoverTemporary(_ name: String, of fileName: String) -> Bool {
        let prefix = ".\(fileName).", suffix = ".tmp"
        guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.count > prefix.count + suffix.count else {
            return false
        }
        return name.dropFirst(prefix.count).dropLast(suffix.count).allSatisfy(\.isNumber)
    }

    private static func syncDirectory(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }

    static func ioError(_ path: String) -> FileWriteError {
        .io(path: path, reason: String(cString: strerror(errno)))
    }
}
