import Foundation
import Testing
@testable import CollageKit
#if canImport(Glibc)
import Glibc
#endif

// Issue 6: hostile input, faults and concurrency.

@Suite struct PathBytesTests {
    /// Found by fuzzing the batch list (Tests/Fixtures/crashers/batchlist/):
    /// "/" followed by a combining mark is one Character that is not "/", so
    /// String.hasPrefix("/") was false and the absolute path was resolved
    /// under the list's folder, naming a different file.
    @Test func anAbsolutePathStartingWithACombiningMarkStaysAbsolute() throws {
        #expect(Photo(resolving: "/\u{074A}t.jpg", against: "/base").path == "/\u{074A}t.jpg")
        #expect(Photo(resolving: "/e\u{301}/x.jpg", against: "/base").path == "/e\u{301}/x.jpg")
        // A comment line is one that starts with the byte "#".
        var parser = BatchListParser(baseDirectory: "/base")
        #expect(parser.consume("#\u{301} not a photo", lineNumber: 1) == nil)
        #expect(parser.finish() == nil)

        // The crasher itself, read as a list: line 17 names "/\u{074A}t".
        let crasher = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/crashers/batchlist/absolute-path-with-combining-mark.txt")
        let fd = open(crasher.path, O_RDONLY | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        let photos = BatchListReader(fileDescriptor: fd, baseDirectory: "/fuzz/base").flatMap(\.photos)
        #expect(photos.contains(Photo(path: "/\u{074A}t")))
        #expect(photos.allSatisfy { !$0.path.hasPrefix("/fuzz/base/\u{074A}") })
    }

    /// A list that is one long line (a file of binary junk, a runaway
    /// generator) used to be searched for its "\n" from the start after every
    /// 64 KiB read: quadratic, 31 s for one 64 MB line. Linear now.
    @Test func aVeryLongLineIsReadInLinearTime() throws {
        let directory = try temporaryDirectory()
        let list = directory.appendingPathComponent("long.txt")
        var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 24 << 20)
        bytes += Array("\n\nx.jpg\ny.jpg\n".utf8)
        try Data(bytes).write(to: list)
        let fd = open(list.path, O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        let started = Date()
        let groups = Array(BatchListReader(fileDescriptor: fd, baseDirectory: directory.path))
        let elapsed = Date().timeIntervalSince(started)
        #expect(groups.map(\.photos.count) == [1, 2])
        // The quadratic reader took 208 s here (debug build); linear, 3 s.
        #expect(elapsed < 30, "reading a 24 MB line took \(elapsed) s")
    }
}
