import CollageKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Shows a batch run on stderr: on a terminal, a progress bar (done / total,
/// rate, time left) with problems printed above it; off a terminal, one line
/// per collage. A dry run prints its plan on stdout.
final class BatchProgressView: Sendable {
    private let total: Int?
    private let dryRun: Bool
    /// Where a dry run's plan goes: stdout, unless that carries the report.
    private let planOnStandardOutput: Bool
    private let onTerminal = isatty(STDERR_FILENO) != 0
    private let started = Date()
    /// Collages done so far; its lock also keeps one result's lines together.
    private let done = Locked(0)

    init(total: Int?, dryRun: Bool, planOnStandardOutput: Bool = true) {
        self.total = total
        self.dryRun = dryRun
        self.planOnStandardOutput = planOnStandardOutput
        if onTerminal && !dryRun { draw(done: 0) }
    }

    func show(_ result: BatchResult) {
        done.withLock { done in
            done += 1
            // Above the bar, as problems are: the collage's label, then what its photo needs said.
            if onTerminal && !dryRun && !(result.notices.isEmpty && result.group.warnings.isEmpty) { clearLine() }
            for warning in result.group.warnings { Console.warning("\(result.label): \(warning)") }
            for notice in result.notices { Console.warning("\(result.label): \(notice.message)") }
            if dryRun {
                if result.succeeded && planOnStandardOutput { print(message(result)) } else { write(message(result)) }
                return
            }
            if onTerminal {
                if !result.succeeded { clearLine(); write(message(result)) }
                draw(done: done)
            } else {
                write(message(result))
            }
        }
    }

    func finish() {
        done.withLock { _ in
            if onTerminal && !dryRun { clearLine() }
        }
    }

    /// Its line, control characters in names escaped as everywhere.
    private func message(_ result: BatchResult) -> String {
        Console.printable(result.message(wording: .commandLine))
    }

    private func draw(done: Int) {
        let elapsed = Date().timeIntervalSince(started)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        var line: String
        if let total, total > 0 {
            let width = 30
            let filled = min(width, done * width / total)
            line = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
            line += " \(done)/\(total)"
            if rate > 0 && done < total {
                line += String(format: "  %.1f/s  %@ left", rate, Self.duration(Double(total - done) / rate))
            }
        } else {
            line = "\(done) done"
        }
        if rate > 0 && total == nil { line += String(format: "  %.1f/s", rate) }
        FileHandle.standardError.write(Data("\r\u{1B}[2K\(line)".utf8))
    }

    private func clearLine() {
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }

    private func write(_ message: String) {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
    }

    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.up))
        return s >= 60 ? "\(s / 60)m\(String(format: "%02d", s % 60))s" : "\(s)s"
    }
}
