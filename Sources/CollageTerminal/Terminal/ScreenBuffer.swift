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

    public static let blank = ScreenCell(character: " ", style: .plain)
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
    /// `maxWidth` cells (a cut is marked with "…").
    public mutating func put(_ text: String, column: Int, row: Int, style: TextStyle = .plain, maxWidth: Int? = nil) {
        guard row >= 0, row < rows, column < columns else { return }
        let limit = min(maxWidth ?? Int.max, columns - max(0, column))
        guard limit > 0 else { return }
        // Text is shown, never obeyed: a file name holding ESC would otherwise
        // reach the terminal as an escape sequence (and recolour the screen).
        var characters = Array(text.map { character -> Character in
            if character.isNewline || character == "\t" { return " " }
            let isControl = character.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
            return isControl ? "\u{FFFD}" : character
        })
        if characters.count > limit {
            characters = Array(characters.prefix(limit - 1)) + ["…"]
        }
        for (offset, character) in characters.enumerated() {
            let x = column + offset
            if x >= 0 { cells[row][x] = ScreenCell(character: character, style: style) }
        }
    }

    /// Gives `style` to `width` cells from (`column`, `row`), e.g. a highlight bar.
    public mutating func paint(style: TextStyle, column: Int, row: Int, width: Int) {
        guard row >= 0, row < rows else { return }
        for x in max(0, column)..<min(columns, column + width) { cells[row][x].style = style }
    }

    public mutating func place(_ picture: TerminalPicture, column: Int, row: Int) {
        pictures.append(PlacedPicture(column: column, row: row, picture: picture))
    }

    /// The characters of a row, without styles (trailing spaces kept).
    public func text(row: Int) -> String { String(cells[row].map(\.character)) }

    /// The whole screen as text, one line per row, trailing spaces trimmed.
    public var text: String {
        (0..<rows).map { row in
            var line = text(row: row)
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }
}
