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
}
