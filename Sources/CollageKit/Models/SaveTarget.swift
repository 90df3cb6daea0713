import Foundation

/// Where a saved collage goes: a file, in the format its extension names,
/// or standard output (`save -o -`), in the format asked for, for pipes.
public enum SaveTarget: Equatable, Sendable {
    case file(URL)
    case standardOutput(ImageFormat)

    /// The format written.
    public func format() throws(SaveFormatError) -> ImageFormat {
        switch self {
        case let .file(url): try ImageFormat(path: url.path)
        case let .standardOutput(format): format
        }
    }

    /// How messages name it.
    public var name: String {
        switch self {
        case let .file(url): url.path
        case .standardOutput: "standard output"
        }
    }

    /// The start of a failure's message: "cannot save PATH".
    public var cannotSave: String {
        switch self {
        case let .file(url): "cannot save \(url.path)"
        case .standardOutput: "cannot save to standard output"
        }
    }
}
