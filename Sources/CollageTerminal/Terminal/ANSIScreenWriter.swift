import CollageKit

/// Turns a `ScreenBuffer` into the one string that draws it, written to the
/// terminal in a single write so a frame never shows half-drawn.
///
/// Hand-written rather than through ncurses (or terminfo): ncurses cannot
/// place libchafa's pre-rendered escape sequences or graphics protocols, and
/// every terminal we target speaks the same few ECMA-48/xterm sequences:
/// cursor position (CSI row;col H), SGR with 24-bit colours, erase to end of
/// line (CSI K).
///
/// A frame is:
/// 1. every row, from its first cell (CSI H for the first, CSI row;1H for the
///    others), with an SGR only where the style changes; trailing blanks are
///    replaced by erase-to-end-of-line, after an SGR reset so the erase uses
///    the default background. Cells under a picture are skipped (the cursor
///    jumps over them), so a picture already on screen is never damaged;
/// 2. the pictures: symbols line by line, each line placed with CSI row;col H;
///    a graphics picture (sixel, kitty, iTerm2) with the cursor at its
///    top-left cell. A picture that is the same, at the same place, as in the
///    previous frame, and overlaps no other picture in either frame, is not
///    sent again (graphics are expensive to transmit and to decode);
/// 3. a final SGR reset.
///
/// Kitty images are not cells: text does not erase them. When the kitty
/// pictures on screen change they are all deleted (APC a=d) and redrawn.
///
/// Call `invalidate()` after anything else has drawn on the terminal, and on
/// every resize (the terminal may have reflowed or cleared its cells).
public struct ANSIScreenWriter: Sendable {
    /// NO_COLOR: no colour codes at all; bold, dim and reverse stay.
    public var noColor: Bool

    private var previous: ScreenBuffer?
    private var kittyOnScreen = false

    static let escape = "\u{1B}"
    static let reset = "\u{1B}[0m"
    static let eraseToEndOfLine = "\u{1B}[K"
    /// Deletes every kitty image placement and frees its data.
    static let deleteKittyImages = "\u{1B}_Ga=d,d=A\u{1B}\\"

    public init(noColor: Bool = false) {
        self.noColor = noColor
    }

    /// Whether NO_COLOR asks for no colours (https://no-color.org: set and not empty).
    public static func noColorRequested(in environment: [String: String]) -> Bool {
        !(environment["NO_COLOR"] ?? "").isEmpty
    }

    /// Forgets what is on screen: the next frame draws every picture again.
    public mutating func invalidate() {
        previous = nil
    }

    /// What to write before leaving the screen: deletes kitty images, which
    /// some terminals keep after the alternate screen is left. Empty when
    /// none were drawn.
    public mutating func closingSequence() -> String {
        previous = nil
        guard kittyOnScreen else { return "" }
        kittyOnScreen = false
        return Self.deleteKittyImages
    }

    /// The string that draws `screen`, given what the previous frame drew.
    public mutating func frame(_ screen: ScreenBuffer) -> String {
        let columns = screen.columns
        let rows = screen.rows
        let earlier = previous.flatMap { $0.columns == columns && $0.rows == rows ? $0 : nil }
        let pictures = screen.pictures

        // Which pictures are drawn this frame: those that fit (a graphics
        // picture cannot be clipped, and one reaching past the last row would
        // scroll the screen), and of those, the ones not already on screen.
        let visible = pictures.map { Self.isVisible($0, columns: columns, rows: rows) }
        var unchanged = pictures.indices.map { index in
            guard visible[index], let earlier else { return false }
            let picture = pictures[index]
            return earlier.pictures.contains(picture)
                && !Self.overlapsOther(picture, at: index, in: pictures)
                && !Self.overlapsOther(picture, at: earlier.pictures.firstIndex(of: picture), in: earlier.pictures)
        }
        let kittyNow = pictures.indices.filter { visible[$0] && pictures[$0].picture.kind == .kitty }
        let kittyBefore = earlier?.pictures.filter { $0.picture.kind == .kitty } ?? []
        let kittyKept = earlier != nil && kittyNow.allSatisfy { unchanged[$0] }
            && kittyBefore == kittyNow.map { pictures[$0] }
        let deleteKitty = kittyOnScreen && !kittyKept
        if deleteKitty { for index in kittyNow { unchanged[index] = false } }

        // The cells pictures cover: text is not written there.
        var covered = Array(repeating: Array(repeating: false, count: columns), count: rows)
        for (index, placed) in pictures.enumerated() where visible[index] {
            let top = max(0, placed.row), bottom = min(rows, placed.row + placed.picture.rows)
            let left = max(0, placed.column), right = min(columns, placed.column + placed.picture.columns)
            guard top < bottom, left < right else { continue }
            for row in top..<bottom { for column in left..<right { covered[row][column] = true } }
        }

        var out = ""
        var current = TextStyle.plain
        for row in 0..<rows {
            out += row == 0 ? "\(Self.escape)[H" : Self.cursor(row: row, column: 0)
            let cells = screen.cells[row]
            // From `tail` on, the row is blank to its end: erased, not written.
            var tail = columns
            while tail > 0 && !covered[row][tail - 1] && isBlank(cells[tail - 1]) { tail -= 1 }
            var skipped = false
            for column in 0..<tail {
                if covered[row][column] {
                    skipped = true
                    continue
                }
                // The terminal has filled it with the wide character before.
                if cells[column].isRightHalf, column > 0, !covered[row][column - 1] { continue }
                if skipped {
                    out += Self.cursor(row: row, column: column)
                    skipped = false
                }
                let style = effective(cells[column].style)
                out += Self.transition(from: current, to: style)
                current = style
                out.append(cells[column].character)
            }
            if tail < columns {
                if skipped { out += Self.cursor(row: row, column: tail) }
                if current != .plain {
                    out += Self.reset
                    current = .plain
                }
                out += Self.eraseToEndOfLine
            }
        }
        if current != .plain { out += Self.reset }

        if deleteKitty { out += Self.deleteKittyImages }
        for (index, placed) in pictures.enumerated() where visible[index] && !unchanged[index] {
            let picture = placed.picture
            switch picture.kind {
            case .symbols:
                for (offset, line) in picture.lines.enumerated() {
                    let row = placed.row + offset
                    guard row >= 0, row < rows else { continue }
                    out += Self.cursor(row: row, column: placed.column) + line
                }
            case .sixel, .kitty, .iterm2:
                out += Self.cursor(row: placed.row, column: placed.column) + picture.lines.joined()
            }
        }
        out += Self.reset

        previous = screen
        kittyOnScreen = !kittyNow.isEmpty
        return out
    }

    // MARK: - Pieces

    /// CSI row;col H, from 0-based coordinates.
    static func cursor(row: Int, column: Int) -> String {
        "\(escape)[\(row + 1);\(column + 1)H"
    }

    /// The SGR that turns `from` into `to`: nothing when they are equal; a
    /// reset first when something must be turned off (bold and dim share
    /// their "off" code, and a colour can only go back to default by a
    /// code per side, so resetting is both simpler and as short); then only
    /// what differs.
    static func transition(from: TextStyle, to: TextStyle) -> String {
        guard from != to else { return "" }
        var base = from
        var codes: [String] = []
        let turnsOff = (from.bold && !to.bold) || (from.dim && !to.dim) || (from.reverse && !to.reverse)
            || (from.foreground != nil && to.foreground == nil) || (from.background != nil && to.background == nil)
        if turnsOff {
            codes.append("0")
            base = .plain
        }
        if to.bold && !base.bold { codes.append("1") }
        if to.dim && !base.dim { codes.append("2") }
        if to.reverse && !base.reverse { codes.append("7") }
        if let color = to.foreground, color != base.foreground {
            codes.append("38;2;\(color.red);\(color.green);\(color.blue)")
        }
        if let color = to.background, color != base.background {
            codes.append("48;2;\(color.red);\(color.green);\(color.blue)")
        }
        return "\(escape)[\(codes.joined(separator: ";"))m"
    }

    private func effective(_ style: TextStyle) -> TextStyle {
        guard noColor else { return style }
        var plain = style
        plain.foreground = nil
        plain.background = nil
        return plain
    }

    /// A cell that looks like nothing: a space with no background showing.
    private func isBlank(_ cell: ScreenCell) -> Bool {
        let style = effective(cell.style)
        return cell.character == " " && style.background == nil && !style.reverse
    }

    private static func isVisible(_ placed: PlacedPicture, columns: Int, rows: Int) -> Bool {
        let picture = placed.picture
        guard picture.columns > 0, picture.rows > 0, !picture.lines.isEmpty,
              placed.column >= 0, placed.row >= 0, placed.column < columns, placed.row < rows else { return false }
        if picture.kind == .symbols { return true }
        return placed.column + picture.columns <= columns && placed.row + picture.rows <= rows
    }

    private static func overlapsOther(_ placed: PlacedPicture, at index: Int?, in pictures: [PlacedPicture]) -> Bool {
        pictures.indices.contains { other in
            other != index && overlap(placed, pictures[other])
        }
    }

    private static func overlap(_ a: PlacedPicture, _ b: PlacedPicture) -> Bool {
        a.column < b.column + b.picture.columns && b.column < a.column + a.picture.columns
            && a.row < b.row + b.picture.rows && b.row < a.row + a.picture.rows
    }
}
