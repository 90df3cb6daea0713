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

/// Saves a rendered collage: its pixels, or its page (PDF).
public protocol PhotoWriting: Sendable {
    func save(_ collage: CollageOutput, to destination: URL, format: ImageFormat, options: SaveOptions,
              overwrite: Bool) -> Completable
    /// Why saving to `destination` would be refused before the collage is
    /// drawn (it exists, without `overwrite`), or nil.
    func refusal(toSave destination: URL, overwrite: Bool) -> Error?
    /// Writes it to standard output (`save -o -`), for a pipe.
    func send(_ collage: CollageOutput, format: ImageFormat, options: SaveOptions) -> Completable
}

/// Encodes a collage and writes it so that a crash never leaves a
/// half-written file under the real name.
///
/// The bytes are written by `AtomicFile` (Support/AtomicFile.swift). The work
/// runs on `queue`, never on the caller's thread.
public final class PhotoWriter: PhotoWriting, Sendable {
    private let encoder: ImageEncoding
    private let queue: DispatchQueue

    public init(encoder: ImageEncoding,
                queue: DispatchQueue = DispatchQueue(label: "collage.photo-writer", qos: .userInitiated)) {
        self.encoder = encoder
        self.queue = queue
    }

    public func save(_ collage: CollageOutput, to destination: URL, format: ImageFormat, options: SaveOptions,
                     overwrite: Bool) -> Completable {
        encode(collage, as: format, options: options) { bytes in
            try AtomicFile.write(bytes, to: destination.path, overwrite: overwrite, mode: AtomicFile.sharedFileMode)
        }
    }

    public func refusal(toSave destination: URL, overwrite: Bool) -> Error? {
        AtomicFile.refusal(toWrite: destination.path, overwrite: overwrite)
    }

    public func send(_ collage: CollageOutput, format: ImageFormat, options: SaveOptions) -> Completable {
        encode(collage, as: format, options: options) { try StandardOutput.write($0) }
    }

    /// Encodes on the writer's queue, then hands the bytes to `write` there.
    private func encode(_ collage: CollageOutput, as format: ImageFormat, options: SaveOptions,
                        then write: @escaping @Sendable ([UInt8]) throws -> Void) -> Completable {
        let encoder = self.encoder
        let queue = self.queue
        return Deferred {
            Future<Void, Error>.running(on: queue) {
                try write(try collage.encoded(by: encoder, as: format, options: options))
            }
        }
        .ignoreOutput()
        .eraseToAnyPublisher()
    }
}

/// Whole byte buffers to standard output: every byte, or an error naming why
/// not (a reader that went away is EPIPE, when SIGPIPE is ignored).
public enum StandardOutput {
    public struct WriteError: Error, CustomStringConvertible {
        public let description: String
    }

    public static func write(_ bytes: [UInt8]) throws {
        guard AtomicFile.writeEvery(bytes, to: STDOUT_FILENO) else { throw WriteError(description: String(cString: strerror(errno))) }
    }
}
