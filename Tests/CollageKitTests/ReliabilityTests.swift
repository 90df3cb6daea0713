import CollageImaging
import CollageTestFixtures
import Foundation
import Testing
@testable import CollageKit
#if canImport(Glibc)
import Glibc
#endif

// Issue 6: hostile input, faults and concurrency. Most tests run the built
// `collage` binary (see `CLI` in EndToEndTests.swift) and check, for every
// refusal, that it is one line on stderr naming the file, exit status 1, never
// a signal and never a hang. docs/reliability.md tells what each part covers.

// MARK: - Running the binary with bash, watching for signals and hangs

/// What became of one run of the binary.
struct Run: CustomStringConvertible {
    let status: Int32
    /// The signal that ended it, if one did.
    let signal: Int32?
    let timedOut: Bool
    let stdout: String
    let stderr: String

    var description: String {
        "status \(status)\(signal.map { " signal \($0)" } ?? "")\(timedOut ? " TIMED OUT" : "") stdout \(stdout.debugDescription) stderr \(stderr.debugDescription)"
    }

    var succeeded: Bool { signal == nil && !timedOut && status == 0 }

    /// A clean refusal: exit status 1, no signal, no hang, and exactly one
    /// line on stderr ("collage: ..."), which names `name`.
    func isOneLineRefusal(naming name: String) -> Bool {
        signal == nil && !timedOut && status == 1 && stderr.hasPrefix("collage: ") && stderr.hasSuffix("\n")
            && stderr.dropLast().firstIndex(of: "\n") == nil && stderr.contains(name)
    }
}

/// A value handed between threads (after a wait that orders the accesses).
final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}


/// Runs `count` bodies at once, each on its own thread (not a pool's few
/// workers, which would run them a couple at a time), and waits for all.
func atOnce(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let done = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<count {
        done.enter()
        let thread = Thread {
            start.wait()
            body(index)
            done.leave()
        }
        thread.start()
    }
    for _ in 0..<count { start.signal() }
    done.wait()
}

/// Single-quotes `text` for bash.
func shellQuoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

extension CLI {
    /// Runs `script` with bash in the working directory, with this CLI's state
    /// folder and $COLLAGE set to the binary; kills it after `timeout` seconds.
    /// Scripts use `exec "$COLLAGE" ...`, so a signal that kills collage is
    /// the signal reported here.
    func bash(_ script: String, timeout: Double = 120) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = workingDirectory
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = state.path
        environment["COLLAGE"] = CLI.binary.path
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let expired = Locked(false)
        let killer = DispatchWorkItem {
            expired.withLock { $0 = true }
            kill(process.processIdentifier, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        // Read both pipes at once: a full stderr pipe must not block stdout.
        let stderrData = Box(Data())
        let reading = DispatchGroup()
        DispatchQueue.global().async(group: reading) { stderrData.value = err.fileHandleForReading.readDataToEndOfFile() }
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        reading.wait()
        process.waitUntilExit()
        killer.cancel()
        let signaled = process.terminationReason == .uncaughtSignal
        return Run(status: signaled ? -1 : process.terminationStatus,
                   signal: signaled ? process.terminationStatus : nil,
                   timedOut: expired.current,
                   stdout: String(decoding: stdoutData, as: UTF8.self),
                   stderr: String(decoding: stderrData.value, as: UTF8.self))
    }

    /// `collage ARGUMENTS...`, each argument quoted.
    func collage(_ arguments: String..., timeout: Double = 120) throws -> Run {
        try collage(arguments, timeout: timeout)
    }

    func collage(_ arguments: [String], timeout: Double = 120) throws -> Run {
        try bash("exec \"$COLLAGE\" " + arguments.map(shellQuoted).joined(separator: " "), timeout: timeout)
    }

    var stateFile: URL { state.appendingPathComponent("collage/selection.json") }

    /// The stored selection, straight from the file: it must always parse.
    func storedPhotos() throws -> [Any] {
        guard FileManager.default.fileExists(atPath: stateFile.path) else { return [] }
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: stateFile)) as? [String: Any]
        return object?["photos"] as? [Any] ?? []
    }

    func file(_ name: String) -> URL { workingDirectory.appendingPathComponent(name) }

    func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: workingDirectory.path).sorted()
    }
}

/// Whether `path` is a complete JPEG or PNG of `width` x `height`: decoded
/// whole, so a partial file fails.
func isCompleteImage(_ path: String, width: UInt32? = nil, height: UInt32? = nil) -> Bool {
    var options = ci_decode_options()
    options.min_width = 1
    options.min_height = 1
    var image = ci_image()
    var error = ci_error()
    guard ci_decode_file(path, &options, &image, &error) == CI_OK else { return false }
    ci_image_free(&image)
    var info = ci_photo_info()
    guard ci_probe_file(path, &info, &error) == CI_OK else { return false }
    return (width == nil || info.width == width!) && (height == nil || info.height == height!)
}

/// Runs as root? Then permission bits do not stop reads or writes, and the
/// permission tests run the binary as `nobody` instead (with setpriv).
let runningAsRoot = geteuid() == 0
let setprivAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

func note(_ text: String) {
    FileHandle.standardError.write(Data("note: \(text)\n".utf8))
}

// MARK: - Files made for the tests

enum HostileFiles {
    /// A PNG chunk with its CRC.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        let length = UInt32(data.count)
        var out: [UInt8] = [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        out += typeBytes + data
        let crc = crc32(typeBytes + data)
        out += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        return out
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// A decompression bomb's header: a PNG claiming `width` x `height` RGB
    /// pixels, with a few bytes of (stored, valid) zlib data and IEND.
    static func pngBomb(width: UInt32, height: UInt32) -> [UInt8] {
        let ihdr = be32(width) + be32(height) + [8, 2, 0, 0, 0]
        // zlib: header 78 01, one final stored block of 1 byte (filter 0), Adler-32 of [0].
        let idat: [UInt8] = [0x78, 0x01, 0x01, 0x01, 0x00, 0xFE, 0xFF, 0x00, 0x00, 0x01, 0x00, 0x01]
        return pngSignature + chunk("IHDR", ihdr) + chunk("IDAT", idat) + chunk("IEND", [])
    }

    /// A small, valid PNG made by the engine's own encoder.
    static func png(width: Int, height: Int) -> [UInt8] {
        // Rows of one grey each: compresses to almost nothing at any size.
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for row in 0..<height {
            let value = UInt8(truncatingIfNeeded: row)
            for i in row * width * 3..<(row + 1) * width * 3 { pixels[i] = value }
        }
        return pixels.withUnsafeMutableBufferPointer { buffer in
            var image = ci_image(pixels: buffer.baseAddress, width: UInt32(width), height: UInt32(height),
                                 stride: width * 3, channels: 3)
            var output: UnsafeMutablePointer<UInt8>?
            var size = 0
            var error = ci_error()
            precondition(ci_encode_png(&image, &output, &size, &error) == CI_OK)
            defer { ci_buffer_free(output) }
            return Array(UnsafeBufferPointer(start: output, count: size))
        }
    }

    /// A greyscale baseline JPEG of `side` x `side` pixels (a multiple of 8,
    /// at most libjpeg's 65500), every block flat grey. Its Huffman tables
    /// each hold one code, "0": DC difference 0 and end-of-block, 2 bits a
    /// block, so the entropy-coded data is all zero bytes: 16 MB for 65496 x
    /// 65496. A real image, not a broken one: shrink-on-load decodes it at
    /// 1/8 scale, 8187 x 8187.
    static func flatGreyJPEG(side: UInt16, header only: Bool = false, progressive: Bool = false) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        out += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)          // DQT
        let sof: UInt8 = progressive ? 0xC2 : 0xC0
        out += [0xFF, sof, 0x00, 0x0B, 0x08, UInt8(side >> 8), UInt8(side & 0xFF), UInt8(side >> 8), UInt8(side & 0xFF),
                0x01, 0x01, 0x11, 0x00]                                                     // SOF, 1 component
        let oneCode: [UInt8] = [1] + [UInt8](repeating: 0, count: 15) + [0x00]             // one 1-bit code for symbol 0
        out += [0xFF, 0xC4, 0x00, 0x14, 0x00] + oneCode                                     // DHT DC 0
        out += [0xFF, 0xC4, 0x00, 0x14, 0x10] + oneCode                                     // DHT AC 0
        if progressive {
            out += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00]             // SOS: DC first scan
        } else {
            out += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]             // SOS
        }
        if only { return out }
        let blocks = (Int(side) / 8) * (Int(side) / 8)
        // Progressive: one DC scan, 1 bit a block (no AC scan: those coefficients stay 0).
        let bitsPerBlock = progressive ? 1 : 2
        out += [UInt8](repeating: 0, count: (blocks * bitsPerBlock + 7) / 8)
        out += [0xFF, 0xD9]
        return out
    }
}

func write(_ bytes: [UInt8], to url: URL) throws {
    try Data(bytes).write(to: url)
}

func sample(_ name: String) -> String { CLI.sample(name) }
let cat = sample("chelsea-the-cat.jpg")
let cup = sample("coffee-cup.jpg")
let alphaPNG = sample("retina-round-alpha.png")

// MARK: - Fuzz findings and the path bytes

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
            let started = Date()
            let groups = Array(BatchListReader(fileDescriptor: fd, baseDirectory: directory.path))
            #expect(groups.map(\.photos.count) == [1, 2])
            return Date().timeIntervalSince(started)
        }
        // Three times the length: three times the time if linear, nine if
        // quadratic (the quadratic reader took 208 s for 24 MB in a debug
        // build; linear, 3 s). A ratio, so that slow builds (sanitizers) and
        // busy machines do not matter.
        let short = try secondsToRead(megabytes: 4)
        let long = try secondsToRead(megabytes: 12)
        #expect(long < 10 || long / max(short, 0.001) < 5.5,
                "4 MB in \(short) s, 12 MB in \(long) s: grows faster than linearly")
    }
}

// MARK: - Hostile files

@Suite(.serialized) struct HostileFileTests {
    /// Every kind of bad file, added alone and with a good photo: one line
    /// naming it, nothing added, never a signal or a hang.
    @Test func everyBadFileIsRefusedInOneLineNamingIt() throws {
        let cli = try CLI()
        var cases: [(name: String, reason: String)] = []
        func make(_ name: String, _ reason: String, _ body: (URL) throws -> Void) rethrows {
            try body(cli.file(name))
            cases.append((cli.file(name).path, reason))
        }
        try make("empty.jpg", "is empty") { try Data().write(to: $0) }
        try make("album.jpg", "is a folder") { try FileManager.default.createDirectory(at: $0, withIntermediateDirectories: false) }
        make("pipe.jpg", "not a regular file") { #expect(mkfifo($0.path, 0o644) == 0) }
        try make("notes.jpg", "not a JPEG or PNG file") { try Data("plain text, whatever the name says\n".utf8).write(to: $0) }
        try make("notes.png", "not a JPEG or PNG file") { try Data([0x89, 0x50, 0x4E]).write(to: $0) }
        make("missing.jpg", "No such file or directory") { _ in }
        try make("dangling.jpg", "No such file or directory") {
            try FileManager.default.createSymbolicLink(atPath: $0.path, withDestinationPath: "nowhere.jpg")
        }
        try make("loop.jpg", "symbolic links") {
            try FileManager.default.createSymbolicLink(atPath: $0.path, withDestinationPath: "loop.jpg")
        }
        make("huge.jpg", "larger than") {
            // A sparse 2 GiB file: refused by size, never read.
            let fd = open($0.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            #expect(ftruncate(fd, 2 << 30) == 0)
            close(fd)
        }
        try make("bad-ihdr-crc.png", "CRC") {
            var png = HostileFiles.png(width: 4, height: 4)
            png[29] ^= 0xFF  // a byte of IHDR's CRC (bytes 29-32)
            try write(png, to: $0)
        }
        cases.append(("/dev/zero", "not a regular file"))

        for (path, reason) in cases {
            for arguments in [["add", path], ["add", cat, path]] {
                let run = try cli.collage(arguments, timeout: 30)
                #expect(run.isOneLineRefusal(naming: path), "\(arguments): \(run)")
                #expect(run.stderr.contains(reason), "\(arguments): \(run)")
            }
            #expect(try cli.count() == 0, "\(path): nothing is added")
        }
        // A wrong extension on a good photo is no problem: content decides.
        try FileManager.default.copyItem(atPath: alphaPNG, toPath: cli.file("really-a-png.jpg").path)
        #expect(try cli.collage("add", cli.file("really-a-png.jpg").path, cat).succeeded)
        let saved = try cli.collage("save", "-o", "out.jpg", "--size", "64x32")
        #expect(saved.succeeded, "\(saved)")
    }

    /// Files cut at many points: refused when added (a cut header) or when
    /// saved (a cut body), in one line naming the file, the selection kept.
    @Test(arguments: [cat, alphaPNG])
    func truncatedFilesAreRefusedByName(_ source: String) throws {
        let cli = try CLI()
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: source)))
        let target = cli.file("cut" + (source.hasSuffix(".png") ? ".png" : ".jpg")).path
        // Dense through the headers, then spread over the body, and the very end.
        var cuts = Array(Swift.stride(from: 1, to: min(whole.count, 700), by: 37))
        cuts += Array(Swift.stride(from: 700, to: whole.count, by: max(1, whole.count / 12)))
        cuts += [whole.count - 2, whole.count - 1]
        var refusedAtAdd = 0, refusedAtSave = 0
        for cut in cuts {
            try write(Array(whole.prefix(cut)), to: URL(fileURLWithPath: target))
            let added = try cli.collage("add", target, cup, timeout: 30)
            if added.status != 0 {
                #expect(added.isOneLineRefusal(naming: target), "cut at \(cut): \(added)")
                #expect(try cli.count() == 0)
                refusedAtAdd += 1
                continue
            }
            let saved = try cli.collage("save", "-o", "x.jpg", "--size", "200x100", timeout: 60)
            #expect(saved.isOneLineRefusal(naming: target), "cut at \(cut) of \(whole.count): \(saved)")
            #expect(try cli.count() == 2, "a failed save keeps the selection")
            #expect(!FileManager.default.fileExists(atPath: cli.file("x.jpg").path))
            refusedAtSave += 1
            #expect(try cli.collage("clear").succeeded)
        }
        #expect(refusedAtAdd > 0 && refusedAtSave > 0, "cuts of the header and of the body")
        #expect(try cli.contents() == [URL(fileURLWithPath: target).lastPathComponent], "no stray file")
    }

    /// PNG CRCs: a bad CRC on a critical chunk refuses the file (at add for
    /// IHDR, at save for IDAT); on an ancillary chunk libpng drops the chunk
    /// and decodes the image, as every viewer does.
    @Test func badPNGChecksums() throws {
        let cli = try CLI()
        let good = HostileFiles.png(width: 40, height: 30)
        // good = signature(8) IHDR(25) IDAT... IEND(12)
        var badIDAT = good
        badIDAT[good.count - 13] ^= 0x55  // the last byte of IDAT's CRC
        try write(badIDAT, to: cli.file("bad-idat.png"))
        #expect(try cli.collage("add", cli.file("bad-idat.png").path, cat).succeeded, "the header is fine")
        let saved = try cli.collage("save", "-o", "x.jpg", "--size", "100x50")
        #expect(saved.isOneLineRefusal(naming: cli.file("bad-idat.png").path), "\(saved)")
        #expect(saved.stderr.contains("CRC"), "\(saved)")
        #expect(try cli.count() == 2)
        #expect(try cli.collage("clear").succeeded)

        var text = HostileFiles.chunk("tEXt", Array("Comment\u{0}hello".utf8))
        text[text.count - 1] ^= 0xFF
        let withBadText = Array(good.prefix(33)) + text + Array(good.dropFirst(33))
        try write(withBadText, to: cli.file("bad-text.png"))
        #expect(try cli.collage("add", cli.file("bad-text.png").path, cat).succeeded)
        let kept = try cli.collage("save", "-o", "y.jpg", "--size", "100x50")
        #expect(kept.succeeded, "\(kept)")
    }

    /// A file that cannot be read. As root, permission bits do not stop
    /// reads, so the binary runs as `nobody` (setpriv); without setpriv the
    /// test says so instead of passing on nothing.
    @Test func anUnreadableFileIsRefusedByName() throws {
        let cli = try CLI()
        let locked = cli.file("locked.jpg")
        try FileManager.default.copyItem(atPath: cat, toPath: locked.path)
        #expect(chmod(locked.path, 0o000) == 0)
        var prefix = "exec"
        if runningAsRoot {
            guard setprivAvailable else {
                note("running as root without setpriv: a file without read permission is still readable; not tested")
                return
            }
            // nobody must be able to use the state folder and reach the files.
            #expect(chown(cli.state.path, 65534, 65534) == 0)
            prefix = "exec setpriv --reuid=65534 --regid=65534 --clear-groups"
        }
        let run = try cli.bash("\(prefix) \"$COLLAGE\" add \(shellQuoted(locked.path)) \(shellQuoted(cup))", timeout: 30)
        #expect(run.isOneLineRefusal(naming: locked.path), "\(run)")
        #expect(run.stderr.contains("Permission denied"), "\(run)")
        #expect(try cli.count() == 0)
    }
}

// MARK: - Decompression bombs

@Suite(.serialized) struct BombTests {
    /// Runs collage under /usr/bin/time; returns the run and the peak RSS in KiB.
    func measured(_ cli: CLI, _ arguments: [String]) throws -> (Run, Int) {
        let report = cli.file(".rss")
        let run = try cli.bash("exec /usr/bin/time -o \(shellQuoted(report.path)) -f %M \"$COLLAGE\" "
                               + arguments.map(shellQuoted).joined(separator: " "), timeout: 300)
        let text = try String(contentsOf: report, encoding: .utf8)
        try FileManager.default.removeItem(at: report)
        // "Command exited with non-zero status 1\n123456\n"
        let kib = Int(text.split(separator: "\n").last.map(String.init) ?? "") ?? -1
        return (run, kib)
    }

    @Test func aPNGClaimingTenGigapixelsIsRefusedWhenAdded() throws {
        let cli = try CLI()
        let bomb = cli.file("bomb.png")
        try write(HostileFiles.pngBomb(width: 100_000, height: 100_000), to: bomb)
        let (run, kib) = try measured(cli, ["add", bomb.path])
        #expect(run.isOneLineRefusal(naming: bomb.path), "\(run)")
        #expect(run.stderr.contains("100000x100000 is 10000.0 megapixels"), "\(run)")
        #expect(run.stderr.contains("over the limit of 100.0 megapixels"), "\(run)")
        #expect(kib < 64 << 10, "peak RSS \(kib) KiB")
        note("bomb: PNG header 100000x100000 refused at add, peak RSS \(kib) KiB")
    }

    /// Found by fuzzing: a 683-byte PNG whose iTXt chunk declares 1.6 GB made
    /// libpng allocate and zero 1.6 GB before finding the file cut short.
    @Test func aPNGChunkDeclaringGigabytesIsRefusedWithoutAllocatingThem() throws {
        let cli = try CLI()
        let bomb = cli.file("itxt.png")
        try FileManager.default.copyItem(
            atPath: CLI.packageRoot.appendingPathComponent("Tests/Fixtures/crashers/png/itxt-declaring-1.6GB.png").path,
            toPath: bomb.path)
        let (run, kib) = try measured(cli, ["add", bomb.path])
        #expect(run.isOneLineRefusal(naming: bomb.path), "\(run)")
        #expect(kib < 64 << 10, "peak RSS \(kib) KiB (1.6 GB before the fix)")
        note("PNG whose iTXt declares 1.6 GB refused at add, peak RSS \(kib) KiB")
    }

    /// A CPU bomb: a progressive JPEG of 1000 scans over 8192 x 8192 pixels
    /// (232 KB) kept `save` busy for 15 s; this one has 5000 (636 KB), and a
    /// larger image could take hours. Refused after its scan budget, in
    /// about 3 s.
    @Test func aJPEGWithThousandsOfScansIsRefusedQuickly() throws {
        let cli = try CLI()
        let bomb = cli.file("scans.jpg")
        try write(manyScansJPEG(side: 8192, scans: 5000), to: bomb)
        #expect(try cli.collage("add", bomb.path, cat).succeeded)
        let started = Date()
        let run = try cli.collage(["save", "-o", "out.jpg"], timeout: 60)
        #expect(run.isOneLineRefusal(naming: bomb.path), "\(run)")
        #expect(run.stderr.contains("more than 190 scans"), "\(run)")
        note("JPEG with 5000 scans refused at save in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }

    /// A real 65496 x 65496 JPEG (16 MB) is 4.3 gigapixels, but shrink-on-load
    /// decodes it at 1/8 (8187 x 8187, 67 megapixels): accepted, drawn in
    /// bounded memory. Lowering --max-pixels under 67 MP refuses it by name.
    @Test func aHugeJPEGIsDrawnAtOneEighthInBoundedMemory() throws {
        let cli = try CLI()
        let huge = cli.file("huge.jpg")
        try write(HostileFiles.flatGreyJPEG(side: 65496), to: huge)
        let refused = try cli.collage("add", "--max-pixels", "50M", huge.path, cat)
        #expect(refused.isOneLineRefusal(naming: huge.path), "\(refused)")
        #expect(refused.stderr.contains("67.0 at 1/8 scale"), "\(refused)")
        #expect(refused.stderr.contains("over the limit of 50.0 megapixels"), "\(refused)")

        #expect(try cli.collage("add", huge.path, cat).succeeded)
        let (saved, kib) = try measured(cli, ["save", "-o", "out.jpg", "--size", "1920x1080"])
        #expect(saved.succeeded, "\(saved)")
        // The decoded photo is at most 8187 x 8187 x 3 bytes = 201 MB; the bound
        // for one photo at the default limit is 4 bytes x 100 MP = 400 MB.
        #expect(kib < 400_000, "peak RSS \(kib) KiB")
        note("bomb: JPEG 65496x65496 (16 MB) saved at 1/8 scale, peak RSS \(kib) KiB")
        #expect(isCompleteImage(cli.file("out.jpg").path, width: 1920, height: 1080))
    }

    /// A progressive JPEG must buffer coefficients for the whole image at full
    /// size whatever the output scale: 8.6 GB for 65496 x 65496. The decoder's
    /// memory cap refuses it before allocating; the header alone is enough.
    @Test func aProgressiveJPEGBombIsRefusedWithinTheMemoryCap() throws {
        let cli = try CLI()
        let bomb = cli.file("progressive.jpg")
        try write(HostileFiles.flatGreyJPEG(side: 65496, header: true, progressive: true), to: bomb)
        #expect(try cli.collage("add", bomb.path, cat).succeeded, "67 MP at 1/8: under the limit")
        let (saved, kib) = try measured(cli, ["save", "-o", "out.jpg"])
        #expect(saved.isOneLineRefusal(naming: bomb.path), "\(saved)")
        #expect(kib < 1_700_000, "peak RSS \(kib) KiB")
        note("bomb: progressive JPEG header 65496x65496: \(saved.stderr.dropLast()), peak RSS \(kib) KiB")
        #expect(try cli.count() == 2)
    }

    /// The worst case within the bounds: a progressive JPEG buffers 2 bytes a
    /// coefficient for the whole image, whatever the output scale, so a
    /// 781 KB file of 20000 x 20000 pixels (one DC scan) needs 800 MB. It is
    /// under the coefficient-memory cap (16 bytes x 100 MP = 1.6 GB a photo)
    /// and is drawn; peak memory stays under the cap.
    @Test func aProgressiveJPEGWithinTheCapIsDrawnInBoundedMemory() throws {
        let cli = try CLI()
        let heavy = cli.file("heavy.jpg")
        try write(HostileFiles.flatGreyJPEG(side: 20000, progressive: true), to: heavy)
        #expect(try cli.collage("add", heavy.path, cat).succeeded)
        let (saved, kib) = try measured(cli, ["save", "-o", "out.jpg"])
        #expect(saved.succeeded, "\(saved)")
        #expect(kib < 1_562_500, "peak RSS \(kib) KiB, over the 1.6 GB cap")
        note("progressive JPEG 20000x20000 (781 KB, one DC scan) saved, peak RSS \(kib) KiB")
    }

    /// A PNG is decoded whole (no shrink-on-load): 8000 x 8000 is 64 MP.
    @Test func aLargePNGIsLimitedByMaxPixels() throws {
        let cli = try CLI()
        let big = cli.file("big.png")
        try write(HostileFiles.png(width: 8000, height: 8000), to: big)
        let refused = try cli.collage("add", "--max-pixels", "50M", big.path, cat)
        #expect(refused.isOneLineRefusal(naming: big.path), "\(refused)")
        #expect(refused.stderr.contains("8000x8000 is 64.0 megapixels, over the limit of 50.0 megapixels"), "\(refused)")
        #expect(try cli.collage("add", big.path, cat).succeeded)
        // Limits apply when the photo is decoded too: saving with a lower one is refused.
        let lowered = try cli.collage("save", "-o", "low.jpg", "--max-pixels", "10M")
        #expect(lowered.isOneLineRefusal(naming: big.path), "\(lowered)")
        #expect(try cli.count() == 2)
        let (saved, kib) = try measured(cli, ["save", "-o", "out.jpg"])
        #expect(saved.succeeded, "\(saved)")
        #expect(kib < 400_000, "peak RSS \(kib) KiB")
        note("large PNG 8000x8000 saved, peak RSS \(kib) KiB")
    }

    @Test func maxPixelsValuesAreChecked() throws {
        let cli = try CLI()
        for bad in ["0", "-5", "lots", "1.5X", "M"] {
            let run = try cli.collage("add", "--max-pixels", bad, cat)
            #expect(run.status != 0 && run.signal == nil, "\(bad): \(run)")
            #expect(run.stderr.contains("--max-pixels"), "\(bad): \(run)")
        }
        #expect(try cli.collage("add", "--max-pixels", "1.5G", cat).succeeded)
        #expect(try cli.collage("add", "--max-pixels", "250000000", cup).succeeded)
    }
}

// MARK: - Faults

@Suite(.serialized) struct FaultTests {
    /// kill -9 during a save, at several moments (while rendering, encoding,
    /// and when the unnamed file is open): never a partial output file, never
    /// a temporary file, the selection intact and still usable. With --force,
    /// the file being replaced is left whole.
    @Test(arguments: [false, true])
    func killNineDuringSaveLeavesNothingBehind(force: Bool) throws {
        let cli = try CLI()
        #expect(try cli.collage("add", cat, cup).succeeded)
        let output = cli.file("big.jpg")
        let previous = Data("the collage saved last time".utf8)
        if force { try previous.write(to: output) }
        var caughtWithTheFileOpen = 0, killed = 0, finishedFirst = 0
        let started = Date()
        // A 16384 x 16384 collage takes about a second to render and encode;
        // nil: kill as soon as the unnamed output file is open.
        let plans: [Double?] = [0.02, 0.1, 0.3, 0.6, nil, nil, nil]
        for (attempt, delay) in plans.enumerated() {
            let process = Process()
            process.executableURL = CLI.binary
            process.arguments = ["save", "-o", output.path, "--size", "16384x16384"] + (force ? ["--force"] : [])
            process.currentDirectoryURL = cli.workingDirectory
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_STATE_HOME"] = cli.state.path
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let pid = process.processIdentifier
            if let delay {
                usleep(useconds_t(delay * 1_000_000))
            } else {
                // Wait for the unnamed O_TMPFILE in the target folder, then kill.
                let deadline = Date().addingTimeInterval(60)
                watch: while process.isRunning && Date() < deadline {
                    for fd in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? [] {
                        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) ?? ""
                        if link.hasPrefix(cli.workingDirectory.path + "/#") || link.hasPrefix(cli.workingDirectory.path + "/.") {
                            caughtWithTheFileOpen += 1
                            break watch
                        }
                    }
                    usleep(200)
                }
            }
            kill(pid, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .exit {
                // Finished before the kill: a complete file, a cleared selection.
                #expect(process.terminationStatus == 0)
                #expect(isCompleteImage(output.path, width: 16384, height: 16384), "attempt \(attempt)")
                try FileManager.default.removeItem(at: output)
                if force { try previous.write(to: output) }
                #expect(try cli.collage("add", cat, cup).succeeded)
                finishedFirst += 1
                continue
            }
            killed += 1
            let left = try cli.contents()
            #expect(left == (force || FileManager.default.fileExists(atPath: output.path) ? ["big.jpg"] : []),
                    "attempt \(attempt): no temporary file: \(left)")
            let exists = FileManager.default.fileExists(atPath: output.path)
            let present = (try? Data(contentsOf: output)) ?? Data()
            if exists && (!force || present != previous) {
                // Killed after the save was complete (while exiting: under
                // the sanitizers the leak check at exit takes a while): then
                // the file is whole and the saved photos are cleared.
                #expect(isCompleteImage(output.path, width: 16384, height: 16384), "attempt \(attempt): partial output")
                #expect(try cli.count() == 0)
                try FileManager.default.removeItem(at: output)
                if force { try previous.write(to: output) }
                #expect(try cli.collage("add", cat, cup).succeeded)
                continue
            }
            // Not saved: the old file untouched (--force) or no file at all.
            #expect(exists == force, "attempt \(attempt)")
            #expect(try cli.storedPhotos().count == 2, "attempt \(attempt): the selection is intact")
            #expect(try cli.count() == 2)
        }
        note("kill -9 during save\(force ? " --force" : ""): \(killed) killed (\(caughtWithTheFileOpen) while the unnamed output file was open), \(finishedFirst) finished first, in \(Int(Date().timeIntervalSince(started))) s")
        // Still usable: a small save works and clears the selection.
        let saved = try cli.collage("save", "-o", "small.jpg", "--size", "64x64")
        #expect(saved.succeeded, "\(saved)")
        #expect(try cli.count() == 0)
        #expect(try cli.contents() == (force ? ["big.jpg", "small.jpg"] : ["small.jpg"]))
    }

    /// A full disk: a 256 KiB tmpfs (where mounting is allowed, as root here).
    @Test func aFullDiskIsAClearErrorAndKeepsTheSelection() throws {
        let cli = try CLI()
        let mountPoint = cli.file("small-disk")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: false)
        let mounted = try cli.bash("exec mount -t tmpfs -o size=256k tmpfs \(shellQuoted(mountPoint.path))")
        guard mounted.succeeded else {
            note("cannot mount a tmpfs here (\(mounted.stderr.trimmingCharacters(in: .whitespacesAndNewlines))): full disk not tested")
            return
        }
        defer { _ = try? cli.bash("exec umount \(shellQuoted(mountPoint.path))") }
        #expect(try cli.collage("add", cat, cup).succeeded)
        let target = mountPoint.appendingPathComponent("full.png").path
        let run = try cli.collage("save", "-o", target, "--size", "1000x1000")
        #expect(run.isOneLineRefusal(naming: target), "\(run)")
        #expect(run.stderr.contains("No space left on device"), "\(run)")
        #expect(try cli.count() == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint.path).isEmpty, "nothing left on the disk")
    }

    /// A read-only folder: a read-only tmpfs as root (permission bits do not
    /// stop root), a folder without write permission otherwise.
    @Test func aReadOnlyFolderIsAClearErrorAndKeepsTheSelection() throws {
        let cli = try CLI()
        let folder = cli.file("read-only")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        var expected = "Permission denied"
        if runningAsRoot {
            let mounted = try cli.bash("exec mount -t tmpfs -o ro,size=64k tmpfs \(shellQuoted(folder.path))")
            guard mounted.succeeded else {
                note("running as root and cannot mount a read-only tmpfs: read-only folder not tested")
                return
            }
            expected = "Read-only file system"
        } else {
            #expect(chmod(folder.path, 0o555) == 0)
        }
        defer { if runningAsRoot { _ = try? cli.bash("exec umount \(shellQuoted(folder.path))") } }
        #expect(try cli.collage("add", cat, cup).succeeded)
        let target = folder.appendingPathComponent("x.jpg").path
        let run = try cli.collage("save", "-o", target, "--size", "64x64")
        #expect(run.isOneLineRefusal(naming: target), "\(run)")
        #expect(run.stderr.contains(expected), "\(run)")
        #expect(try cli.count() == 2)
    }

    @Test func impossibleOutputPathsAreClearErrors() throws {
        let cli = try CLI()
        #expect(try cli.collage("add", cat, cup).succeeded)
        try Data("a file".utf8).write(to: cli.file("plain"))
        let cases: [(String, String)] = [
            ("/nonexistent-folder/x.jpg", "No such file or directory"),
            (cli.file("plain").path + "/x.jpg", "Not a directory"),
            (cli.file(String(repeating: "n", count: 300) + ".jpg").path, "File name too long"),
            ("/proc/collage-test.jpg", "cannot write"),
        ]
        for (target, reason) in cases {
            let run = try cli.collage("save", "-o", target, "--size", "64x64")
            #expect(run.isOneLineRefusal(naming: target), "\(target): \(run)")
            #expect(run.stderr.contains(reason), "\(target): \(run)")
            #expect(try cli.count() == 2)
        }
        #expect(try cli.contents() == ["plain"])
    }

    /// Fifty add / clear / save processes at once. The state file always
    /// parses and never holds more than 6 photos (checked while they run),
    /// every process ends with 0 or 1 (never a signal), every successful save
    /// left a complete file and every failed one none, and nothing is left in
    /// the state folder but the selection and its lock.
    @Test func fiftyConcurrentCommandsNeverCorruptTheStateOrBreakTheRules() throws {
        let cli = try CLI()
        let photos = [cat, cup, sample("astronaut-eileen-collins.jpg"), alphaPNG]
        let runs = Locked([Run?](repeating: nil, count: 50))
        let stop = DispatchSemaphore(value: 0)
        let watcherProblems = Box<[String]>([])
        let watched = Box(0)
        let watcher = Thread {
            while stop.wait(timeout: .now()) == .timedOut {
                do {
                    let count = try cli.storedPhotos().count
                    if count > 6 { watcherProblems.value.append("\(count) photos stored") }
                    watched.value += 1
                } catch {
                    watcherProblems.value.append("the state file did not parse: \(error)")
                }
                usleep(2000)
            }
        }
        watcher.start()
        atOnce(50) { index in
            let arguments: [String]
            switch index % 5 {
            case 0: arguments = ["clear"]
            case 1, 2: arguments = ["add", photos[index % photos.count]]
            case 3: arguments = ["add", photos[index % photos.count], photos[(index + 1) % photos.count]]
            default: arguments = ["save", "-o", "out-\(index).jpg", "--size", "96x64"]
            }
            let run = try? cli.collage(arguments, timeout: 120)
            runs.withLock { $0[index] = run }
        }
        stop.signal()
        while watcher.isExecuting { usleep(1000) }
        #expect(watcherProblems.value.isEmpty, "\(watcherProblems.value.prefix(3))")
        #expect(watched.value > 0)
        for (index, run) in runs.current.enumerated() {
            let run = try #require(run)
            #expect(run.signal == nil && !run.timedOut && (run.status == 0 || run.status == 1), "\(index): \(run)")
            if run.status == 1 { #expect(run.stderr.hasPrefix("collage: ") && run.stderr.filter { $0 == "\n" }.count == 1, "\(index): \(run)") }
            if index % 5 == 4 {
                let output = cli.file("out-\(index).jpg").path
                #expect(FileManager.default.fileExists(atPath: output) == (run.status == 0), "\(index): \(run)")
                if run.status == 0 { #expect(isCompleteImage(output, width: 96, height: 64)) }
            }
        }
        let count = try cli.storedPhotos().count
        let counted = try cli.count()
        #expect(count <= 6 && count == counted)
        let stateFiles = try FileManager.default.contentsOfDirectory(atPath: cli.state.appendingPathComponent("collage").path)
        #expect(stateFiles.sorted() == ["selection.json", "selection.lock"] || stateFiles == ["selection.lock"], "\(stateFiles)")
    }

    /// Four batch runs of one list into one folder at once: every collage is
    /// written exactly once; the others are told it exists. With --force all
    /// succeed, and every file is complete.
    @Test func concurrentBatchRunsNeverOverwriteEachOther() throws {
        let cli = try CLI()
        let list = cli.file("list.txt")
        try "\(cat)\n\(cup)\n\n\(cup)\n\(cat)\n\n\(alphaPNG)\n\(cat)\n".write(to: list, atomically: true, encoding: .utf8)
        let out = cli.file("out").path
        func four(_ extra: [String]) -> [Run] {
            let runs = Locked([Run?](repeating: nil, count: 4))
            atOnce(4) { index in
                let run = try? cli.collage(["batch", list.path, "-o", out, "--size", "320x200", "--jobs", "1"] + extra)
                runs.withLock { $0[index] = run }
            }
            return runs.current.compactMap { $0 }
        }
        let first = four([])
        #expect(first.count == 4)
        #expect(first.allSatisfy { $0.signal == nil && !$0.timedOut })
        let savedLines = first.flatMap { $0.stderr.split(separator: "\n") }.filter { $0.contains(": saved ") }
        let existsLines = first.flatMap { $0.stderr.split(separator: "\n") }.filter { $0.contains("already exists") }
        #expect(savedLines.count == 3, "each of the 3 collages saved once: \(first)")
        #expect(existsLines.count == 9, "\(first)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(files == ["collage-001.jpg", "collage-002.jpg", "collage-003.jpg"])
        for file in files { #expect(isCompleteImage(out + "/" + file, width: 320, height: 200)) }

        let forced = four(["--force"])
        #expect(forced.count == 4 && forced.allSatisfy(\.succeeded), "\(forced)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == files, "no temporary file left")
        for file in files { #expect(isCompleteImage(out + "/" + file, width: 320, height: 200)) }
    }
}

// MARK: - Paths

@Suite(.serialized) struct PathTests {
    /// Odd names through add, status and save, and through a batch list.
    @Test func oddFileNamesWork() throws {
        let cli = try CLI()
        let names = ["with space.jpg", "new\nline.jpg", "-leading-dash.jpg", "e\u{301}-nfd.jpg", "quote'\"$`.png", "  padded.jpg"]
        for name in names {
            try FileManager.default.copyItem(atPath: name.hasSuffix(".png") ? alphaPNG : cat, toPath: cli.file(name).path)
        }
        // A leading dash needs "--" (or "./") as with any command.
        #expect(try cli.collage("add", "--", "-leading-dash.jpg", "./with space.jpg").succeeded)
        #expect(try cli.collage("add", "new\nline.jpg", "e\u{301}-nfd.jpg", "quote'\"$`.png", "  padded.jpg").succeeded)
        let paths = try #require(try cli.status()["photos"] as? [String])
        #expect(paths == ["-leading-dash.jpg", "with space.jpg", "new\nline.jpg", "e\u{301}-nfd.jpg", "quote'\"$`.png", "  padded.jpg"]
            .map { cli.file($0).path })
        // NFD stays NFD: the bytes of the name, not a normalised form.
        #expect(paths[3].utf8.elementsEqual(cli.file("e\u{301}-nfd.jpg").path.utf8))
        let saved = try cli.collage("save", "-o", "odd names.jpg", "--size", "120x80")
        #expect(saved.succeeded, "\(saved)")
        #expect(isCompleteImage(cli.file("odd names.jpg").path, width: 120, height: 80))

        // The same in a batch list (a name with a newline cannot be a line,
        // and surrounding spaces are trimmed: documented).
        let list = "-leading-dash.jpg\nwith space.jpg\n\ne\u{301}-nfd.jpg\nquote'\"$`.png\n"
        try list.write(to: cli.file("list.txt"), atomically: true, encoding: .utf8)
        let batch = try cli.collage("batch", "list.txt", "-o", "batch", "--size", "64x64")
        #expect(batch.succeeded, "\(batch)")
    }

    /// Names that are not UTF-8 (here Latin-1 "café.jpg" and "cafè.jpg",
    /// which both read as "caf\u{FFFD}.jpg" as text) are added, stored, saved
    /// and listed in a batch by their exact bytes.
    @Test func namesThatAreNotUTF8Work() throws {
        let cli = try CLI()
        let setup = try cli.bash("cp \(shellQuoted(cat)) $'caf\\xe9.jpg' && cp \(shellQuoted(alphaPNG)) $'caf\\xe8.jpg'")
        #expect(setup.succeeded, "\(setup)")
        let added = try cli.bash("exec \"$COLLAGE\" add $'caf\\xe9.jpg' $'caf\\xe8.jpg'")
        #expect(added.succeeded, "\(added)")
        #expect(try cli.count() == 2, "two photos, not one name twice")
        // Stored losslessly: the exact bytes, base64 encoded.
        let stored = try cli.storedPhotos()
        let bytes = stored.compactMap { ($0 as? [String: Any])?["bytes"] as? String }.compactMap { Data(base64Encoded: $0) }
        #expect(bytes.map { $0.last(where: { $0 >= 0x80 }) } == [0xE9, 0xE8])
        let saved = try cli.collage("save", "-o", "latin1.jpg", "--size", "100x50")
        #expect(saved.succeeded, "\(saved)")
        #expect(try cli.count() == 0)

        // A missing one is refused by (a readable form of) its name.
        let missing = try cli.bash("exec \"$COLLAGE\" add $'gone\\xff.jpg'")
        #expect(missing.isOneLineRefusal(naming: cli.file("gone\u{FFFD}.jpg").path), "\(missing)")

        // In a batch list, byte for byte.
        let list = try cli.bash("printf 'caf\\351.jpg\\ncaf\\350.jpg\\n' > list.txt && exec \"$COLLAGE\" batch list.txt -o out --size 64x64")
        #expect(list.succeeded, "\(list)")
        #expect(isCompleteImage(cli.file("out/collage-001.jpg").path))

        // An output name that is not UTF-8 cannot be written exactly: refused, not renamed.
        #expect(try cli.collage("add", cat, cup).succeeded)
        let badOutput = try cli.bash("exec \"$COLLAGE\" save -o $'out\\xff.jpg'")
        #expect(badOutput.status != 0 && badOutput.stderr.contains("not valid UTF-8"), "\(badOutput)")
        #expect(try cli.count() == 2)
    }

    /// Symbolic links are recorded as given and followed when read; relative
    /// paths are made absolute where they were typed, so they work after a cd.
    @Test func symlinksAndRelativePathsAfterACd() throws {
        let cli = try CLI()
        let photos = cli.file("photos")
        try FileManager.default.createDirectory(at: photos.appendingPathComponent("deep"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: cat, toPath: photos.appendingPathComponent("deep/cat.jpg").path)
        try FileManager.default.createSymbolicLink(atPath: cli.file("link.jpg").path, withDestinationPath: "photos/deep/cat.jpg")
        try FileManager.default.createSymbolicLink(atPath: cli.file("album").path, withDestinationPath: "photos/deep")
        let added = try cli.bash("cd photos && exec \"$COLLAGE\" add ../link.jpg ../album/cat.jpg ./deep/../deep/cat.jpg deep/cat.jpg")
        #expect(added.succeeded, "\(added)")
        let paths = try #require(try cli.status()["photos"] as? [String])
        #expect(paths == [cli.file("link.jpg").path, cli.file("album/cat.jpg").path,
                          cli.file("photos/deep/cat.jpg").path, cli.file("photos/deep/cat.jpg").path])
        // From elsewhere, later: the absolute paths still work.
        let saved = try cli.bash("cd / && exec \"$COLLAGE\" save -o \(shellQuoted(cli.file("after-cd.jpg").path)) --size 64x64")
        #expect(saved.succeeded, "\(saved)")
        // A link whose target vanished is refused by the link's name.
        #expect(try cli.collage("add", "link.jpg", cup).succeeded)
        try FileManager.default.removeItem(at: photos.appendingPathComponent("deep/cat.jpg"))
        let broken = try cli.collage("save", "-o", "x.jpg", "--size", "64x64")
        #expect(broken.isOneLineRefusal(naming: cli.file("link.jpg").path), "\(broken)")
    }

    /// Output files honour the umask, and nothing is created world-writable
    /// even with umask 000: collages, the batch folder, the state folder and
    /// its files.
    @Test func filesHonourTheUmaskAndNothingIsWorldWritable() throws {
        let cli = try CLI()
        func mode(_ path: String) -> mode_t {
            var info = stat()
            return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0
        }
        for (mask, expected) in [("022", 0o644), ("077", 0o600), ("027", 0o640), ("000", 0o664)] as [(String, mode_t)] {
            #expect(try cli.collage("add", cat, cup).succeeded)
            let name = "umask-\(mask).jpg"
            let run = try cli.bash("umask \(mask) && exec \"$COLLAGE\" save -o \(name) --size 32x32")
            #expect(run.succeeded, "\(run)")
            #expect(mode(cli.file(name).path) == expected, "umask \(mask): \(String(mode(cli.file(name).path), radix: 8))")
            let forced = try cli.bash("umask \(mask) && \"$COLLAGE\" add \(shellQuoted(cat)) \(shellQuoted(cup)) && exec \"$COLLAGE\" save --force -o \(name) --size 32x32")
            #expect(forced.succeeded && mode(cli.file(name).path) == expected, "--force, umask \(mask): \(forced)")
        }
        // A fresh state folder and a new batch folder, with umask 000.
        let fresh = try CLI()
        try "\(cat)\n\(cup)\n".write(to: fresh.file("list.txt"), atomically: true, encoding: .utf8)
        let made = try fresh.bash("umask 000 && \"$COLLAGE\" add \(shellQuoted(cat)) && exec \"$COLLAGE\" batch list.txt -o new/folder --size 32x32")
        #expect(made.succeeded, "\(made)")
        let stateFolder = fresh.state.appendingPathComponent("collage").path
        #expect(mode(stateFolder) == 0o700, "state folder \(String(mode(stateFolder), radix: 8))")
        #expect(mode(stateFolder + "/selection.json") == 0o600)
        #expect(mode(stateFolder + "/selection.lock") == 0o600)
        for folder in ["new", "new/folder"] {
            #expect(mode(fresh.file(folder).path) & 0o002 == 0, "\(folder): \(String(mode(fresh.file(folder).path), radix: 8))")
        }
        #expect(mode(fresh.file("new/folder/collage-001.jpg").path) & 0o002 == 0)
    }
}

// MARK: - Batch lists from pipes

@Suite struct PipedListTests {
    /// `collage batch <(find ...)` names a pipe. The progress bar's first
    /// pass used to read it to count the collages, consuming it: the run
    /// found the list empty, made nothing and exited 0.
    @Test func aListGivenAsAPipeIsReadOnce() throws {
        let cli = try CLI()
        let list = "\(cat)\n\(cup)\n\n\(cup)\n\(cat)\n"
        let substituted = try cli.bash("exec \"$COLLAGE\" batch <(printf %s \(shellQuoted(list))) -o out --size 64x64")
        #expect(substituted.succeeded, "\(substituted)")
        #expect(substituted.stdout.contains("Saved 2 collages"), "\(substituted)")
        #expect(mkfifo(cli.file("list.fifo").path, 0o600) == 0)
        let fifo = try cli.bash("printf %s \(shellQuoted(list)) > list.fifo & exec \"$COLLAGE\" batch list.fifo -o fifo-out --size 64x64", timeout: 60)
        #expect(fifo.succeeded && fifo.stdout.contains("Saved 2 collages"), "\(fifo)")
    }
}

// MARK: - Batch lists that would take forever

@Suite struct RunawayBatchTests {
    /// A list missing its blank lines (`find . -name '*.jpg' | collage batch -`)
    /// is one "collage" of every photo. It is refused for its size before any
    /// file is read, instead of reading thousands of photos first.
    @Test func aHugeGroupIsRefusedWithoutReadingItsFiles() throws {
        final class CountingInspector: PhotoInspecting, Sendable {
            let calls = Locked(0)
            func inspect(_ photo: Photo) throws -> PhotoInfo {
                calls.withLock { $0 += 1 }
                return PhotoInfo(format: .jpeg, width: 4, height: 3, orientation: 1, displayWidth: 4, displayHeight: 3, hasAlpha: false)
            }
        }
        let inspector = CountingInspector()
        let viewModel = try CollageViewModel(store: InMemorySelectionStore(), inspector: inspector,
                                             renderer: FakeRenderer(), writer: FakeWriter())
        let pick = (0..<10_000).map { photo("p\($0).jpg") }
        let event = viewModel.add(pick)
        #expect(event == .refused(.full(count: 0, adding: 10_000)))
        #expect(inspector.calls.current == 0)
        #expect(viewModel.add(Array(pick.prefix(6))).isSuccess)
        #expect(inspector.calls.current == 6)
    }
}
