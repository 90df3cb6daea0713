import Foundation

/// A photo in a collage: a reference to a file, by absolute path.
///
/// The selection stores references, not pixels: decoding happens once, when
/// the collage is drawn or saved.
public struct Photo: Hashable, Codable, Sendable, CustomStringConvertible {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// A photo for `path`, made absolute against `directory` (the current
    /// folder by default). Symbolic links are kept as given: the user named
    /// that path.
    public init(resolving path: String, against directory: String = FileManager.default.currentDirectoryPath) {
        // By its first byte: String.hasPrefix compares Characters, and "/"
        // followed by a combining mark is one Character that is not "/", so
        // such an absolute path was taken for a relative one (found by fuzzing).
        if path.utf8.first == UInt8(ascii: "/") {
            self.path = URL(fileURLWithPath: path).standardizedFileURL.path
        } else {
            self.path = URL(fileURLWithPath: directory).appendingPathComponent(path).standardizedFileURL.path
        }
    }

    public var url: URL { URL(fileURLWithPath: path) }
    public var fileName: String { url.lastPathComponent }
    public var description: String { path }
}
