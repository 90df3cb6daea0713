import Foundation

/// A photo in a collage: a reference to a file, by absolute path.
///
/// The selection stores references, not pixels: decoding happens once, when
/// the collage is drawn or saved.
///
/// A Linux file name is a string of bytes, not necessarily UTF-8. `path` is
/// the text shown to people; for a name that is not valid UTF-8 it has U+FFFD
/// in place of the bad bytes, so it no longer names the file. The exact bytes
/// are kept too (`fileSystemPath`), and everything that opens the file uses
/// them (`withFileSystemPath`): such a photo can be added, stored, listed in a
/// batch and saved like any other.
public struct Photo: Hashable, Sendable, CustomStringConvertible {
    /// The path as text: exact for every valid UTF-8 name, for display otherwise.
    public let path: String
    /// The exact bytes when they are not valid UTF-8 (nil otherwise, so that
    /// two photos of one file are equal however they were made).
    private let rawPath: [UInt8]?
    /// Where the person wants its crop centred (`collage focus`), if anywhere.
    public var focus: PhotoFocus?
    /// The person's own caption for it (`collage caption`), if any.
    public var caption: String?

    public init(path: String) {
        self.path = path
        rawPath = nil
    }

    /// A photo for the exact bytes of a path (not made absolute).
    public init(fileSystemPath bytes: [UInt8]) {
        if let text = String(validating: bytes, as: UTF8.self) {
            path = text
            rawPath = nil
        } else {
            path = String(decoding: bytes, as: UTF8.self)
            rawPath = bytes
        }
    }

    /// A photo for `path`, made absolute against `directory` (the current
    /// folder by default). Symbolic links are kept as given: the user named
    /// that path. "." components and repeated slashes are dropped; "x/.." is
    /// dropped only where x is a real folder, so the path still opens exactly
    /// the file the typed one does (see `standardized`).
    public init(resolving path: String, against directory: String = FileManager.default.currentDirectoryPath) {
        self.init(resolvingFileSystemPath: Array(path.utf8), against: directory)
    }

    /// The same for the exact bytes of a path, which need not be UTF-8.
    public init(resolvingFileSystemPath bytes: [UInt8],
                against directory: String = FileManager.default.currentDirectoryPath) {
        // By its first byte: String.hasPrefix("/") compares Characters, and "/"
        // followed by a combining mark is one Character that is not "/", so
        // such an absolute path was once taken for a relative one (found by
        // fuzzing the batch list).
        let slash = UInt8(ascii: "/")
        let absolute = bytes.first == slash ? bytes : Array(directory.utf8) + [slash] + bytes
        self.init(fileSystemPath: Self.standardized(absolute))
    }

    /// The exact bytes of the path, as the file system names the file.
    public var fileSystemPath: [UInt8] { rawPath ?? Array(path.utf8) }

    /// Whether `path` names the file exactly (false for a name that is not UTF-8).
    public var pathIsExact: Bool { rawPath == nil }

    /// Calls `body` with the path as a NUL-terminated C string of its exact
    /// bytes. A path that itself contains a NUL byte (a batch list can have
    /// one) cannot name a file: as a C string it would name another, cut at
    /// the NUL. Then `body` is not called and the result is nil.
    public func withFileSystemPath<T>(_ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T? {
        var bytes = fileSystemPath
        if bytes.contains(0) { return nil }
        bytes.append(0)
        return try bytes.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// Why the file cannot be read now (access(2), R_OK), nil when it can:
    /// gone (no such file, or a folder on its path that is not one), or
    /// there but refused, with the system's reason ("Permission denied"),
    /// which putting the file back would not mend.
    public var absence: PhotoAbsence? {
        guard let result = withFileSystemPath({ access($0, R_OK) == 0 ? 0 : errno }) else { return .missing }
        switch result {
        case 0: return nil
        case ENOENT, ENOTDIR: return .missing
        default: return .unreadable(reason: String(cString: strerror(result)))
        }
    }

    /// The folder that holds this file, by its exact bytes ("/" for "/").
    /// The photos screen walks folders this way, so a folder whose name is
    /// not UTF-8 can be entered and left.
    public var parent: Photo {
        let bytes = fileSystemPath
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")), slash > 0 else {
            return Photo(fileSystemPath: [UInt8(ascii: "/")])
        }
        return Photo(fileSystemPath: Array(bytes[..<slash]))
    }

    /// The file named `name` (exact bytes, one component) in this folder.
    public func appending(_ name: [UInt8]) -> Photo {
        var bytes = fileSystemPath
        if bytes.last != UInt8(ascii: "/") { bytes.append(UInt8(ascii: "/")) }
        return Photo(fileSystemPath: bytes + name)
    }

    public var url: URL { URL(fileURLWithPath: path) }
    public var fileName: String { url.lastPathComponent }
    public var description: String { path }

    /// "/a//b/./c/../d/" -> "/a/b/d", as the kernel would resolve it:
    /// "." and empty components go, "/.." is "/", and "c/.." goes only when c
    /// is a real folder (not a symbolic link, which ".." would leave through
    /// its target's parent; not missing, where the kernel would fail).
    /// (URL.standardizedFileURL, used before, resolved symbolic links when
    /// the path had "..": "../link.jpg" was recorded as the link's target.)
    static func standardized(_ absolute: [UInt8]) -> [UInt8] {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        var components: [ArraySlice<UInt8>] = []
        func joined(_ parts: [ArraySlice<UInt8>]) -> [UInt8] {
            var result: [UInt8] = []
            for part in parts {
                result.append(slash)
                result.append(contentsOf: part)
            }
            return result.isEmpty ? [slash] : result
        }
        func isRealFolder(_ parts: [ArraySlice<UInt8>]) -> Bool {
            var path = joined(parts)
            if path.contains(0) { return false }
            path.append(0)
            var info = stat()
            let found = path.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { lstat($0.baseAddress!, &info) == 0 }
            }
            return found && (info.st_mode & S_IFMT) == S_IFDIR
        }
        for component in absolute.split(separator: slash) {
            if component.elementsEqual([dot]) { continue }
            if component.elementsEqual([dot, dot]) {
                if components.isEmpty { continue }
                if !components.last!.elementsEqual([dot, dot]) && isRealFolder(components) {
                    components.removeLast()
                    continue
                }
            }
            components.append(component)
        }
        return joined(components)
    }
}

/// Why a photo of the selection can no longer be read.
public enum PhotoAbsence: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Deleted or moved since it was added.
    case missing
    /// There, but the system refuses to read it (permissions), for `reason`.
    case unreadable(reason: String)

    /// As `status` and the collage screen mark the photo: "missing",
    /// "unreadable (Permission denied)".
    public var description: String {
        switch self {
        case .missing: "missing"
        case let .unreadable(reason): "unreadable (\(reason))"
        }
    }

    /// What a person can do about it.
    public var remedy: String {
        switch self {
        case .missing: "remove it, or put the file back"
        case .unreadable: "remove it, or make it readable"
        }
    }
}

/// A point of a photo, in fractions (0-1) of its upright width and height,
/// that its crop is centred on (as far as the photo allows).
public struct PhotoFocus: Hashable, Sendable, Codable, CustomStringConvertible {
    public let x: Double
    public let y: Double

    /// What a focus is, in the words every refusal of one uses.
    public static let rule = "a focus is two fractions from 0 to 1 (0 0 is the top left, 0.5 0.5 the middle)"

    public init(x: Double, y: Double) throws {
        guard (0...1).contains(x), (0...1).contains(y) else {
            throw ValueError("\(Self.rule), not \(x) \(y)")
        }
        self.x = x
        self.y = y
    }

    /// "0.5" or "50%" (surrounding whitespace ignored unless `exact`: a
    /// batch list's fields are already split at blanks).
    public static func fraction(parsing text: String, exact: Bool = false) throws -> Double {
        let trimmed = exact ? text : text.trimmingCharacters(in: .whitespaces)
        let isPercent = trimmed.hasSuffix("%")
        guard let value = Double(isPercent ? String(trimmed.dropLast()) : trimmed), value.isFinite else {
            throw ValueError("'\(text)' is not a fraction from 0 to 1 (or a percentage)")
        }
        return isPercent ? value / 100 : value
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        do {
            try self.init(x: try container.decode(Double.self, forKey: .x), y: try container.decode(Double.self, forKey: .y))
        } catch let error as ValueError {
            throw DecodingError.dataCorruptedError(forKey: .x, in: container, debugDescription: error.description)
        }
    }

    /// The point moved by (dx, dy), kept on the photo.
    public func moved(dx: Double, dy: Double) -> PhotoFocus {
        func clamp(_ v: Double) -> Double { min(1, max(0, (v * 100).rounded() / 100)) }
        return try! PhotoFocus(x: clamp(x + dx), y: clamp(y + dy))
    }

    public static let centre = try! PhotoFocus(x: 0.5, y: 0.5)

    /// "0.5,0.25": as `collage focus` takes it.
    public var description: String {
        func short(_ v: Double) -> String {
            var text = String(format: "%.3f", v)
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
            return text
        }
        return "\(short(x)),\(short(y))"
    }
}

extension Photo: Codable {
    /// `{"path": "<as text>"}`, with `"bytes": "<base64 of the exact bytes>"`
    /// when they are not UTF-8 (the selection file stores such names so),
    /// `"focus": {"x": 0.5, "y": 0.2}` and `"caption": "..."` when the
    /// person set them.
    enum CodingKeys: String, CodingKey {
        case path
        case bytes
        case focus
        case caption
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let encoded = try container.decodeIfPresent(String.self, forKey: .bytes) {
            guard let bytes = Data(base64Encoded: encoded) else {
                throw DecodingError.dataCorruptedError(forKey: .bytes, in: container,
                                                       debugDescription: "not base64")
            }
            self.init(fileSystemPath: Array(bytes))
        } else {
            self.init(path: try container.decode(String.self, forKey: .path))
        }
        focus = try container.decodeIfPresent(PhotoFocus.self, forKey: .focus)
        caption = try container.decodeIfPresent(String.self, forKey: .caption)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        if let rawPath { try container.encode(Data(rawPath).base64EncodedString(), forKey: .bytes) }
        try container.encodeIfPresent(focus, forKey: .focus)
        try container.encodeIfPresent(caption, forKey: .caption)
    }

    /// The same file with `focus`.
    public func focused(_ focus: PhotoFocus?) -> Photo {
        var photo = self
        photo.focus = focus
        return photo
    }

    /// The same file with `caption`.
    public func captioned(_ caption: String?) -> Photo {
        var photo = self
        photo.caption = caption
        return photo
    }

    /// The most characters a caption may have: a caption is a line or two
    /// under a photo, and a limit keeps a pasted document out of the
    /// selection file.
    public static let maximumCaptionLength = 200

    /// A caption as a person typed it: surrounding white space trimmed;
    /// refused when empty or over the limit. `withoutIt` is the advice for
    /// an empty one: how to have none where this one was given, in the
    /// words of the view that read it (a batch list leaves out `#caption`;
    /// nil: none to give).
    public static func caption(parsing text: String, withoutIt: String? = nil) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw ValueError("the caption is empty: give some text" + (withoutIt.map { ", or \($0)" } ?? "")) }
        guard trimmed.count <= maximumCaptionLength else {
            throw ValueError("the caption has \(trimmed.count) characters: the limit is \(maximumCaptionLength)")
        }
        return trimmed
    }
}
