import Foundation
import Testing
import CollageTestSupport
@testable import CollageKit

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
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let crasher = packageRoot.appendingPathComponent("Tests/Fixtures/crashers/batchlist/absolute-path-with-combining-mark.txt")
        let fd = open(crasher.path, O_RDONLY | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        let photos = BatchListReader(fileDescriptor: fd, baseDirectory: "/fuzz/base").flatMap(\.photos)
        #expect(photos.contains(Photo(path: "/\u{074A}t")))
        #expect(photos.allSatisfy { !$0.path.hasPrefix("/fuzz/base/\u{074A}") })
    }

    @Test func aNameThatIsNotUTF8KeepsItsBytes() throws {
        let latin1: [UInt8] = Array("/photos/caf".utf8) + [0xE9] + Array(".jpg".utf8)
        let photo = Photo(fileSystemPath: latin1)
        #expect(photo.fileSystemPath == latin1)
        #expect(!photo.pathIsExact)
        #expect(photo.path == "/photos/caf\u{FFFD}.jpg")
        #expect(photo.withFileSystemPath { strlen($0) } == latin1.count)
        // Two names that look the same as text are still two photos.
        var other = latin1
        other[11] = 0xE8
        #expect(Photo(fileSystemPath: other) != photo)
        // A UTF-8 name is the same photo however it was made.
        #expect(Photo(fileSystemPath: Array("/a/b.jpg".utf8)) == Photo(path: "/a/b.jpg"))
        #expect(Photo(path: "/a/b.jpg").pathIsExact)

        // Relative bytes resolve like strings do: "sub/.." goes where sub is
        // a real folder, and stays where it is not (the kernel would fail
        // there, or, through a symbolic link, go elsewhere).
        let base = try temporaryDirectory()
        try FileManager.default.createDirectory(at: base.appendingPathComponent("sub"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: base.appendingPathComponent("link").path, withDestinationPath: "/usr/bin")
        let relative = Photo(resolvingFileSystemPath: Array("sub/./../x".utf8) + [0xFF], against: base.path)
        #expect(relative.fileSystemPath == Array((base.path + "/x").utf8) + [0xFF])
        #expect(Photo(resolving: "link/../x", against: base.path).path == base.path + "/link/../x")
        #expect(Photo(resolving: "missing/../x", against: base.path).path == base.path + "/missing/../x")
        #expect(Photo(resolving: "/../..//x/./", against: base.path).path == "/x")

        // Codable: old documents (path only) still decode; raw bytes survive.
        let decoded = try JSONDecoder().decode([Photo].self, from: Data(#"[{"path":"/a.jpg"}]"#.utf8))
        #expect(decoded == [Photo(path: "/a.jpg")])
        let roundTrip = try JSONDecoder().decode(Photo.self, from: JSONEncoder().encode(photo))
        #expect(roundTrip == photo && roundTrip.fileSystemPath == latin1)
    }

    @Test func aPathWithANULByteNamesNoFile() throws {
        var parser = BatchListParser(baseDirectory: "/base")
        _ = parser.consume(bytes: Array("/etc/passwd".utf8) + [0] + Array("x.jpg".utf8), lineNumber: 1)
        let photo = try #require(parser.finish()?.photos.first)
        // Not "/etc/passwd" (the C string cut at the NUL), nor "%00" (what URL made of it once).
        #expect(photo.withFileSystemPath { _ in true } == nil)
        #expect(throws: ImageEngineError.self) { try ImageEngine().inspect(photo) }
        do {
            _ = try ImageEngine().inspect(photo)
        } catch let error as ImageEngineError {
            #expect(error.message.contains("NUL byte"))
            #expect(error.message.hasPrefix("/etc/passwd\\0x.jpg"))
        }
    }

    @Test func theSelectionFileKeepsNamesThatAreNotUTF8AndStaysReadableByOlderVersions() throws {
        let directory = try temporaryDirectory()
        let store = FileSelectionStore(directory: directory)
        let raw = Photo(fileSystemPath: Array("/p/caf".utf8) + [0xE9] + Array(".jpg".utf8))
        let plain = Photo(path: "/p/plain one.jpg")
        try store.update { $0 = [plain, raw] }
        #expect(try FileSelectionStore(directory: directory).load() == [plain, raw])
        #expect(try FileSelectionStore(directory: directory).load()[1].fileSystemPath == raw.fileSystemPath)

        // UTF-8 names are still written as plain strings, so a selection of
        // them reads the same in versions before this one.
        try store.update { $0 = [plain] }
        let text = try String(contentsOf: store.stateFile, encoding: .utf8)
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(object?["photos"] as? [String] == ["/p/plain one.jpg"])
        #expect(object?["version"] as? Int == 1)

        // And a file written before this version reads as it always did.
        try Data(#"{"version":1,"photos":["/old/a.jpg","/old/b.png"]}"#.utf8).write(to: store.stateFile)
        #expect(try store.load() == [Photo(path: "/old/a.jpg"), Photo(path: "/old/b.png")])
    }

    /// kill -9 between the temporary file's creation and its rename leaves
    /// it behind; the next writer (who holds the lock, so no one else is
    /// writing) removes it.
    @Test func leftoverTemporaryStateFilesAreRemoved() throws {
        let directory = try temporaryDirectory()
        let store = FileSelectionStore(directory: directory)
        try store.update { $0 = [Photo(path: "/a.jpg")] }
        // Today's writer's hidden name, and an older version's mkstemp name.
        let leftover = directory.appendingPathComponent(".selection.json.3141592653.tmp")
        try Data("{ half wr".utf8).write(to: leftover)
        let olderLeftover = directory.appendingPathComponent(".selection.json.Ab12Cd")
        try Data("{ half wr".utf8).write(to: olderLeftover)
        let unrelated = directory.appendingPathComponent(".selection.json.keep-me-not-ours")
        try Data().write(to: unrelated)
        try store.update { $0.append(Photo(path: "/b.jpg")) }
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        #expect(!FileManager.default.fileExists(atPath: olderLeftover.path))
        #expect(FileManager.default.fileExists(atPath: unrelated.path))
        #expect(try store.load() == [Photo(path: "/a.jpg"), Photo(path: "/b.jpg")])
    }

    @Test func aBatchListLineThatIsNotUTF8NamesItsFileExactly() {
        var parser = BatchListParser(baseDirectory: "/lists")
        let line: [UInt8] = [0x20, 0x09] + Array("sub/caf".utf8) + [0xE9] + Array(".jpg".utf8) + [0x0D]
        #expect(parser.consume(bytes: line, lineNumber: 1) == nil)
        #expect(parser.consume(bytes: [0x23, 0xFF], lineNumber: 2) == nil)   // a comment
        #expect(parser.consume(bytes: Array("b.jpg".utf8), lineNumber: 3) == nil)
        let group = parser.finish()
        #expect(group?.photos.map(\.fileSystemPath) == [Array("/lists/sub/caf".utf8) + [0xE9] + Array(".jpg".utf8),
                                                        Array("/lists/b.jpg".utf8)])
        #expect(group?.firstLine == 1 && group?.lastLine == 3)
    }

    /// A list that is one long line (a file of binary junk, a runaway
    /// generator) used to be searched for its "\n" from the start after every
    /// 64 KiB read: quadratic, 31 s for one 64 MB line. Linear now.
    @Test func aVeryLongLineIsReadInLinearTime() throws {
        let directory = try temporaryDirectory()
        func secondsToRead(megabytes: Int) throws -> Double {
            let list = directory.appendingPathComponent("long-\(megabytes).txt")
            var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: megabytes << 20)
            bytes += Array("\n\nx.jpg\ny.jpg\n".utf8)
            try Data(bytes).write(to: list)
            let fd = open(list.path, O_RDONLY | O_CLOEXEC)
            defer { close(fd) }
            // This thread's CPU time, not the wall clock: other tests running
            // at once (the crop evaluation) once made a wall-clock ratio fail
            // under the sanitizers while the reader itself was linear.
            func cpuSeconds() -> Double {
                var now = timespec()
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
                return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
            }
            let started = cpuSeconds()
            let groups = Array(BatchListReader(fileDescriptor: fd, baseDirectory: directory.path))
            #expect(groups.map(\.photos.count) == [1, 2])
            return cpuSeconds() - started
        }
        // Three times the length: three times the time if linear, nine if
        // quadratic (the quadratic reader took 208 s for 24 MB in a debug
        // build; linear, 3 s). A ratio, so that slow builds (sanitizers) do
        // not matter.
        let short = try secondsToRead(megabytes: 4)
        let long = try secondsToRead(megabytes: 12)
        #expect(long < 10 || long / max(short, 0.001) < 5.5,
                "4 MB in \(short) s, 12 MB in \(long) s: grows faster than linearly")
    }
}

// MARK: - Hostile files
