import CollageKit
import Dispatch
import Foundation
import Glibc
import CollageTestSupport
import Testing
@testable import CollageTerminal

/// SystemTerminal on a pseudo-terminal: the real termios, writes, reads and
/// signals, without touching the terminal the tests run in. Serialized: the
/// signal dispositions and the emergency-restore block are process-wide. On
/// the main actor, as the terminal is: its keys, resizes and signals arrive
/// there while a test awaits them.
@MainActor @Suite(.serialized) struct SystemTerminalTests {
    /// A pty pair: the test plays the terminal on `master`; SystemTerminal gets `slave`.
    final class PTY: Sendable {
        let master: Int32
        let slave: Int32

        init(columns: UInt16 = 100, rows: UInt16 = 30) throws {
            // posix_openpt/unlockpt/ptsname are not in Swift's Glibc module
            // (they need _XOPEN_SOURCE); they are these calls on Linux.
            // TIOCSPTLCK and TIOCGPTN are function-like macros, so their
            // values are spelled out (the same on x86_64 and arm64).
            let TIOCSPTLCK: UInt = 0x4004_5431, TIOCGPTN: UInt = 0x8004_5430
            master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
            var unlock: Int32 = 0
            var number: UInt32 = 0
            guard master >= 0, ioctl(master, TIOCSPTLCK, &unlock) == 0, ioctl(master, TIOCGPTN, &number) == 0 else {
                throw TerminalError.system("/dev/ptmx", errno)
            }
            slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
            guard slave >= 0 else { throw TerminalError.system("open", errno) }
            setSize(columns: columns, rows: rows, pixelWidth: columns * 9, pixelHeight: rows * 18)
        }

        deinit {
            close(slave)
            close(master)
        }

        func setSize(columns: UInt16, rows: UInt16, pixelWidth: UInt16 = 0, pixelHeight: UInt16 = 0) {
            var window = winsize(ws_row: rows, ws_col: columns, ws_xpixel: pixelWidth, ws_ypixel: pixelHeight)
            _ = ioctl(master, UInt(TIOCSWINSZ), &window)
        }

        /// Everything the terminal was sent, waiting up to `timeout` for `expected` bytes.
        func read(atLeast expected: Int, timeout: Int32 = 5000) -> String {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while bytes.count < expected {
                var waiter = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                guard poll(&waiter, 1, timeout) > 0 else { break }
                let count = Glibc.read(master, &buffer, buffer.count)
                guard count > 0 else { break }
                bytes += buffer[0..<count]
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// Types `text` as the user would.
        func type(_ text: String) {
            _ = text.utf8CString.withUnsafeBufferPointer { Glibc.write(master, $0.baseAddress, $0.count - 1) }
        }

        func attributes() -> termios {
            var attributes = termios()
            tcgetattr(slave, &attributes)
            return attributes
        }
    }

    /// Collects what the terminal reports on the main actor, for the test to await.
    @MainActor final class Inbox<Value> {
        private(set) var values: [Value] = []
        private var waiting: (count: Int, done: CheckedContinuation<Void, Never>)?

        func add(_ value: Value) {
            values.append(value)
            if let waiting, values.count >= waiting.count { finishWaiting() }
        }

        /// Awaits at least `count` values (or 3 seconds), leaving the main
        /// actor free to receive them meanwhile.
        func wait(for count: Int) async -> [Value] {
            guard values.count < count else { return values }
            let timeout = Task {
                try await Task.sleep(for: .seconds(3))
                finishWaiting()
            }
            await withCheckedContinuation { waiting = (count, $0) }
            timeout.cancel()
            return values
        }

        private func finishWaiting() {
            waiting?.done.resume()
            waiting = nil
        }
    }

    /// Waits until the terminal's signal sources are registered (libdispatch
    /// does it asynchronously, then tells on the main queue): a signal sent
    /// before could be lost.
    private func waitUntilWatching(_ terminal: SystemTerminal) async -> Bool {
        for _ in 0..<300 {
            if terminal.signalsAreWatched { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test func sizeComesFromTheTerminalWithPixels() throws {
        let pty = try PTY(columns: 120, rows: 40)
        let size = try #require(SystemTerminal.size(of: pty.slave))
        #expect(size == TerminalSize(columns: 120, rows: 40, pixelWidth: 1080, pixelHeight: 720))
        #expect(size.cellPixelSize?.width == 9 && size.cellPixelSize?.height == 18)
        var pipeEnds: [Int32] = [0, 0]
        pipe(&pipeEnds)
        defer { close(pipeEnds[0]); close(pipeEnds[1]) }
        #expect(SystemTerminal.size(of: pipeEnds[1]) == nil)
    }

    @Test func rawModeKeysAndRestore() async throws {
        let pty = try PTY()
        let original = pty.attributes()
        let terminal = SystemTerminal(input: pty.slave, output: pty.slave)
        let keys = Inbox<Key>()

        try terminal.start(onKeys: { $0.forEach(keys.add) }, onResize: { _ in })
        #expect(pty.read(atLeast: SystemTerminal.enterSequence.utf8.count) == SystemTerminal.enterSequence)
        let raw = pty.attributes()
        #expect(raw.c_lflag & tcflag_t(ECHO | ICANON | ISIG | IEXTEN) == 0)
        #expect(raw.c_iflag & tcflag_t(IXON | ICRNL) == 0)
        #expect(EmergencyRestore.isArmed)

        // More than the pty holds: written in several partial writes while
        // the test reads the other end.
        let frame = String(repeating: "x", count: 100_000) + "\u{1B}[0m"
        // The terminal is not Sendable: it writes here, the other end is read on another thread.
        let received = Inbox<String>()
        DispatchQueue.global().async {
            let text = pty.read(atLeast: frame.utf8.count)
            deliverOnMain { received.add(text) }
        }
        terminal.write(frame)
        #expect(await received.wait(for: 1) == [frame])

        pty.type("\u{1B}[Aq\u{03}")
        #expect(await keys.wait(for: 3) == [.up, .character("q"), .control("c")])


        terminal.restore()
        #expect(pty.read(atLeast: SystemTerminal.restoreSequence.utf8.count) == SystemTerminal.restoreSequence)
        let restored = pty.attributes()
        #expect(restored.c_lflag == original.c_lflag && restored.c_iflag == original.c_iflag)
        #expect(!EmergencyRestore.isArmed)

        // Idempotent: nothing more is written.
        terminal.restore()
        #expect(pty.read(atLeast: 1, timeout: 100) == "")
    }

    @Test func anUnfinishedSequenceIsDroppedAfterAPause() async throws {
        let pty = try PTY()
        let terminal = SystemTerminal(input: pty.slave, output: pty.slave)
        let keys = Inbox<Key>()
        try terminal.start(onKeys: { $0.forEach(keys.add) }, onResize: { _ in })
        defer { terminal.restore() }
        pty.type("\u{1B}[")
        try await Task.sleep(for: .milliseconds(200))
        pty.type("A")   // after the pause: a plain "A", not the end of an arrow
        #expect(await keys.wait(for: 1) == [.character("A")])
    }

    @Test func startRefusesWhatIsNotATerminal() {
        var pipeEnds: [Int32] = [0, 0]
        pipe(&pipeEnds)
        defer { close(pipeEnds[0]); close(pipeEnds[1]) }
        let terminal = SystemTerminal(input: pipeEnds[0], output: pipeEnds[1])
        #expect(throws: TerminalError.notATerminal) { try terminal.start(onKeys: { _ in }, onResize: { _ in }) }
        #expect(!terminal.isActive && !EmergencyRestore.isArmed)
    }

    @Test func windowResizeIsReported() async throws {
        let pty = try PTY(columns: 100, rows: 30)
        let terminal = SystemTerminal(input: pty.slave, output: pty.slave)
        let sizes = Inbox<TerminalSize>()
        try terminal.start(onKeys: { _ in }, onResize: { sizes.add($0) })
        defer { terminal.restore() }
        #expect(await waitUntilWatching(terminal))
        pty.setSize(columns: 90, rows: 20)
        // The pty is not our controlling terminal, so the kernel does not
        // signal us: raise SIGWINCH as it would.
        kill(getpid(), SIGWINCH)
        #expect(await sizes.wait(for: 1).last == TerminalSize(columns: 90, rows: 20))
    }

    @Test func hangupRestoresThenExitsWith129() async throws {
        let pty = try PTY()
        let exits = Inbox<Int32>()
        let terminal = SystemTerminal(input: pty.slave, output: pty.slave, exitProcess: { exits.add($0) })
        try terminal.start(onKeys: { _ in }, onResize: { _ in })
        _ = pty.read(atLeast: SystemTerminal.enterSequence.utf8.count)
        #expect(await waitUntilWatching(terminal))
        kill(getpid(), SIGHUP)
        #expect(await exits.wait(for: 1) == [129])
        #expect(!terminal.isActive)
        #expect(pty.read(atLeast: SystemTerminal.restoreSequence.utf8.count) == SystemTerminal.restoreSequence)
        // The default action is back once the terminal is restored.
        var action = sigaction()
        sigaction(SIGHUP, nil, &action)
        #expect(unsafeBitCast(action.__sigaction_handler, to: Int.self) == 0)
    }

    @Test func signalsStillReachASecondTerminal() async throws {
        // libdispatch installs its handler only for the first source on a
        // signal; a later start must still get SIGTERM, not ignore it.
        for _ in 0..<2 {
            let pty = try PTY()
            let exits = Inbox<Int32>()
            let terminal = SystemTerminal(input: pty.slave, output: pty.slave, exitProcess: { exits.add($0) })
            try terminal.start(onKeys: { _ in }, onResize: { _ in })
            #expect(await waitUntilWatching(terminal))
            kill(getpid(), SIGTERM)
            #expect(await exits.wait(for: 1) == [143])
            #expect(!terminal.isActive)
        }
    }
}
