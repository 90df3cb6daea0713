import CollageKit

/// Where things go on a screen of a given size. Both screens share it: a
/// title row, a body split into a list (left) and a picture (right), a
/// message row and a key row.
struct ScreenLayout: Equatable {
    let columns: Int
    let rows: Int

    static let minimumColumns = 40
    static let minimumRows = 10

    var isTooSmall: Bool { columns < Self.minimumColumns || rows < Self.minimumRows }

    /// The body: between the title (and a subtitle) and the two bottom rows.
    var bodyTop: Int { 2 }
    var bodyHeight: Int { max(0, rows - bodyTop - 3) }
    var listWidth: Int { max(20, min(48, columns * 2 / 5)) }
    var pictureColumn: Int { listWidth + 2 }
    var pictureColumns: Int { max(0, columns - pictureColumn - 1) }
    var pictureRows: Int { bodyHeight }
    var messageRow: Int { rows - 2 }
    var keysRow: Int { rows - 1 }
}

enum Palette {
    static let title = TextStyle(bold: true, foreground: RGBColor(red: 255, green: 215, blue: 95))
    static let folder = TextStyle(bold: true, foreground: RGBColor(red: 95, green: 175, blue: 255))
    static let dim = TextStyle(dim: true)
    static let highlight = TextStyle(reverse: true)
    static let key = TextStyle(bold: true)
    static let message = TextStyle(foreground: RGBColor(red: 255, green: 175, blue: 95))
}

extension ScreenBuffer {
    /// The key bar: "a add  c clear ...", disabled actions dimmed.
    mutating func putActions(_ actions: [ScreenAction], row: Int) {
        var column = 1
        for action in actions {
            let keyStyle = action.isEnabled ? Palette.key : Palette.dim
            let labelStyle = action.isEnabled ? TextStyle.plain : Palette.dim
            put(action.key, column: column, row: row, style: keyStyle)
            put(action.label, column: column + action.key.count + 1, row: row, style: labelStyle)
            column += action.key.count + action.label.count + 3
        }
    }

    /// A picture in a pane, or a word about why there is none.
    mutating func putPreview(_ preview: PreviewState, column: Int, row: Int, columns: Int, rows: Int, empty: String) {
        guard columns > 0, rows > 0 else { return }
        switch preview {
        case .none: put(empty, column: column, row: row, style: Palette.dim, maxWidth: columns)
        case .loading: put("…", column: column, row: row, style: Palette.dim)
        case let .failed(reason):
            // The whole reason, wrapped (a layout that cannot be drawn says why at length).
            for (index, line) in Self.wrap(reason, width: columns).prefix(rows).enumerated() {
                put(line, column: column, row: row + index, style: Palette.message, maxWidth: columns)
            }
        case let .picture(picture): place(picture, column: column, row: row)
        }
    }

    /// `text` in lines of at most `width` columns, broken at spaces
    /// (a word longer than a line is cut by `put`).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.terminalColumns + 1 + String(word).terminalColumns > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// The layout of this screen, or nil, once the screen asks for a larger
    /// window, when it is too small for one.
    mutating func layoutOrTooSmall() -> ScreenLayout? {
        let layout = ScreenLayout(columns: columns, rows: rows)
        guard layout.isTooSmall else { return layout }
        put("Make the window larger", column: 0, row: 0, style: Palette.title)
        put("(at least \(ScreenLayout.minimumColumns)x\(ScreenLayout.minimumRows))", column: 0, row: 1, style: Palette.dim)
        return nil
    }

    /// The title row: `title` on the left and, when traced, the number of
    /// live subscriptions on the right.
    mutating func putTitle(_ title: String, maxWidth: Int? = nil, resources: Int?) {
        put(title, column: 1, row: 0, style: Palette.title, maxWidth: maxWidth)
        if let resources {
            let text = "resources: \(resources)"
            put(text, column: columns - text.count - 1, row: 0, style: Palette.dim)
        }
    }

    /// The message row, when there is a message.
    mutating func putMessage(_ message: String?, layout: ScreenLayout) {
        guard let message else { return }
        putMessage(message, row: layout.messageRow)
    }

    /// A message on `row`. One too long for the screen keeps its end, where
    /// the reason is ("…/taken.jpg already exists"), rather than its start.
    mutating func putMessage(_ message: String, row: Int) {
        let width = max(1, columns - 2)
        put(message.terminalTail(columns: width), column: 1, row: row, style: Palette.message, maxWidth: width)
    }
}
