import CollageTestSupport
import Foundation
import Testing

// The face detector is compiled twice, for any x86-64 and for x86-64-v3
// (Sources/CollageFaces/faces_x86_64_v3.cpp): the second copy must not leak
// into code that a processor without AVX runs (issue #23).
@Suite("The face detector's processor copies")
struct FaceCopiesTests {
    #if arch(x86_64)
    @Test func noSharedFunctionOfTheBinaryUsesAVXOutsideTheX8664V3Copy() throws {
        let run = try ScriptRun(CLI.packageRoot.appendingPathComponent("scripts/faces/check-copies.sh"), [CLI.binary.path])
        #expect(run.status == 0, "\(run.output)")
    }
    #endif
}
