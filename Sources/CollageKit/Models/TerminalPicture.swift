/// A picture ready to be drawn in a terminal: what libchafa made of an image
/// for a given number of character cells. Views place it; nobody looks inside.
public struct TerminalPicture: Equatable, Sendable {
    public enum Kind: String, Equatable, Sendable {
        /// Unicode symbols with colours: `lines` holds one string per row,
        /// each with its own escape sequences, to print at successive rows.
        case symbols
        /// A graphics protocol (sixel, kitty, iTerm2): `lines` holds one
        /// escape sequence, printed with the cursor at the top-left cell.
        case sixel, kitty, iterm2
    }

    public let kind: Kind
    /// The cells it covers (at most what was asked for: the aspect ratio is kept).
    public let columns: Int
    public let rows: Int
    public let lines: [String]

    public init(kind: Kind, columns: Int, rows: Int, lines: [String]) {
        self.kind = kind
        self.columns = columns
        self.rows = rows
        self.lines = lines
    }
}

/// Turns pixels into a `TerminalPicture` (implemented over libchafa).
public protocol PictureRendering: Sendable {
    /// The pixel size worth decoding for a picture of `columns` x `rows`
    /// cells: more would be thrown away, less would blur.
    func pixelSize(columns: Int, rows: Int) -> (width: Int, height: Int)
    /// The picture of `image`, fitted inside `columns` x `rows` cells keeping
    /// its aspect ratio.
    func render(_ image: RGBImage, columns: Int, rows: Int) -> TerminalPicture
}
