/// An image the engine refused or failed on; `message` names the file.
public struct ImageEngineError: Error, Equatable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        case open, notImage, unsupported, corrupt, tooLarge, noMemory, invalidArgument, encode
    }

    public let kind: Kind
    public let message: String
    /// For a photo refused for its size (`tooLarge`, where the probe tells):
    /// the fewest pixels it decodes to, which a limit must allow to admit it.
    public let pixelsNeeded: UInt64?
    public var description: String { message }

    public init(kind: Kind, message: String, pixelsNeeded: UInt64? = nil) {
        self.kind = kind
        self.message = message
        self.pixelsNeeded = pixelsNeeded
    }

    /// A path with a NUL byte (possible in a batch list) names no file; as a
    /// C string it would name a different one, cut at the NUL.
    static func unopenable(_ photo: Photo) -> ImageEngineError {
        ImageEngineError(kind: .open, message: "\(photo.path.debugDescription.dropFirst().dropLast()): not a valid file name (it contains a NUL byte)")
    }
}
