/// Why an action the rules allowed did not happen: what failed, which file,
/// and why. Every failure the view models report has this one type, so a view
/// tells "the file exists" from "the disk is full" by `kind`, never by
/// reading the text, and words its own advice once (the command line's
/// options, which the collage screen does not have).
public struct CollageFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// The stored selection could not be read or written.
        case storage
        /// A photo could not be opened or decoded (the engine's reason).
        case photo(ImageEngineError.Kind)
        /// A value given for the collage cannot work (format, a gap that leaves no room).
        case options
        /// The output's name is taken by an existing file.
        case outputExists
        /// The output could not be written (permissions, full disk, missing folder).
        case write
        /// A folder could not be read.
        case folder
        /// The collage was saved, but the selection could not be cleared.
        case clearAfterSave
        /// An error no service names: a fault of collage's own, not the
        /// person's or the disk's; the message is the error's own words.
        case unexpected
    }

    public let kind: Kind
    /// The file or folder concerned, where there is one.
    public let path: String?
    /// One line for a person, naming the file: what went wrong, in no
    /// interface's terms (a view adds its own advice, by `kind` and the
    /// values below).
    public let message: String
    /// A photo over the pixel limit: the fewest pixels it decodes to
    /// (`ImageEngineError.pixelsNeeded`), for a view that can raise the limit.
    public let pixelsNeeded: UInt64?
    public var description: String { message }

    public init(_ kind: Kind, path: String? = nil, message: String, pixelsNeeded: UInt64? = nil) {
        self.kind = kind
        self.path = path
        self.message = message
        self.pixelsNeeded = pixelsNeeded
    }

    /// What an error thrown by a service means as a failure.
    public init(_ error: Error) {
        switch error {
        case let failure as CollageFailure:
            self = failure
        case let error as ImageEngineError:
            self.init(.photo(error.kind), message: error.message, pixelsNeeded: error.pixelsNeeded)
        case let FileWriteError.exists(path):
            self.init(.outputExists, path: path, message: "\(error)")
        case let FileWriteError.io(path, _):
            self.init(.write, path: path, message: "\(error)")
        case is SelectionStoreError:
            self.init(.storage, message: "\(error)")
        case is ValueError, is LayoutError, is SaveFormatError, is RenderValueError:
            self.init(.options, message: "\(error)")
        default:
            // Not called a write failure (or anything else) that it may not be.
            self.init(.unexpected, message: "\(error)")
        }
    }

    /// The same failure, its message led by `context` ("cannot save X").
    public func within(_ context: String) -> CollageFailure {
        CollageFailure(kind, path: path, message: "\(context): \(message)", pixelsNeeded: pixelsNeeded)
    }
}
