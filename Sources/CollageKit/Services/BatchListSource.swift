import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A batch list, open for streaming: a file named on the command line or
/// standard input ("-"). The batch command only names it; what a list is and
/// where its relative paths start from is decided here.
public final class BatchListSource {
    /// For messages: the list's absolute path, or "standard input".
    public let name: String
    /// Where the list's relative paths start: its folder, or the current one for standard input.
    public let baseDirectory: String
    private let fileDescriptor: Int32
    private let path: String?
    private var reader: BatchListReader

    /// Opens `argument` (a path, or "-" for standard input) resolved against
    /// `workingDirectory`. Throws a failure naming the list when it is a
    /// folder or cannot be read.
    public init(argument: String, workingDirectory: String) throws {
        var head: [UInt8] = []
        if argument == "-" {
            name = "standard input"
            fileDescriptor = STDIN_FILENO
            baseDirectory = workingDirectory
            path = nil
            // A pipe cannot be read twice: the first bytes, read to judge
            // them, are handed to the reader.
            head = Self.firstBytes(of: STDIN_FILENO)
            if let format = ImageFormat.of(firstBytes: head) { throw Self.photo(format, name: name, path: nil) }
        } else {
            let absolute = Photo(resolving: argument, against: workingDirectory).path
            var info = stat()
            if stat(absolute, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
                throw CollageFailure(.folder, path: absolute, message: "\(absolute): is a folder, not a list")
            }
            let fd = open(absolute, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw CollageFailure(.folder, path: absolute,
                                     message: "cannot read the list \(absolute): \(String(cString: strerror(errno)))")
            }
            // A photo where the list goes (`collage batch cat.jpg`) would be
            // read as lines of binary, each a photo that does not exist, and
            // reported as "81 photos are too many". Its first bytes say what
            // it is (read with pread, which leaves the offset where it is).
            var first = [UInt8](repeating: 0, count: ImageFormat.sniffedBytes)
            let count = first.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            if count > 0, let format = ImageFormat.of(firstBytes: Array(first[..<count])) {
                close(fd)
                throw Self.photo(format, name: absolute, path: absolute)
            }
            name = absolute
            fileDescriptor = fd
            baseDirectory = (absolute as NSString).deletingLastPathComponent
            path = absolute
        }
        reader = BatchListReader(fileDescriptor: fileDescriptor, baseDirectory: baseDirectory, prefix: head)
    }

    /// The first bytes of a stream, up to those that tell a format: what
    /// one read gives, and more only until there are 12 (the magic numbers
    /// and a RIFF's or ftyp box's type), so a list written a line at a time
    /// (a person typing, a slow producer) is not held up waiting for more.
    private static func firstBytes(of fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: ImageFormat.sniffedBytes)
        while bytes.count < 12 {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, ImageFormat.sniffedBytes - bytes.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }  // the end, or an error the reader meets again and reports
            bytes += chunk[..<count]
        }
        return bytes
    }

    /// The refusal of a photo given as the list.
    private static func photo(_ format: ImageFormat, name: String, path: String?) -> CollageFailure {
        CollageFailure(.folder, path: path,
                       message: "\(name) is a photo (\(format.name)), not a list: give a text file with one photo path per line, or add photos to the collage with `collage add`")
    }

    deinit {
        if path != nil { close(fileDescriptor) }
    }

    /// The collages of the list, one at a time, as they are read.
    public var groups: AnyIterator<BatchGroup> {
        AnyIterator { [self] in reader.next() }
    }

    /// Why reading the list stopped early, after `groups` ran out; nil when it was read to its end.
    public var readFailure: CollageFailure? {
        reader.readError.map {
            CollageFailure(.folder, path: path, message: "cannot read \(name): \(String(cString: strerror($0)))")
        }
    }

    /// The number of collages, for the progress bar: a quick first pass over
    /// a regular file; unknown (nil) for standard input, which reads once.
    /// So is a pipe given by name (`collage batch <(find ...)`, a FIFO,
    /// /dev/stdin): a first pass over it would consume the list, and the
    /// run proper would find it empty and make nothing.
    /// Only the groups `including` takes are counted (a shard's).
    public func countGroups(including: (BatchGroup) -> Bool = { _ in true }) -> Int? {
        guard let path else { return nil }
        var info = stat()
        guard fstat(fileDescriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var counter = BatchListReader(fileDescriptor: fd, baseDirectory: baseDirectory)
        var count = 0
        while let group = counter.next() {
            if including(group) { count += 1 }
        }
        return count
    }
}

/// Folders the commands write into.
public enum OutputFolder {
    /// `mkdir -p` with mode 0775 minus the umask: it honours the umask but,
    /// unlike FileManager's 0777, never makes a folder writable by others.
    public static func create(_ path: String) throws {
        func failure(_ reason: String) -> CollageFailure {
            CollageFailure(.write, path: path, message: "cannot create the output folder \(path): \(reason)")
        }
        var current = ""
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o775) != 0 && errno != EEXIST { throw failure(String(cString: strerror(errno))) }
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw failure(String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw failure(String(cString: strerror(ENOTDIR))) }
    }
}
