import CollageImaging
import Foundation
import Testing

/// Drives the real `collage pick` in a tmux session on a private server:
/// keys in with send-keys, the screen read back with capture-pane.
final class TmuxSession {
    static let tmux: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    let socket = "collage-test-\(UUID().uuidString.prefix(8))"
    let exitFile: URL

    init(command: String, environment: [String: String], folder: URL, columns: Int = 100, rows: Int = 30) throws {
        exitFile = folder.appendingPathComponent("exit-status")
        let exports = environment.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        // After the program ends, the shell records its status and lingers so
        // the pane (and its alternate-screen flag) can still be read.
        let script = "cd '\(folder.path)' && env \(exports) \(command); echo $? > '\(exitFile.path)'; sleep 60"
        try tmux(["new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", script])
    }

    static let cleanLauncher = """
        import signal, subprocess, sys
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGPIPE):
            signal.signal(number, signal.SIG_DFL)
        sys.exit(subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, close_fds=True).returncode)
        """

    deinit { _ = try? tmux(["kill-server"]) }

    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.tmux!)
        process.arguments = ["-L", socket, "-f", "/dev/null"] + arguments
        process.standardError = FileHandle.nullDevice
        // new-session forks the tmux server, a daemon that would inherit every
        // descriptor of its client, Foundation's own child-exit channel and
        // pipes included, and hold them open for ever (waitUntilExit and
        // readDataToEndOfFile would never return), and the signal mask of the
        // test's worker thread, which blocks nearly every signal (the server
        // could then never be stopped). A small Python launcher starts it with
        // no descriptor of ours and no signal blocked.
        guard arguments.first != "new-session" else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", Self.cleanLauncher, Self.tmux!, "-L", socket, "-f", "/dev/null"] + arguments
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return ""
        }
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    func keys(_ keys: String...) throws { try tmux(["send-keys"] + keys) }
    func type(_ text: String) throws { try tmux(["send-keys", "-l", text]) }
    func screen() throws -> String { try tmux(["capture-pane", "-p"]) }
    var inAlternateScreen: Bool { ((try? tmux(["display-message", "-p", "#{alternate_on}"])) ?? "").hasPrefix("1") }

    /// Waits (up to 10 s) until the screen satisfies `condition`; returns it.
    @discardableResult
    func waitFor(_ what: String, _ condition: (String) -> Bool) throws -> String {
        var last = ""
        for _ in 0..<200 {
            last = try screen()
            if condition(last) { return last }
            usleep(50_000)
        }
        Issue.record("timed out waiting for \(what); the screen shows:\n\(last)")
        return last
    }

    func exitStatus() -> String? {
        for _ in 0..<100 {
            if let text = try? String(contentsOf: exitFile, encoding: .utf8), !text.isEmpty {
                return text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            usleep(50_000)
        }
        return nil
    }
}

/// The N of "resources: N" on a screen.
func resourceCount(_ screen: String) -> Int? {
    guard let range = screen.range(of: "resources: ") else { return nil }
    return Int(screen[range.upperBound...].prefix { $0.isNumber })
}

@Suite(.serialized) struct PickEndToEndTests {
    /// tmux comes with `make test`'s packages; where it cannot be had the
    /// test says so (and fails on CI, where it must run).
    static var tmuxAvailable: Bool {
        if TmuxSession.tmux != nil { return true }
        let message = "tmux is not installed: the terminal end-to-end tests did not run"
        if ProcessInfo.processInfo.environment["CI"] != nil { Issue.record(Comment(rawValue: message)) }
        FileHandle.standardError.write(Data("note: \(message)\n".utf8))
        return false
    }

    func photosFolder() throws -> URL {
        let folder = try temporaryDirectory()
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CLI.jpegs[0], toPath: folder.appendingPathComponent("a.jpg").path)
        try FileManager.default.copyItem(atPath: CLI.png, toPath: folder.appendingPathComponent("b.png").path)
        try Data("not a photo".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        return folder
    }

    @Test func addTwoPhotosSaveAndQuit() throws {
        guard Self.tmuxAvailable else { return }
        let cli = try CLI()
        let photos = try photosFolder()
        let session = try TmuxSession(
            command: "'\(CLI.binary.path)' pick '\(photos.path)'",
            environment: ["XDG_STATE_HOME": cli.state.path, "COLLAGE_TRACE_RESOURCES": "1"],
            folder: cli.workingDirectory)

        var screen = try session.waitFor("the photos screen") { $0.contains("b.png") }
        #expect(screen.contains("Collage · add photos"))
        #expect(screen.contains(" sub/"))
        #expect(!screen.contains("notes.txt"))
        #expect(session.inAlternateScreen)

        try session.keys("j", "Enter")   // sub/ is first: move to a.jpg and add it
        try session.waitFor("the first photo") { $0.contains("1 photo · add photos") }
        try session.keys("j", "Space")
        try session.waitFor("the second photo") { $0.contains("2 photos · add photos") }
        #expect(try cli.count() == 2, "every pick is stored at once")

        try session.keys("q")
        screen = try session.waitFor("the collage screen") { $0.contains("1. a.jpg") && $0.contains("a add") }
        let resources = try #require(resourceCount(screen))
        for _ in 0..<3 {
            try session.keys("a")
            try session.waitFor("the photos screen again") { $0.contains("add photos") }
            try session.keys("Escape")
            try session.waitFor("the collage screen again") { $0.contains("a add") }
        }
        screen = try session.screen()
        #expect(resourceCount(screen) == resources, "no subscription leaks across visits")

        try session.keys("s")
        try session.waitFor("the save prompt") { $0.contains("Save as: collage-") }
        try session.keys("C-u")
        try session.type("out.jpg")
        try session.keys("Enter")
        try session.waitFor("the save") { $0.contains("Saved \(cli.workingDirectory.path)/out.jpg") }
        #expect(try cli.count() == 0, "a saved collage clears the selection")
        var info = ci_photo_info()
        var error = ci_error()
        #expect(ci_probe_file(cli.workingDirectory.appendingPathComponent("out.jpg").path, &info, &error) == CI_OK)
        #expect(info.width == 1920 && info.height == 1080)

        try session.keys("q")
        #expect(session.exitStatus() == "0")
        #expect(!session.inAlternateScreen, "the terminal is given back")
    }

    @Test("the terminal is restored on Ctrl-C and on SIGTERM", arguments: ["C-c", "SIGTERM"])
    func restoredOnInterruption(how: String) throws {
        guard Self.tmuxAvailable else { return }
        let cli = try CLI()
        let session = try TmuxSession(command: "'\(CLI.binary.path)'", environment: ["XDG_STATE_HOME": cli.state.path],
                                      folder: cli.workingDirectory)
        try session.waitFor("the collage screen") { $0.contains("a add") }
        #expect(session.inAlternateScreen)
        if how == "C-c" {
            try session.keys("C-c")
            #expect(session.exitStatus() == "0")
        } else {
            let pid = try session.tmux(["display-message", "-p", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
            // The pane runs a shell; its child is collage.
            let children = try String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)
            let child = try #require(children.split(separator: " ").first.flatMap { Int32($0) })
            kill(child, SIGTERM)
            #expect(session.exitStatus() == "143")
        }
        #expect(!session.inAlternateScreen)
    }

    @Test func withoutATerminalPickRefusesWithAHint() throws {
        let cli = try CLI()
        let output = try cli.run("pick")
        #expect(output.status != 0)
        #expect(output.stderr.contains("needs a terminal"))
        #expect(output.stderr.contains("collage add"))
    }
}
