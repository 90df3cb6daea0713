import CollageImaging
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A folder's content as the photos screen shows it.
public struct DirectoryEntry: Equatable, Hashable, Sendable {
    public enum Kind: Equatable, Hashable, Sendable { case folder, photo }

    public let name: String
    public let path: String
    public let kind: Kind

    public init(name: String, path: String, kind: Kind) {
        self.name = name
        self.path = path
        self.kind = kind
    }

    public var isHidden: Bool { name.hasPrefix(".") }
}

/// A folder, read but not yet judged: its sub-folders, and the files still
/// to be classified by content.
public struct DirectoryListing: Equatable, Sendable {
    public let folders: [DirectoryEntry]
    public let files: [String]
}

/// The photo library of the original app: here, the file system.
public protocol DirectoryBrowsing: Sendable {
    /// Reads a folder. Throws a `CollageFailure` (`.folder`) naming it when it cannot be read.
    func list(_ directory: String) throws -> DirectoryListing
    /// Whether a file is a photo, judged by its first bytes (JPEG or PNG).
    func isPhoto(_ path: String) -> Bool
}

/// Natural order ("img2" before "img10"), ignoring case: how people sort names.
public func naturalOrder(_ a: String, _ b: String) -> Bool {
    let order = a.compare(b, options: [.numeric, .caseInsensitive])
    return order == .orderedSame ? a < b : order == .orderedAscending
}

/// The real file system, through readdir: a folder of 10,000 files lists in
/// milliseconds because entry types come from the directory itself.
public struct FileSystemBrowser: DirectoryBrowsing {
    public init() {}

    public func list(_ directory: String) throws -> DirectoryListing {
        guard let handle = opendir(directory) else {
            throw CollageFailure(.folder, path: directory,
                                 message: "cannot open \(directory): \(String(cString: strerror(errno)))")
        }
        defer { closedir(handle) }
        var folders: [DirectoryEntry] = []
        var files: [String] = []
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            let path = base + name
            var isFolder = Int32(entry.pointee.d_type) == Int32(DT_DIR)
            var isFile = Int32(entry.pointee.d_type) == Int32(DT_REG)
            // Links and file systems that do not report types need a stat.
            if !isFolder && !isFile {
                var info = stat()
                if stat(path, &info) == 0 {
                    isFolder = (info.st_mode & S_IFMT) == S_IFDIR
                    isFile = (info.st_mode & S_IFMT) == S_IFREG
                }
            }
            if isFolder {
                folders.append(DirectoryEntry(name: name, path: path, kind: .folder))
            } else if isFile {
                files.append(path)
            }
        }
        folders.sort { naturalOrder($0.name, $1.name) }
        return DirectoryListing(folders: folders, files: files)
    }

    public func isPhoto(_ path: String) -> Bool {
        // O_NONBLOCK: a FIFO among the files must not stall the scan.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 8)
        let count = header.withUnsafeMutableBytes { read(fd, $0.baseAddress, 8) }
        guard count > 0 else { return false }
        return ci_sniff_format(header, count) != CI_FORMAT_UNKNOWN
    }
}
