import CollageKit
import Dispatch
import Foundation
import Glibc
import CollageTestSupport
import Testing
@testable import CollageTerminal

/// SystemTerminal on a pseudo-terminal: the real termios, writes, reads and
/// signals, without touching the terminal the tests run in. Serialized: the
/// signal dispositions and the emergency-restore block are process-wide.
@Suite(.serialized) struct SystemTerminalTests {
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

    /// Collects callbacks from the terminal's queue for the test to wait on.
    final class Inbox<Value>: Sendable {
        private let values = Locked<[Value]>([])
        private let arrived = DispatchSemaphore(value: 0)

        func add(_ value: Value) {
            values.withLock { $0.append(value) }
            arrived.signal()
        }

        /// Waits until at least `count` values have arrived (or 3 seconds).
        func wait(for count: Int) -> [Value] {
            let deadline = DispatchTime.now() + 3
            while snapshot.count < count {
                if arrived.wait(timeout: deadline) == .timedOut { break }
            }
            return snapshot
        }

        var snapshot: [Value] { values.current }
    }

    /// Waits until the terminal's signal sources are registered (libdispatch
    /// does it asynchronously): a signal sent before could be lost.
    private func waitUntilWatching(_ terminal: SystemTerminal, on queue: DispatchQueue) -> Bool {
        for _ in 0..<300 {
            if queue.sync(execute: { terminal.signalsAreWatched }) { return true }
            usleep(10_000)
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

    @Test func rawModeKeysAndRestore() throws {
        let pty = try PTY()
        let original = pty.attributes()
        let queue = DispatchQueue(label: "terminal-test")
        let terminal = SystemTerminal(input: pty.slave, output: pty.slave, queue: queue)
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
        DispatchQueue.global().async { received.add(pty.read(atLeast: frame.utf8.count)) }
        terminal.write(frame)
        #expect(received.wait(for: 1) == [frame])

        pty.type("\u{1B}[Aq\u{03}")
        #expect(keys.wait(for: 3) == [.up, .character("q"), .control("c")])


        queue.sync { terminal.restore() }
        #expect(pty.read(atLeast: SystemTerminal.restoreSequence.utf8.count) == SystemTerminal.restoreSequence)
        let restored = pty.attributes()
        #expect(restored.c_lflag == original.c_lflag && restored.c_iflag == original.c_iflag)
        #expect(!EmergencyRestore.isArmed)

        // Idempotent: nothing more is written.
        queue.sync { terminal.restore() }
        #expect(pty.read(atLeast: 1, timeout: 100) == "")
    }

    @Test func anUnfinishedSequenceIsDroppedAfterAPause() throws {
        let pty = try PTY()
        let queue = DispatchQueue(label: "terminal-test")
        let terminal = SystemTerminal(input: pty.slave, output: pty.slave, queue: queue)
        let keys = Inbox<Key>()
        try terminal.start(onKeys: { $0.forEach(keys.add) }, onResize: { _ in })
        defer { queue.sync { terminal.restore() } }
        pty.type("\u{1B}[")
        usleep(200_000)
        pty.type("A")   // after the pause: a plain "A", not the end of an arrow
        #expect(keys.wait(for: 1) == [.character("A")])
    }

    @Test func startRefusesWhatIsNotATerminal() {
        var pipeEnds: [Int32] = [0, 0]
        pipe(&pipeEnds)
        defer { close(pipeEnds[0]); close(pipeEnds[1]) }
        let terminal = SystemTerminal(input: pipeEnds[0], output: pipeEnds[1])
        #expect(throws: TerminalError.notATerminal) { try terminal.start(onKeys: { _ in }, onResize: { _ in }) }
        #expect(!terminal.isActive && !EmergencyRestore.isArmed)
    }

    @Test func windowResizeIsReported() throws {
        let pty = try PTY(columns: 100, rows: 30)
        let queue = DispatchQueue(label: "terminal-test")
        let terminal = SystemTerminal(input: pty.slave, output: pty.slave, queue: queue)
        let sizes = Inbox<TerminalSize>()
        try terminal.start(onKeys: { _ in }, onResize: { sizes.add($0) })
        defer { queue.sync { terminal.restore() } }
        #expect(waitUntilWatching(terminal, on: queue))
        pty.setSize(columns: 90, rows: 20)
        // The pty is not our controlling terminal, so the kernel does not
        // signal us: raise SIGWINCH as it would.
        kill(getpid(), SIGWINCH)
        #expect(sizes.wait(for: 1).last == TerminalSize(columns: 90, rows: 20))
    }

    @Test func hangupRestoresThenExitsWith129() throws {
        let pty = try PTY()
        let queue = DispatchQueue(label: "terminal-test")
        let exits = Inbox<Int32>()
        let terminal = SystemTerminal(input: pty.slave, output: pty.slave, queue: queue, exitProcess: { exits.add($0) })
        try terminal.start(onKeys: { _ in }, onResize: { _ in })
        _ = pty.read(atLeast: SystemTerminal.enterSequence.utf8.count)
        #expect(waitUntilWatching(terminal, on: queue))
        kill(getpid(), SIGHUP)
        #expect(exits.wait(for: 1) == [129])
        #expect(queue.sync { !terminal.isActive })
        #expect(pty.read(atLeast: SystemTerminal.restoreSequence.utf8.count) == SystemTerminal.restoreSequence)
        // The default action is back once the terminal is restored.
        var action = sigaction()
        sigaction(SIGHUP, nil, &action)
        #expect(unsafeBitCast(action.__sigaction_handler, to: Int.self) == 0)
    }

    @Test func signalsStillReachASecondTerminal() throws {
        // libdispatch installs its handler only for the first source on a
        // signal; a later start must still get SIGTERM, not ignore it.
        for _ in 0..<2 {
            let pty = try PTY()
            let queue = DispatchQueue(label: "terminal-test")
            let exits = Inbox<Int32>()
            let terminal = SystemTerminal(input: pty.slave, output: pty.slave, queue: queue, exitProcess: { exits.add($0) })
            try terminal.start(onKeys: { _ in }, onResize: { _ in })
            #expect(waitUntilWatching(terminal, on: queue))
            kill(getpid(), SIGTERM)
            #expect(exits.wait(for: 1) == [143])
            #expect(queue.sync { !terminal.isActive })
        }
    }
}
