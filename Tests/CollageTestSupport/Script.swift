import Foundation

/// A script of the repository run (by bash, or by `command`: a program and
/// its first arguments), for the tests that check generated or built files
/// (the face models, the processor copies).
public struct ScriptRun {
    public let status: Int32
    /// Standard output and standard error together.
    public let output: String

    public init(_ script: URL, _ arguments: [String] = [], runBy command: [String] = ["/bin/bash"]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst()) + [script.path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        status = process.terminationStatus
    }
}
