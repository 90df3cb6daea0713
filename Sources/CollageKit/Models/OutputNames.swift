import Foundation

/// The default name of a saved collage: `collage-YYYYMMDD-HHMMSS.jpg`, or
/// with `attempt` 2, 3... `collage-YYYYMMDD-HHMMSS-2.jpg`: two saves in the
/// same second both get a name. Its extension is `format`'s (JPEG unless
/// told: `save --format png`).
public func defaultCollageFileName(now: Date = Date(), attempt: Int = 1, format: ImageFormat = .standard) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyyMMdd-HHmmss"
    return "collage-\(formatter.string(from: now))" + (attempt > 1 ? "-\(attempt)" : "") + "." + format.fileExtension
}

/// Where `save -o OUTPUT` writes. OUTPUT names the file, or a folder (it ends
/// in "/" or is an existing folder), in which the default name is used;
/// without OUTPUT, the default name in the current folder. `usesDefaultName`:
/// the name may move on to "-2", "-3"... when taken.
public struct SaveDestination: Equatable, Sendable {
    public let folder: String
    public let fileName: String?
    /// The format of the default name.
    public var defaultFormat: ImageFormat = .standard

    public init(output: String?, workingDirectory: String, isFolder: (String) -> Bool) {
        guard let output else {
            folder = workingDirectory
            fileName = nil
            return
        }
        let path = Photo(resolving: output, against: workingDirectory).path
        if output.hasSuffix("/") || isFolder(path) {
            folder = path
            fileName = nil
        } else {
            folder = (path as NSString).deletingLastPathComponent
            fileName = (path as NSString).lastPathComponent
        }
    }

    public var usesDefaultName: Bool { fileName == nil }

    /// The path for the `attempt`-th try (only default names change).
    public func path(now: Date, attempt: Int = 1) -> String {
        let name = fileName ?? defaultCollageFileName(now: now, attempt: attempt, format: defaultFormat)
        return folder == "/" ? "/" + name : folder + "/" + name
    }
}
