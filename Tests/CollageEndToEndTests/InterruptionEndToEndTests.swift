import CollageTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue #44: a long command interrupted from the terminal (Ctrl-C) gives
/// it back tidy and dies of the signal, as shells and scripts expect.
/// (The picker: PickEndToEndTests; batch: BatchEndToEndTests.)
@Suite struct InterruptionEndToEndTests {
    /// `suggest` measuring a folder, in tmux so that its progress line is
    /// up: Ctrl-C clears the line, says nothing was suggested, and the shell
    /// reads 130; the selection is untouched.
    @Test func suggestInterruptedWhileMeasuring() throws {
        guard PickEndToEndTests.tmuxAvailable else { return }
        let cli = try CLI()
        // 3,000 names of one photo (hard links, no copies): 2 s of measuring
        // for the release build, more for the tests' own (300 took 0.2 s,
        // and under the sanitizers, on a busy machine, the run ended before
        // its progress line was seen). Interrupted as soon as the line is up,
        // so the size costs only the links.
        let folder = try temporaryDirectory()
        let first = folder.appendingPathComponent("p1.jpg")
        try FileManager.default.copyItem(atPath: CLI.jpegs[2], toPath: first.path)
        for index in 2...3000 {
            try FileManager.default.linkItem(at: first, to: folder.appendingPathComponent("p\(index).jpg"))
        }
        try cli.run("add", CLI.jpegs[0])
        let cache = try temporaryDirectory()
        let session = try TmuxSession(command: "'\(CLI.binary.path)' suggest --add '\(folder.path)'",
                                      environment: ["XDG_STATE_HOME": cli.state.path, "XDG_CACHE_HOME": cache.path],
                                      folder: cli.workingDirectory)
        try session.waitFor("the progress line") { $0.contains("Measuring ") }
        // SIGINT to collage alone, as Ctrl-C sends it (to the pane's shell
        // too, which would then end before it records the status).
        let pid = try session.tmux(["display-message", "-p", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let children = try String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)
        let child = try #require(children.split(separator: " ").first.flatMap { Int32($0) })
        kill(child, SIGINT)
        #expect(session.exitStatus() == "130")
        let screen = try session.screen()
        #expect(screen.contains("collage: interrupted (SIGINT): nothing suggested"), "\(screen)")
        #expect(!screen.contains("Measuring"), "the progress line is cleared: \(screen)")
        #expect(try cli.count() == 1, "nothing added")
    }
}
