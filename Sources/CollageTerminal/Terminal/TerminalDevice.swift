import CollageKit

/// The size of the terminal window: character cells, and pixels when the
/// terminal reports them (many do through TIOCGWINSZ; 0 when it does not).
public struct TerminalSize: Equatable, Sendable {
    public var columns: Int
    public var rows: Int
    public var pixelWidth: Int
    public var pixelHeight: Int

    public init(columns: Int, rows: Int, pixelWidth: Int = 0, pixelHeight: Int = 0) {
        self.columns = columns
        self.rows = rows
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
    }

    /// The pixel size of one cell, when the terminal reports its pixel size;
    /// graphics protocols (sixel, kitty, iTerm2) are sized with it.
    public var cellPixelSize: (width: Int, height: Int)? {
        guard columns > 0, rows > 0, pixelWidth >= columns, pixelHeight >= rows else { return nil }
        return (pixelWidth / columns, pixelHeight / rows)
    }
}

/// What the screens draw on and read keys from. `SystemTerminal` is the real
/// one; `FakeTerminal` (Tests/CollageTestSupport) stands in for it in tests.
/// On the main actor, with the screens.
@MainActor
public protocol TerminalDevice: AnyObject {
    /// The current size (asked of the terminal each time for the real one).
    var size: TerminalSize { get }
    /// Writes text (a whole frame, typically) as it is.
    func write(_ text: String)
    /// Takes over the screen (raw mode, alternate screen, hidden cursor) and
    /// starts delivering decoded keys and window resizes, both on the main
    /// actor. Ctrl-C arrives as `.control("c")`.
    func start(onKeys: @escaping ([Key]) -> Void, onResize: @escaping (TerminalSize) -> Void) throws
    /// Gives the terminal back as it was. Safe to call any number of times.
    func restore()
}
