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

/// Encodes a collage and writes it so that a crash never leaves a
/// half-written file under the real name.
///
/// The bytes are written by `AtomicFile` (Support/AtomicFile.swift). The work
/// runs on `queue`, never on the caller's thread.
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
                        try AtomicFile.write(bytes, to: destination.path, overwrite: overwrite, mode: AtomicFile.sharedFileMode)
                    })
                }
            }
        }
        .ignoreOutput()
        .eraseToAnyPublisher()
    }
}
