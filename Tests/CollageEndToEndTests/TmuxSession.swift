import CollageImaging
import CollageTestSupport
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
    /// The screen with its colours (SGR escape sequences), as a person sees it.
    func colouredScreen() throws -> String { try tmux(["capture-pane", "-p", "-e"]) }
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

    /// `s`, the name the save prompt offers (which shows `offered`) replaced
    /// by `name`, Enter; waits until the collage is saved in `folder`.
    func save(as name: String, in folder: URL, offered: String = "Save as: ") throws {
        try keys("s")
        try waitFor("the save prompt") { $0.contains(offered) }
        try keys("C-u")
        try type(name)
        try keys("Enter")
        try waitFor("the save") { $0.contains("Saved \(folder.path)/\(name)") }
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
