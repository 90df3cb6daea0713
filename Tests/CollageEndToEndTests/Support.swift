import CollageImaging
import CollageKit
import CollageTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

// What the end-to-end suites share: running the built binary with bash,
// watching for signals and hangs, and the files they make. Every refusal
// they check is one line on stderr naming the file, exit status 1, never a
// signal and never a hang. docs/reliability.md tells what each suite covers.

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
    /// Every option `--help` lists, of `collage` and of each command, by
    /// its long name ("--size"): what the README and the manual must name.
    /// The commands as `collage --help` lists them ("  name   what it does"),
    /// so a new one is checked too; "" first, for the root command.
    func helpCommands() throws -> [String] {
        let root = try run("--help").stdout
        let listed = root.components(separatedBy: "SUBCOMMANDS:").dropFirst().first?.split(separator: "\n")
            .filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }.compactMap { $0.split(separator: " ").first.map(String.init) } ?? []
        return [""] + listed.filter { $0 != "See" }
    }

    func helpOptions() throws -> Set<String> {
        let commands = try helpCommands()
        let option = try Regex("--[a-z0-9][a-z0-9-]*")
        var options: Set<String> = []
        for command in commands {
            let help = try run(command.isEmpty ? ["--help"] : [command, "--help"]).stdout
            // Only the lines that define options ("  -o, --output <path>  ..."), not the prose.
            for line in help.split(separator: "\n") where line.drop(while: { $0 == " " }).hasPrefix("-") && line.hasPrefix("  ") {
                for match in line.matches(of: option) { options.insert(String(line[match.range])) }
            }
        }
        return options
    }

    /// Whether `text` names `option` ("--size", not only "--size-x").
    static func names(_ option: String, in text: String) -> Bool {
        text.ranges(of: option).contains { range in
            guard let next = text[range.upperBound...].first else { return true }
            return !(next.isLetter || next.isNumber || next == "-")
        }
    }

    /// A fontconfig configuration that finds no font, for FONTCONFIG_FILE.
    func fontlessConfig() throws -> URL {
        let config = workingDirectory.appendingPathComponent("no-fonts.conf")
        try Data("<?xml version=\"1.0\"?>\n<fontconfig><cachedir>\(workingDirectory.path)/cache</cachedir></fontconfig>\n".utf8)
            .write(to: config)
        return config
    }

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

/// A collage the binary wrote (any format it writes), decoded: its size and its RGB
/// pixels, rows packed.
struct DecodedImage {
    let width: Int
    let height: Int
    let rgb: [UInt8]

    init(_ path: String) throws {
        var options = ci_decode_options()  // 0 x 0: full size, never shrunk on load
        var image = ci_image()
        var error = ci_error()
        guard ci_decode_file(path, &options, &image, &error) == CI_OK else { throw CocoaError(.fileReadCorruptFile) }
        defer { ci_image_free(&image) }
        var rgb: [UInt8] = []
        rgb.reserveCapacity(Int(image.width) * Int(image.height) * 3)
        for row in 0..<Int(image.height) {
            rgb += UnsafeBufferPointer(start: image.pixels + row * image.stride, count: Int(image.width) * 3)
        }
        (width, height, self.rgb) = (Int(image.width), Int(image.height), rgb)
    }

    /// The pixel at (x, y).
    func pixel(_ x: Int, _ y: Int) -> [UInt8] {
        let at = (y * width + x) * 3
        return Array(rgb[at..<at + 3])
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
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] { PNGFile.chunk(type, data) }
    static func crc32(_ bytes: [UInt8]) -> UInt32 { PNGFile.crc32(bytes) }
    static let pngSignature = PNGFile.signature
    static func be32(_ value: UInt32) -> [UInt8] { PNGFile.be32(value) }

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
            precondition(ci_encode(CI_FORMAT_PNG, &image, nil, &output, &size, &error) == CI_OK)
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
