import Foundation

/// A program run to its end with its standard output kept and its standard
/// error dropped: the readers the tests check files with (poppler's tools,
/// exiftool, Python), and a script.
public struct ToolRun {
    public let status: Int32
    public let output: Data
    public var text: String { String(decoding: output, as: UTF8.self) }

    public init(_ path: String, _ arguments: [String], in folder: URL? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        status = process.terminationStatus
    }
}
