import CollageSystem
import Dispatch
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A stream that emits no values and ends in completion or an error: the
/// shape of "the file is written" or "it is not, and here is why".
public typealias Completable = AnyPublisher<Never, Error>

/// Saves a rendered collage.
public protocol PhotoWriting {
    func save(_ image: RGBImage, to destination: URL, format: ImageFormat, quality: Int, overwrite: Bool) -> Completable
}

/// Why a collage could not be written. Messages name the file.
public enum PhotoWriterError: Error, Equatable, CustomStringConvertible {
    case exists(path: String)
    case io(path: String, reason: String)

    public var description: String {
        switch self {
        case let .exists(path): return "\(path) already exists"
        case let .io(path, reason): return "cannot write \(path): \(reason)"
        }
    }
}

/// Encodes a collage and writes it so that a crash never leaves a
/// half-written file under the real name.
///
/// The bytes go to an unnamed O_TMPFILE in the target folder (or, where the
/// file system lacks it, a hidden temporary name), are fsynced, and only then
/// get their name: with `link`, which refuses to replace an existing file, or,
/// with `overwrite`, by renaming over it. The work runs on `queue`, never on
/// the caller's thread.
public final class PhotoWriter: PhotoWriting {
    private let encoder: ImageEncoding
    private let queue: DispatchQueue

    public init(encoder: ImageEncoding = ImageEngine(),
                queue: DispatchQueue = DispatchQueue(label: "collage.photo-writer", qos: .userInitiated)) {
        self.encoder = encoder
        self.queue = queue
    }

    public func save(_ image: RGBImage, to destination: URL, format: ImageFormat, quality: Int, overwrite: Bool) -> Completable {
        let encoder = self.encoder
        let queue = self.queue
        return Deferred {
            Future<Void, Error> { promise in
                queue.async {
                    promise(Result {
                        let bytes = try encoder.encode(image, as: format, quality: quality)
                        try AtomicFile.write(bytes, to: destination.path, overwrite: overwrite)
                    })
                }
            }
        }
        .ignoreOutput()
        .eraseToAnyPublisher()
    }
}

/// Writing a file all at once or not at all.
enum AtomicFile {
    /// rw-rw-r--, then the umask: 0644 under the usual umask 022, 0600 under
    /// 077, and never writable by others.
    static let fileMode: mode_t = 0o664

    static func write(_ bytes: [UInt8], to path: String, overwrite: Bool) throws {
        let directory = (path as NSString).deletingLastPathComponent.isEmpty
            ? "." : (path as NSString).deletingLastPathComponent
        if !overwrite && FileManager.default.fileExists(atPath: path) {
            // Checked early to fail fast; `link` below is what makes it safe.
            throw PhotoWriterError.exists(path: path)
        }
        // 0o664 minus the umask: like any file a program creates (0o666), but
        // never world-writable, even under umask 000.
        let fd = csys_open_tmpfile(directory, fileMode)
        if fd >= 0 {
            try writeAll(bytes, to: fd, path: path, closing: true) { fd in
                if overwrite {
                    let hidden = try uniqueHiddenName(beside: path)
                    guard csys_link_fd(fd, hidden) == 0 else { throw ioError(path) }
                    guard rename(hidden, path) == 0 else {
                        let error = ioError(path)
                        unlink(hidden)
                        throw error
                    }
                } else if csys_link_fd(fd, path) != 0 {
                    throw errno == EEXIST ? PhotoWriterError.exists(path: path) : ioError(path)
                }
            }
        } else if errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL {
            try writeThroughHiddenFile(bytes, to: path, overwrite: overwrite)
        } else {
            throw ioError(path)
        }
        syncDirectory(directory)
    }

    /// The fallback for file systems without O_TMPFILE: a hidden name in the
    /// same folder, removed on every failure.
    private static func writeThroughHiddenFile(_ bytes: [UInt8], to path: String, overwrite: Bool) throws {
        let hidden = try uniqueHiddenName(beside: path)
        let fd = open(hidden, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        guard fd >= 0 else { throw ioError(path) }
        do {
            try writeAll(bytes, to: fd, path: path, closing: true) { _ in
                if overwrite {
                    guard rename(hidden, path) == 0 else { throw ioError(path) }
                } else {
                    guard link(hidden, path) == 0 else {
                        throw errno == EEXIST ? PhotoWriterError.exists(path: path) : ioError(path)
                    }
                    unlink(hidden)
                }
            }
        } catch {
            unlink(hidden)
            throw error
        }
    }

    /// Writes, fsyncs, runs `publish` (which names the file), closes.
    private static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String, closing: Bool,
                                 publish: (Int32) throws -> Void) throws {
        defer { close(fd) }
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ioError(path)
                }
                offset += n
            }
        }
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
        throw PhotoWriterError.io(path: path, reason: "cannot find a free temporary name")
    }

    private static func syncDirectory(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }

    private static func ioError(_ path: String) -> PhotoWriterError {
        .io(path: path, reason: String(cString: strerror(errno)))
    }
}
