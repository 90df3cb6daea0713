import CollageKit
import CollageTerminal

/// A terminal of fixed size for tests: records what is written and lets a
/// test type keys (as `Key`s or as raw bytes, through the real decoder) and
/// resize the window.
public final class FakeTerminal: TerminalDevice {
    public private(set) var size: TerminalSize
    /// Every `write`, in order.
    public private(set) var writes: [String] = []
    public private(set) var isStarted = false
    /// How many times `restore()` actually restored a started terminal.
    public private(set) var restoreCount = 0
    /// When set, `start` throws it (to test that callers restore on errors).
    public var startError: Error?

    private var onKeys: (([Key]) -> Void)?
    private var onResize: ((TerminalSize) -> Void)?
    private var decoder = KeyDecoder()

    public init(size: TerminalSize) {
        self.size = size
    }

    public convenience init(columns: Int, rows: Int) {
        self.init(size: TerminalSize(columns: columns, rows: rows))
    }

    /// Everything written so far, concatenated.
    public var output: String { writes.joined() }

    /// The last frame written.
    public var lastWrite: String? { writes.last }

    public func write(_ text: String) {
        writes.append(text)
    }

    public func start(onKeys: @escaping ([Key]) -> Void, onResize: @escaping (TerminalSize) -> Void) throws {
        if let startError { throw startError }
        self.onKeys = onKeys
        self.onResize = onResize
        isStarted = true
    }

    public func restore() {
        guard isStarted else { return }
        isStarted = false
        restoreCount += 1
        onKeys = nil
        onResize = nil
    }

    /// Delivers keys as if typed (ignored unless started, like a real terminal).
    public func send(_ keys: [Key]) {
        guard isStarted, !keys.isEmpty else { return }
        onKeys?(keys)
    }

    public func send(_ key: Key) { send([key]) }

    /// Delivers raw bytes through the real `KeyDecoder`, as one read.
    public func send(bytes: [UInt8]) {
        send(decoder.decode(bytes))
    }

    /// Changes the size and reports it, as SIGWINCH does.
    public func resize(to newSize: TerminalSize) {
        size = newSize
        if isStarted { onResize?(newSize) }
    }

    /// Forgets what was written (e.g. between the steps of a test).
    public func clearWrites() {
        writes.removeAll()
    }
}
