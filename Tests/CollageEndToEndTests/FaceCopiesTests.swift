import Foundation
import Testing

// The face detector is compiled twice, for any x86-64 and for x86-64-v3
// (Sources/CollageFaces/faces_x86_64_v3.cpp): the second copy must not leak
// into code that a processor without AVX runs (issue #23).
@Suite("The face detector's processor copies")
struct FaceCopiesTests {
    #if arch(x86_64)
    @Test func noSharedFunctionOfTheBinaryUsesAVXOutsideTheX8664V3Copy() throws {
        let script = CLI.packageRoot.appendingPathComponent("scripts/faces/check-copies.sh")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script.path, CLI.binary.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
    }
    #endif
}
