import CollageImaging
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

/// A flag set from another thread.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
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
        let expired = Flag()
        let killer = DispatchWorkItem {
            expired.set()
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
                   timedOut: expired.isSet,
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
        out += [UInt8](repeating: 0, count: (blocks * 2 + 7) / 8)
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
