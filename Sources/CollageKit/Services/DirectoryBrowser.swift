import CollageImaging
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A folder's content as the photos screen shows it.
public struct DirectoryEntry: Equatable, Hashable, Sendable {
    /// `unreadable`: a file that looks like an image collage does not read,
    /// listed dimmed with `reason`.
    public enum Kind: Equatable, Hashable, Sendable { case folder, photo, unreadable }

    /// The name as shown: exact for UTF-8 names, U+FFFD for bytes that are not.
    public let name: String
    /// The entry by the exact bytes of its path, as the file system names it:
    /// what is opened, previewed and added (`Photo` is the project's
    /// exact-bytes file reference, for folders too).
    public let file: Photo
    public let kind: Kind
    /// Why an `unreadable` entry is not read.
    public let reason: String?

    public init(name: String, file: Photo, kind: Kind, reason: String? = nil) {
        self.name = name
        self.file = file
        self.kind = kind
        self.reason = reason
    }

    /// The path as text, for display.
    public var path: String { file.path }
    public var isHidden: Bool { name.hasPrefix(".") }
}

/// A folder, read but not yet judged: its sub-folders, and the files still
/// to be classified by content.
public struct DirectoryListing: Equatable, Sendable {
    public let folders: [DirectoryEntry]
    public let files: [Photo]

    public init(folders: [DirectoryEntry], files: [Photo]) {
        self.folders = folders
        self.files = files
    }
}

/// The photo library of the original app: here, the file system. Folders and
/// files are named by their exact bytes: a name need not be UTF-8.
public protocol DirectoryBrowsing: Sendable {
    /// Reads a folder. Throws a `CollageFailure` (`.folder`) naming it when it cannot be read.
    func list(_ directory: Photo) throws -> DirectoryListing
    /// What a file is: a photo judged by its first bytes (ci_sniff_format),
    /// else by its name and bytes (`FileClass.unrecognised`).
    func classify(_ file: Photo) -> FileClass
}

extension DirectoryBrowsing {
    /// Whether a file is a photo collage reads.
    public func isPhoto(_ file: Photo) -> Bool { classify(file) == .photo }
}

/// Natural order ("img2" before "img10"), ignoring case: how people sort names.
public func naturalOrder(_ a: String, _ b: String) -> Bool {
    let order = a.compare(b, options: [.numeric, .caseInsensitive])
    return order == .orderedSame ? a < b : order == .orderedAscending
}

/// A folder's files by name alone: each name's exact bytes followed by a
/// NUL, all in one buffer. A walk over a library keeps 100,000 names so,
/// not 100,000 paths of their own (an allocation and a UTF-8 check each),
/// and stats each from its folder (fstatat) straight from the buffer.
public struct FileNames: Sendable {
    /// The names, each ended by a 0.
    public private(set) var bytes: [UInt8] = []
    /// Where each name starts in `bytes`.
    public private(set) var starts: [Int] = []
    /// Whether every name is ASCII: then the order of their bytes is the
    /// order of their text too.
    public private(set) var isASCII = true

    public init() {}

    public var count: Int { starts.count }

    public mutating func append(_ name: UnsafeRawBufferPointer) {
        starts.append(bytes.count)
        bytes.append(contentsOf: name)
        bytes.append(0)
        if isASCII { isASCII = !name.contains { $0 >= 0x80 } }
    }

    public mutating func append(_ name: [UInt8]) {
        name.withUnsafeBytes { append($0) }
    }

    /// Where the name at `index` is in `bytes`, without its NUL.
    public func bounds(_ index: Int) -> Range<Int> {
        starts[index]..<(index + 1 < starts.count ? starts[index + 1] : bytes.count) - 1
    }

    /// The name at `index`, without its NUL.
    public subscript(index: Int) -> ArraySlice<UInt8> { bytes[bounds(index)] }

    /// The names' indices in the order of their bytes (memcmp's, a shorter
    /// name before the longer it starts: SQLite's order of BLOBs).
    public func indicesByBytes() -> [Int] {
        bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            let names = starts.indices.map(bounds)
            // Each name's first 16 bytes as two numbers, compared before the
            // bytes: most names differ there ("IMG_0123.jpg"), and a memcmp
            // a comparison was half the work of a warm run's folder. A name
            // has no 0 byte, so one padded with zeros still comes before
            // the longer names it starts.
            let heads = names.map { name -> (UInt64, UInt64) in
                var head: (UInt64, UInt64) = (0, 0)
                withUnsafeMutableBytes(of: &head) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[name.prefix(16)])) }
                return (UInt64(bigEndian: head.0), UInt64(bigEndian: head.1))
            }
            return starts.indices.sorted { a, b in
                if heads[a] != heads[b] { return heads[a] < heads[b] }
                return Self.precedes(base + names[a].lowerBound, names[a].count, base + names[b].lowerBound, names[b].count)
            }
        }
    }

    /// Whether the bytes `a` come before the bytes `b` (memcmp's order).
    public static func precedes(_ a: UnsafePointer<UInt8>, _ aCount: Int, _ b: UnsafePointer<UInt8>, _ bCount: Int) -> Bool {
        let order = memcmp(a, b, min(aCount, bCount))
        return order < 0 || (order == 0 && aCount < bCount)
    }
}

/// The real file system, through readdir: a folder of 10,000 files lists in
/// milliseconds because entry types come from the directory itself.
public struct FileSystemBrowser: DirectoryBrowsing {
    public init() {}

    public func list(_ directory: Photo) throws -> DirectoryListing {
        let (folders, names) = try Self.names(in: directory)
        return DirectoryListing(folders: folders, files: (0..<names.count).map { directory.appending(Array(names[$0])) })
    }

    /// A folder's sub-folders (in natural order) and the names of its
    /// regular files (in the order read; without those starting with "."
    /// unless `hidden`): what `list` gives, without a path made for each
    /// file (`suggest --recursive` over a library).
    public static func names(in directory: Photo, hidden: Bool = true) throws -> (folders: [DirectoryEntry], files: FileNames) {
        guard let handle = directory.withFileSystemPath({ opendir($0) }) ?? nil else {
            throw CollageFailure(.folder, path: directory.path,
                                 message: "cannot open \(directory.path): \(String(cString: strerror(errno)))")
        }
        defer { closedir(handle) }
        var folders: [DirectoryEntry] = []
        var files = FileNames()
        while let entry = readdir(handle) {
            // The name's exact bytes: decoding it as UTF-8 here once turned
            // "caf\xe9.jpg" into "caf\u{FFFD}.jpg", a file that does not exist.
            // Read in place: a copy of `d_name` reads all 256 bytes of the
            // array, past the end of a short record at the end of readdir's
            // buffer (AddressSanitizer found it: a heap-buffer-overflow on a
            // folder of 100,000 files).
            let name = UnsafeRawPointer(entry).advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
            let length = strlen(name.assumingMemoryBound(to: CChar.self))
            let nameBytes = UnsafeRawBufferPointer(start: name, count: length)
            let dot = UInt8(ascii: ".")
            if nameBytes.first == dot && (length == 1 || (length == 2 && nameBytes[1] == dot)) { continue }
            var isFolder = Int32(entry.pointee.d_type) == Int32(DT_DIR)
            var isFile = Int32(entry.pointee.d_type) == Int32(DT_REG)
            // Links and file systems that do not report types need a stat
            // (from the folder: its path is not walked again).
            if !isFolder && !isFile {
                var info = stat()
                if fstatat(dirfd(handle), name.assumingMemoryBound(to: CChar.self), &info, 0) == 0 {
                    isFolder = (info.st_mode & S_IFMT) == S_IFDIR
                    isFile = (info.st_mode & S_IFMT) == S_IFREG
                }
            }
            if isFolder {
                let bytes = Array(nameBytes)
                folders.append(DirectoryEntry(name: String(decoding: bytes, as: UTF8.self), file: directory.appending(bytes), kind: .folder))
            } else if isFile && (hidden || nameBytes.first != dot) {
                files.append(nameBytes)
            }
        }
        folders.sort { naturalOrder($0.name, $1.name) }
        return (folders, files)
    }

    public func classify(_ file: Photo) -> FileClass {
        // O_NONBLOCK: a FIFO among the files must not stall the scan.
        var header = [UInt8](repeating: 0, count: Int(CI_SNIFF_BYTES))
        var count = 0
        if let fd = file.withFileSystemPath({ open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }), fd >= 0 {
            count = max(0, header.withUnsafeMutableBytes { read(fd, $0.baseAddress, Int(CI_SNIFF_BYTES)) })
            close(fd)
        }
        if count > 0 && ci_sniff_format(header, count) != CI_FORMAT_UNKNOWN { return .photo }
        return FileClass.unrecognised(name: file.fileName, firstBytes: Array(header[..<count]),
                                      readExtensions: ImageFormat.all.flatMap(\.extensions))
    }
}
