import Foundation

/// A script of the repository run with bash, for the tests that check
/// generated or built files (the face model, the processor copies).
public struct ScriptRun {
    public let status: Int32
    /// Standard output and standard error together.
    public let output: String

    public init(_ script: URL, _ arguments: [String] = []) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script.path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        status = process.terminationStatus
    }
}
