import CollageKit
import Dispatch
import Glibc

/// Why the terminal could not be taken over.
public enum TerminalError: Error, Equatable, CustomStringConvertible {
    /// Standard input or output is not a terminal (a pipe, a file, a cron job).
    case notATerminal
    /// A system call failed: its name and errno.
    case system(String, Int32)

    public var description: String {
        switch self {
        case .notATerminal: return "standard input and output must be a terminal"
        case let .system(call, code): return "\(call) failed: \(String(cString: strerror(code)))"
        }
    }
}

/// The real terminal: raw mode, the alternate screen, keys, resizes and
/// frame writes, over termios and escape sequences.
///
/// Written against the system calls rather than ncurses: ncurses keeps its
/// own model of the screen and cannot place libchafa's pre-rendered escape
/// sequences or graphics protocols (sixel, kitty, iTerm2) in it, and the
/// frames are composed by `ANSIScreenWriter` anyway; what is left here is
/// termios, one ioctl and a few well-known sequences.
///
/// The terminal is always given back (`restore()`):
/// - on a normal quit, by the caller, and on `exit()` from anywhere, by an
///   `atexit` hook;
/// - on SIGINT/SIGTERM/SIGHUP sent by `kill` (Ctrl-C itself arrives as the
///   key `.control("c")`, since ISIG is off), through DispatchSource signal
///   sources on the main queue, with the signals' default actions ignored while the
///   UI runs; the process then exits with 128 + the signal;
/// - when input hangs up (the terminal closed), like SIGHUP;
/// - on a crash (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL), by a last-resort
///   C handler that writes precomputed bytes and calls tcsetattr (both
///   async-signal-safe), then hands the signal to the action that was there
///   before (Swift's backtracer, or the default: a core dump).
///
/// One SystemTerminal may be active at a time in a process. It lives on the
/// main actor, with the screens it draws: its keys, resizes, signals and the
/// timeout of an unfinished sequence are handled on the main queue.
@MainActor
public final class SystemTerminal: TerminalDevice {
    /// Leaves the alternate screen last, so the shell's screen comes back
    /// with the cursor shown, attributes reset and line wrapping on again.
    nonisolated public static let restoreSequence = "\u{1B}[0m\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l"
    /// The alternate screen (the shell's screen is kept and comes back on
    /// exit), no cursor, and no automatic wrapping: a full last column then
    /// never wraps or scrolls the screen.
    nonisolated public static let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?7l"

    /// How long an unfinished escape sequence waits for the rest before it
    /// is dropped (terminals send a key's sequence at once; 50 ms is plenty
    /// even over ssh, and short enough not to be noticed).
    nonisolated static let pendingSequenceTimeout = DispatchTimeInterval.milliseconds(50)

    public let inputDescriptor: Int32
    public let outputDescriptor: Int32
    private let exitProcess: (Int32) -> Void

    public private(set) var isActive = false
    private var savedAttributes: termios?
    private var decoder = KeyDecoder()
    private var readSource: DispatchSourceRead?
    private var signalSources: [DispatchSourceSignal] = []
    /// The actions SIGINT/SIGTERM/SIGHUP/SIGWINCH had before `start`, put back by `restore`.
    private var previousSignalActions: [(Int32, sigaction)] = []
    private var registeredSignalSources = 0
    private var flushGeneration = 0

    nonisolated static let terminationSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    nonisolated static let watchedSignals: [Int32] = terminationSignals + [SIGWINCH]

    /// - Parameter exitProcess: ends the process after a signal has
    ///   restored the terminal (`exit` in the app; tests record the code instead).
    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO,
                exitProcess: @escaping (Int32) -> Void = { exit($0) }) {
        inputDescriptor = input
        outputDescriptor = output
        self.exitProcess = exitProcess
    }

    /// True when standard input and output are both terminals, i.e. a full-
    /// screen UI can run (`collage pick` refuses otherwise).
    nonisolated public static var isInteractive: Bool {
        isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
    }

    /// The size of the terminal `descriptor` refers to, or nil when it is not
    /// a terminal (or reports no size).
    nonisolated public static func size(of descriptor: Int32) -> TerminalSize? {
        var window = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else { return nil }
        return TerminalSize(columns: Int(window.ws_col), rows: Int(window.ws_row),
                            pixelWidth: Int(window.ws_xpixel), pixelHeight: Int(window.ws_ypixel))
    }

    public var size: TerminalSize {
        Self.size(of: outputDescriptor) ?? Self.size(of: inputDescriptor) ?? TerminalSize(columns: 80, rows: 24)
    }

    public func start(onKeys: @escaping ([Key]) -> Void, onResize: @escaping (TerminalSize) -> Void) throws {
        guard !isActive else { return }
        guard isatty(inputDescriptor) == 1, isatty(outputDescriptor) == 1 else { throw TerminalError.notATerminal }
        var original = termios()
        guard tcgetattr(inputDescriptor, &original) == 0 else { throw TerminalError.system("tcgetattr", errno) }

        var raw = original
        // No echo, byte by byte, and no signals from keys: Ctrl-C, Ctrl-Z and
        // Ctrl-\ arrive as keys. Without IXON Ctrl-S/Ctrl-Q arrive too, and
        // without ICRNL Enter stays CR (distinct from Ctrl-J). Output
        // processing (OPOST) is kept: frames position the cursor themselves.
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | INLCR | BRKINT | INPCK | ISTRIP)
        raw.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }

        // Arm the last-resort restore before anything changes, and mark the
        // terminal active so `restore()` undoes whatever part of this ran.
        EmergencyRestore.arm(input: inputDescriptor, output: outputDescriptor,
                             attributes: original, bytes: Array(Self.restoreSequence.utf8))
        savedAttributes = original
        isActive = true

        watchSignals(onResize: onResize)
        var attributes = raw
        // TCSAFLUSH: keys typed before the UI was up are dropped, not acted on.
        guard setAttributes(&attributes, when: TCSAFLUSH) else {
            let code = errno
            restore()
            throw TerminalError.system("tcsetattr", code)
        }
        write(Self.enterSequence)
        watchInput(onKeys: onKeys)
    }

    public func restore() {
        guard isActive else { return }
        isActive = false
        flushGeneration += 1
        readSource?.cancel()
        readSource = nil
        write(Self.restoreSequence)
        if var attributes = savedAttributes { _ = setAttributes(&attributes, when: TCSANOW) }
        savedAttributes = nil
        EmergencyRestore.disarm()
        // Only now, with the terminal back, may SIGINT/SIGTERM/SIGHUP act as usual.
        for source in signalSources { source.cancel() }
        signalSources.removeAll()
        registeredSignalSources = 0
        for (signal, action) in previousSignalActions {
            var previous = action
            var current = sigaction()
            sigaction(signal, &previous, &current)
            EmergencyRestore.rememberDispatchAction(current, for: signal)
        }
        previousSignalActions.removeAll()
        decoder = KeyDecoder()
    }

    /// Writes all of `text` in one loop of write(2): retried on EINTR,
    /// continued after partial writes, waiting when the descriptor is
    /// non-blocking and full. Gives up quietly when the terminal is gone.
    public func write(_ text: String) {
        guard !text.isEmpty else { return }
        var bytes = Array(text.utf8)
        let descriptor = outputDescriptor
        bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                    var waiter = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&waiter, 1, -1)
                } else {
                    return   // EIO after a hangup, EBADF...: nobody is reading any more
                }
            }
        }
    }

    // MARK: - Signals and input

    private func watchSignals(onResize: @escaping (TerminalSize) -> Void) {
        for signal in Self.watchedSignals {
            var previous = sigaction()
            sigaction(signal, nil, &previous)
            previousSignalActions.append((signal, previous))
            // libdispatch routes a watched signal to its source through a
            // handler of its own, which it installs only the first time the
            // process watches that signal: from the second `start` on, we put
            // it back ourselves. The first time, the default action is
            // ignored until libdispatch's handler is in (the default would
            // kill us with the terminal still raw; SIGWINCH's is ignored anyway).
            if var dispatchAction = EmergencyRestore.dispatchAction(for: signal) {
                sigaction(signal, &dispatchAction, nil)
            } else if signal != SIGWINCH {
                Glibc.signal(signal, SIG_IGN)
            }
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .main)
            if signal == SIGWINCH {
                source.setEventHandler { [unowned self] in onResize(self.size) }
            } else {
                // Strong capture: the source lives only while active, and
                // `restore()` cancels it, which releases the handler.
                source.setEventHandler {
                    self.restore()
                    self.exitProcess(128 + signal)
                }
            }
            source.setRegistrationHandler { [weak self] in self?.registeredSignalSources += 1 }
            source.activate()
            signalSources.append(source)
        }
    }

    /// True once every signal source is registered with the system, i.e. a
    /// signal sent from now on reaches it (for tests).
    var signalsAreWatched: Bool {
        isActive && registeredSignalSources == Self.watchedSignals.count
    }

    private func watchInput(onKeys: @escaping ([Key]) -> Void) {
        let source = DispatchSource.makeReadSource(fileDescriptor: inputDescriptor, queue: .main)
        source.setEventHandler {
            // A read source may fire with nothing to read (a spurious or
            // stale wake-up), and input is left blocking (O_NONBLOCK would
            // be shared with the shell through the open file description):
            // look first, so a read never blocks the queue.
            var waiter = pollfd(fd: self.inputDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&waiter, 1, 0) > 0 else { return }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(self.inputDescriptor, &buffer, buffer.count)
            if count < 0 && (errno == EINTR || errno == EAGAIN) { return }
            guard count > 0 else {
                // End of input on a terminal means it hung up: the same as SIGHUP.
                self.restore()
                self.exitProcess(128 + SIGHUP)
                return
            }
            self.flushGeneration += 1
            let keys = self.decoder.decode(buffer[0..<count])
            if self.decoder.hasPending { self.scheduleFlush(onKeys: onKeys) }
            if !keys.isEmpty { onKeys(keys) }
        }
        source.activate()
        readSource = source
    }

    /// Drops an unfinished sequence if no read completes it in time.
    private func scheduleFlush(onKeys: @escaping ([Key]) -> Void) {
        let generation = flushGeneration
        DispatchQueue.main.asyncAfter(deadline: .now() + Self.pendingSequenceTimeout) { [weak self] in
            guard let self, self.isActive, self.flushGeneration == generation else { return }
            let keys = self.decoder.flush()
            if !keys.isEmpty { onKeys(keys) }
        }
    }

    private func setAttributes(_ attributes: inout termios, when: Int32) -> Bool {
        while tcsetattr(inputDescriptor, when, &attributes) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }
}

/// The last-resort restore, for when no Swift code may run: a crash (fatal
/// signal) or `exit()` called without `restore()`.
///
/// Signal handlers and atexit hooks are plain C functions without a context
/// argument, so what they need must be reachable from static storage. This
/// is the one piece of shared mutable state in the terminal layer: a block
/// allocated once, filled by `arm` (on the owning thread, before raw mode is
/// entered, the `armed` flag written last) and emptied by `disarm`. The
/// handler only reads plain values from it and calls write(2), tcsetattr(3)
/// and sigaction(2), which are async-signal-safe.
///
/// The same block remembers libdispatch's signal handler (see
/// `watchSignals`): libdispatch keeps process-wide state about which signals
/// it has installed its handler for, so mirroring it needs process-wide
/// state too; it is written only by `restore()`, on the main actor.
enum EmergencyRestore {
    struct Storage {
        var armed: Int32
        var input: Int32
        var output: Int32
        var attributes: termios
        var bytes: UnsafeMutablePointer<UInt8>
        var byteCount: Int
        /// The actions the fatal signals had before ours (Swift's backtracer).
        var previous: UnsafeMutablePointer<sigaction>
        var handlersInstalled: Bool
        var exitHookRegistered: Bool
        /// libdispatch's handler for each of `SystemTerminal.watchedSignals`, once seen.
        var dispatchActions: UnsafeMutablePointer<sigaction>
        var dispatchActionKnown: UnsafeMutablePointer<Bool>
    }

    static let byteCapacity = 64
    static let fatalSignals: [Int32] = [SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL]

    nonisolated(unsafe) static let storage: UnsafeMutablePointer<Storage> = {
        let storage = UnsafeMutablePointer<Storage>.allocate(capacity: 1)
        storage.initialize(to: Storage(
            armed: 0, input: -1, output: -1, attributes: termios(),
            bytes: .allocate(capacity: byteCapacity), byteCount: 0,
            previous: .allocate(capacity: fatalSignals.count),
            handlersInstalled: false, exitHookRegistered: false,
            dispatchActions: .allocate(capacity: SystemTerminal.watchedSignals.count),
            dispatchActionKnown: {
                let known = UnsafeMutablePointer<Bool>.allocate(capacity: SystemTerminal.watchedSignals.count)
                known.initialize(repeating: false, count: SystemTerminal.watchedSignals.count)
                return known
            }()))
        return storage
    }()

    /// Keeps `action` if it is a real handler (neither SIG_DFL nor SIG_IGN).
    static func rememberDispatchAction(_ action: sigaction, for signal: Int32) {
        guard unsafeBitCast(action.__sigaction_handler, to: Int.self) > 1,
              let index = SystemTerminal.watchedSignals.firstIndex(of: signal) else { return }
        storage.pointee.dispatchActions[index] = action
        storage.pointee.dispatchActionKnown[index] = true
    }

    static func dispatchAction(for signal: Int32) -> sigaction? {
        guard let index = SystemTerminal.watchedSignals.firstIndex(of: signal),
              storage.pointee.dispatchActionKnown[index] else { return nil }
        return storage.pointee.dispatchActions[index]
    }

    static var isArmed: Bool { storage.pointee.armed != 0 }

    static func arm(input: Int32, output: Int32, attributes: termios, bytes: [UInt8]) {
        let state = storage
        state.pointee.armed = 0
        state.pointee.input = input
        state.pointee.output = output
        state.pointee.attributes = attributes
        let count = min(bytes.count, byteCapacity)
        for index in 0..<count { state.pointee.bytes[index] = bytes[index] }
        state.pointee.byteCount = count
        if !state.pointee.exitHookRegistered {
            state.pointee.exitHookRegistered = true
            atexit { EmergencyRestore.restoreNow() }
        }
        if !state.pointee.handlersInstalled {
            for (index, signal) in fatalSignals.enumerated() {
                var action = sigaction()
                action.__sigaction_handler.sa_sigaction = { signal, info, _ in
                    EmergencyRestore.handleFatal(signal, info)
                }
                // SA_ONSTACK: a stack overflow is handled on the alternate
                // stack when there is one (Swift's runtime sets one up).
                action.sa_flags = SA_SIGINFO | Int32(SA_ONSTACK)
                sigemptyset(&action.sa_mask)
                sigaction(signal, &action, state.pointee.previous + index)
                if unsafeBitCast(state.pointee.previous[index].__sigaction_handler, to: Int.self) == 1 {
                    // Ignoring a crash would loop on the faulting instruction.
                    state.pointee.previous[index] = sigaction()
                }
            }
            state.pointee.handlersInstalled = true
        }
        state.pointee.armed = 1
    }

    static func disarm() {
        let state = storage
        state.pointee.armed = 0
        if state.pointee.handlersInstalled {
            for index in fatalSignals.indices {
                sigaction(fatalSignals[index], state.pointee.previous + index, nil)
            }
            state.pointee.handlersInstalled = false
        }
    }

    /// Writes the restore bytes and puts the saved termios back, once.
    static func restoreNow() {
        let state = storage
        guard state.pointee.armed != 0 else { return }
        state.pointee.armed = 0
        _ = write(state.pointee.output, state.pointee.bytes, state.pointee.byteCount)
        _ = tcsetattr(state.pointee.input, TCSANOW, &state.pointee.attributes)
    }

    private static func handleFatal(_ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?) {
        restoreNow()
        let state = storage
        let index: Int
        switch signal {
        case SIGSEGV: index = 0
        case SIGABRT: index = 1
        case SIGBUS: index = 2
        case SIGFPE: index = 3
        default: index = 4
        }
        sigaction(signal, state.pointee.previous + index, nil)
        // A fault raised by the CPU (si_code > 0) happens again when we
        // return, and the previous action then sees the genuine fault; a
        // signal that was sent (kill, abort) has to be raised again. It stays
        // blocked until this handler returns.
        let code = info?.pointee.si_code ?? 0
        if code <= 0 || signal == SIGABRT { raise(signal) }
    }
}
