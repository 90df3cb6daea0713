import CChafa
import CollageKit

/// How a run of text looks. Colours are dropped when NO_COLOR is set.
public struct TextStyle: Equatable, Sendable {
    public var bold = false
    public var dim = false
    public var reverse = false
    public var foreground: RGBColor?
    public var background: RGBColor?

    public init(bold: Bool = false, dim: Bool = false, reverse: Bool = false,
                foreground: RGBColor? = nil, background: RGBColor? = nil) {
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.foreground = foreground
        self.background = background
    }

    public static let plain = TextStyle()
}

/// One character cell of the screen.
public struct ScreenCell: Equatable, Sendable {
    public var character: Character
    public var style: TextStyle
    /// The right half of a wide character (CJK, most emoji) in the cell to
    /// its left: the terminal fills it with that character, so nothing of
    /// its own is written here.
    public var isRightHalf = false

    public static let blank = ScreenCell(character: " ", style: .plain)
}

extension Character {
    /// The columns a terminal gives this character: 2 for wide ones (East
    /// Asian Wide and Fullwidth, which include the emoji shown as pictures),
    /// 0 for one with nothing to show of its own (a lone zero-width
    /// character), else 1. GLib's tables (through libchafa) are the
    /// Unicode's data the terminals' own wcwidth follows.
    public var terminalColumns: Int {
        let scalars = unicodeScalars.map { gunichar($0.value) }
        if scalars.contains(where: { g_unichar_iswide($0) != 0 }) { return 2 }
        return scalars.allSatisfy { g_unichar_iszerowidth($0) != 0 } ? 0 : 1
    }
}

extension String {
    /// The columns a terminal gives this text.
    public var terminalColumns: Int { reduce(0) { $0 + $1.terminalColumns } }

    /// The text's end in at most `columns` columns, after "…" when it is cut
    /// (a long path or message keeps its end, where the name or the reason is).
    public func terminalTail(columns: Int) -> String {
        guard terminalColumns > columns else { return self }
        var tail = "", used = 1
        for character in reversed() {
            used += character.terminalColumns
            guard used <= columns else { break }
            tail.insert(character, at: tail.startIndex)
        }
        return "…" + tail
    }
}

/// A picture placed with its top-left corner at a cell.
public struct PlacedPicture: Equatable, Sendable {
    public let column: Int
    public let row: Int
    public let picture: TerminalPicture
}

/// A frame of the screen, built by the screens' views and written to the
/// terminal in one go by `ANSIScreenWriter`. Tests read it as text.
public struct ScreenBuffer: Equatable, Sendable {
    public let columns: Int
    public let rows: Int
    public private(set) var cells: [[ScreenCell]]
    public private(set) var pictures: [PlacedPicture] = []

    public init(columns: Int, rows: Int) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
        cells = Array(repeating: Array(repeating: .blank, count: self.columns), count: self.rows)
    }

    /// Writes `text` from (`column`, `row`), clipped to the screen and to
    /// `maxWidth` cells (a cut is marked with "…"). A wide character takes
    /// two cells, as the terminal draws it; one that would straddle the
    /// limit is left out.
    public mutating func put(_ text: String, column: Int, row: Int, style: TextStyle = .plain, maxWidth: Int? = nil) {
        guard row >= 0, row < rows, column < columns else { return }
        let limit = min(maxWidth ?? Int.max, columns - max(0, column))
        guard limit > 0 else { return }
        // Text is shown, never obeyed: a file name holding ESC would otherwise
        // reach the terminal as an escape sequence (and recolour the screen).
        let characters = text.map { character -> Character in
            if character.isNewline || character == "\t" { return " " }
            let isControl = character.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
            return isControl ? "\u{FFFD}" : character
        }.filter { $0.terminalColumns > 0 }
        let cut = String(characters).terminalColumns > limit
        var x = column
        for character in characters {
            let width = character.terminalColumns
            guard x + width - column <= (cut ? limit - 1 : limit) else { break }
            set(character, style: style, column: x, row: row, width: width)
            x += width
        }
        if cut { set("…", style: style, column: x, row: row, width: 1) }
    }

    /// One character in its `width` cells; a wide character it writes over
    /// half of is blanked (its other half would be a stray).
    private mutating func set(_ character: Character, style: TextStyle, column: Int, row: Int, width: Int) {
        guard column >= 0, column + width <= columns else { return }
        if cells[row][column].isRightHalf, column > 0 { cells[row][column - 1] = .blank }
        let after = column + width
        if after < columns, cells[row][after].isRightHalf { cells[row][after] = .blank }
        cells[row][column] = ScreenCell(character: character, style: style)
        if width == 2 { cells[row][column + 1] = ScreenCell(character: " ", style: style, isRightHalf: true) }
    }

    /// Gives `style` to `width` cells from (`column`, `row`), e.g. a highlight bar.
    public mutating func paint(style: TextStyle, column: Int, row: Int, width: Int) {
        guard row >= 0, row < rows else { return }
        for x in max(0, column)..<min(columns, column + width) { cells[row][x].style = style }
    }

    public mutating func place(_ picture: TerminalPicture, column: Int, row: Int) {
        pictures.append(PlacedPicture(column: column, row: row, picture: picture))
    }

    /// The characters of a row as the terminal shows them, without styles
    /// (trailing spaces kept; a wide character once, for its two cells).
    public func text(row: Int) -> String { String(cells[row].filter { !$0.isRightHalf }.map(\.character)) }

    /// The whole screen as text, one line per row, trailing spaces trimmed.
    public var text: String {
        (0..<rows).map { row in
            var line = text(row: row)
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }
}
