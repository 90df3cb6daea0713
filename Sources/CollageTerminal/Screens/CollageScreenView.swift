import CollageKit

/// Draws the collage screen: the title, the photos, the layout and the
/// collage as a picture, a message and the keys (or, after `?`, the list of
/// every key). A pure function of the state.
public enum CollageScreenView {
    public static func render(_ state: CollageScreenState, columns: Int, rows: Int, resources: Int? = nil) -> ScreenBuffer {
        var screen = ScreenBuffer(columns: columns, rows: rows)
        guard let layout = screen.layoutOrTooSmall() else { return screen }
        screen.putTitle(state.title, resources: resources)

        if state.showingKeys {
            putKeys(state.actions, on: &screen, layout: layout)
        } else {
            putBody(state, on: &screen, layout: layout)
        }

        if let prompt = state.prompt {
            let label: String
            switch state.promptPurpose {
            case .save: label = "Save as: "
            case let .caption(index): label = "Caption for photo \(index + 1): "
            case .title: label = "Title: "
            }
            screen.put(label, column: 1, row: layout.messageRow, style: Palette.key)
            // A long path keeps its end, where the typing is.
            let width = max(2, columns - label.count - 2)
            screen.put(prompt.terminalTail(columns: width - 1) + "▏", column: 1 + label.count, row: layout.messageRow,
                       maxWidth: width)
            // A failed save says why here, under the name, until the next key.
            if let message = state.message {
                screen.putMessage(message, row: layout.keysRow)
            } else {
                let help = state.promptPurpose == .save ? "Enter save   Esc cancel   Ctrl-U clear"
                                                        : "Enter set (empty: none)   Esc cancel   Ctrl-U clear"
                screen.put(state.isSaving ? "Saving…" : help, column: 1, row: layout.keysRow, style: Palette.dim)
            }
        } else {
            screen.putMessage(state.message, layout: layout)
            if state.showingKeys {
                screen.put("Any key closes this list", column: 1, row: layout.keysRow, style: Palette.dim)
            } else {
                screen.putActions(fitting(state.actions, width: columns - 1), row: layout.keysRow)
            }
        }
        return screen
    }

    /// The photos on the left; the layout and the picture on the right.
    private static func putBody(_ state: CollageScreenState, on screen: inout ScreenBuffer, layout: ScreenLayout) {
        if state.photos.isEmpty {
            // On two lines when the list is narrower than the hint (80
            // columns give it 32): cut to fit, it lost the key to press.
            let hint = ["No photos yet:", "press a to add some."]
            let lines = hint.joined(separator: " ").count <= layout.listWidth ? [hint.joined(separator: " ")] : hint
            for (offset, line) in lines.enumerated() {
                screen.put(line, column: 1, row: layout.bodyTop + offset, style: Palette.dim, maxWidth: layout.listWidth)
            }
        }
        for (index, photo) in state.photos.enumerated() where index < layout.bodyHeight {
            let absence = state.missing[photo]
            var line = "\(index + 1). \(photo.fileName)"
            if let absence { line += "  (\(absence))" }
            if let focus = photo.focus { line += "  (focus \(focus))" }
            if let caption = photo.caption { line += "  “\(caption)”" }
            let row = layout.bodyTop + index
            screen.put(line, column: 1, row: row, style: absence != nil ? Palette.message : .plain, maxWidth: layout.listWidth)
            if index == state.highlighted {
                screen.paint(style: Palette.highlight, column: 0, row: row, width: layout.listWidth + 1)
            }
        }
        // Above the picture: the layout it is drawn in, the canvas asked for
        // and the title (too small to read in a picture of symbols).
        let name = "\(state.layout) layout"
        screen.put(name, column: layout.pictureColumn, row: layout.bodyTop - 1, style: Palette.key,
                   maxWidth: layout.pictureColumns)
        let details = "  \(state.canvas)" + (state.drawnTitle.map { "  “\($0)”" } ?? "")
        screen.put(details, column: layout.pictureColumn + name.count, row: layout.bodyTop - 1,
                   style: Palette.dim, maxWidth: layout.pictureColumns - name.count)
        screen.putPreview(state.preview, column: layout.pictureColumn, row: layout.bodyTop,
                          columns: layout.pictureColumns, rows: layout.pictureRows, empty: "")
    }

    /// `?`: every key and what it does, in place of the photos and the picture.
    private static func putKeys(_ actions: [ScreenAction], on screen: inout ScreenBuffer, layout: ScreenLayout) {
        screen.put("Keys", column: 1, row: layout.bodyTop - 1, style: Palette.key)
        // One a line, with what each does, when they fit (24 rows are enough) ...
        if actions.count <= layout.bodyHeight {
            let keysWidth = (actions.map(\.keys.count).max() ?? 0) + 2
            for (index, action) in actions.enumerated() {
                let row = layout.bodyTop + index
                screen.put(action.keys, column: 2, row: row, style: action.isEnabled ? Palette.key : Palette.dim)
                screen.put(action.help, column: 2 + keysWidth, row: row, style: action.isEnabled ? .plain : Palette.dim,
                           maxWidth: screen.columns - keysWidth - 3)
            }
            return
        }
        // ... else flowed like the key bar, over as many lines as it takes.
        var column = 2, row = layout.bodyTop
        for action in actions {
            let width = action.keys.count + 1 + action.label.count
            if column > 2 && column + width > screen.columns - 1 {
                column = 2
                row += 1
            }
            guard row < layout.bodyTop + layout.bodyHeight + 1 else { return }
            screen.put(action.keys, column: column, row: row, style: action.isEnabled ? Palette.key : Palette.dim)
            screen.put(action.label, column: column + action.keys.count + 1, row: row,
                       style: action.isEnabled ? .plain : Palette.dim)
            column += width + 3
        }
    }

    /// The actions the key bar shows in `width` cells: all of them when they
    /// fit, else the most important ones, in their order (`?` shows the rest).
    static func fitting(_ actions: [ScreenAction], width: Int) -> [ScreenAction] {
        func length(_ shown: [ScreenAction]) -> Int {
            1 + shown.map { $0.key.count + 1 + $0.label.count }.reduce(0, +) + 2 * max(0, shown.count - 1)
        }
        var shown = actions
        while length(shown) > width, shown.count > 1,
              let least = shown.indices.min(by: { shown[$0].importance < shown[$1].importance }) {
            shown.remove(at: least)
        }
        return shown
    }

    /// The cells the collage picture may use on a screen of this size.
    public static func pictureSize(columns: Int, rows: Int) -> (columns: Int, rows: Int) {
        let layout = ScreenLayout(columns: columns, rows: rows)
        if layout.isTooSmall { return (columns: 0, rows: 0) }
        return (columns: layout.pictureColumns, rows: layout.pictureRows)
    }
}
