import CollageImaging
import CollageTestSupport
import Foundation
@testable import CollageKit

/// Runs the built `collage` binary with its own `XDG_STATE_HOME`.
struct CLI {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let samples = packageRoot.appendingPathComponent("SampleImages")

    /// The binary sits beside the test bundle in the build folder.
    static let binary: URL = {
        if let override = ProcessInfo.processInfo.environment["COLLAGE_BINARY"] {
            return URL(fileURLWithPath: override)
        }
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("collage")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                return candidate
            }
            folder = folder.deletingLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/collage")
    }()

    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    let state: URL
    let workingDirectory: URL

    init() throws {
        state = try temporaryDirectory()
        workingDirectory = try temporaryDirectory()
    }

    @discardableResult
    func run(_ arguments: String...) throws -> Output { try run(arguments) }

    @discardableResult
    func run(_ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.currentDirectoryURL = workingDirectory
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = state.path
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus,
                      stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }

    func status() throws -> [String: Any] {
        let output = try run("status", "--json")
        let object = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8))
        return object as? [String: Any] ?? [:]
    }

    func count() throws -> Int { try status()["count"] as? Int ?? -1 }

    static func sample(_ name: String) -> String { samples.appendingPathComponent(name).path }
    static let jpegs = ["chelsea-the-cat.jpg", "coffee-cup.jpg", "astronaut-eileen-collins.jpg",
                        "cameraman-grayscale.jpg", "rocket-exif-orientation-6.jpg"].map(sample)
    static let png = sample("retina-round-alpha.png")
}
