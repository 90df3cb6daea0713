import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where `batch --report` goes: a file, replaced, or standard output ("-").
/// Each line is handed to the kernel with one `write` as its collage
/// finishes, not buffered: a run that crashes, or a machine that dies,
/// leaves a report whole up to its last collage, to resume from with
/// `--skip-existing`.
public final class BatchReportFile: Sendable {
    /// For messages: the report's absolute path, or "standard output".
    public let name: String
    private let fileDescriptor: Int32
    private let ownsDescriptor: Bool
    /// The first write that failed, if any (a full disk); guarded by its lock,
    /// which also keeps lines whole when results come from several workers.
    private let failure = Locked<CollageFailure?>(nil)

    /// Opens `argument` (a path, or "-" for standard output) resolved against
    /// `workingDirectory`, emptying a file that exists. Throws a failure
    /// naming the report when it cannot be opened.
    public init(argument: String, workingDirectory: String) throws {
        if argument == "-" {
            name = "standard output"
            fileDescriptor = STDOUT_FILENO
            ownsDescriptor = false
            return
        }
        let path = Photo(resolving: argument, against: workingDirectory).path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            throw CollageFailure(.write, path: path,
                                 message: "cannot write the report \(path): \(String(cString: strerror(errno)))")
        }
        name = path
        fileDescriptor = fd
        ownsDescriptor = true
    }

    deinit {
        if ownsDescriptor { close(fileDescriptor) }
    }

    /// Writes `line` and a line break; after a failed write, nothing more.
    public func write(_ line: String) {
        failure.withLock { failure in
            guard failure == nil else { return }
            var bytes = Array((line + "\n").utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { Glibc.write(fileDescriptor, $0.baseAddress, $0.count) }
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = CollageFailure(.write, path: ownsDescriptor ? name : nil,
                                             message: "cannot write the report \(name): \(String(cString: strerror(errno)))")
                    return
                }
                bytes = bytes.dropFirst(written)
            }
        }
    }

    /// Why the report is incomplete, if a write failed.
    public var writeFailure: CollageFailure? { failure.current }
}
