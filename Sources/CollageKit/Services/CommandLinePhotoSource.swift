#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// A source of picks: the photos screen of the original app, here the
/// `collage add` command or the terminal picker.
public protocol PhotoSource {
    /// One value per pick. Completes when the source closes, which ends every
    /// subscription to it.
    var selectedPhotos: AnyPublisher<[Photo], Never> { get }
}

/// The picks of one `collage add FILE...` run: all its files form one pick.
/// The subject is private: others can only subscribe.
public final class CommandLinePhotoSource: PhotoSource {
    private let subject = PassthroughSubject<[Photo], Never>()

    public init() {}

    public var selectedPhotos: AnyPublisher<[Photo], Never> { subject.eraseToAnyPublisher() }

    public func pick(_ photos: [Photo]) { subject.send(photos) }

    /// The command is done: complete the stream.
    public func close() { subject.send(completion: .finished) }
}
