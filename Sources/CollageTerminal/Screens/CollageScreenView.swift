import CollageKit

/// Draws the collage screen: the title, the photos, the collage as a
/// picture, a message and the actions. A pure function of the state.
public enum CollageScreenView {
    public static func render(_ state: CollageScreenState, columns: Int, rows: Int, resources: Int? = nil) -> ScreenBuffer {
        var screen = ScreenBuffer(columns: columns, rows: rows)
        guard let layout = screen.layoutOrTooSmall() else { return screen }
        screen.putTitle(state.title, resources: resources)

        if state.photos.isEmpty {
            screen.put("No photos yet: press a to add some.", column: 1, row: layout.bodyTop, style: Palette.dim,
                       maxWidth: layout.listWidth)
        }
        for (index, photo) in state.photos.enumerated() where index < layout.bodyHeight {
            let missing = state.missing.contains(photo)
            var line = "\(index + 1). \(photo.fileName)"
            if missing { line += "  (missing)" }
            if let focus = photo.focus { line += "  (focus \(focus))" }
            let row = layout.bodyTop + index
            screen.put(line, column: 1, row: row, style: missing ? Palette.message : .plain, maxWidth: layout.listWidth)
            if index == state.highlighted {
                screen.paint(style: Palette.highlight, column: 0, row: row, width: layout.listWidth + 1)
            }
        }
        screen.putPreview(state.preview, column: layout.pictureColumn, row: layout.bodyTop,
                          columns: layout.pictureColumns, rows: layout.pictureRows, empty: "")

        if let prompt = state.prompt {
            let label = "Save as: "
            screen.put(label, column: 1, row: layout.messageRow, style: Palette.key)
            screen.put(prompt + "▏", column: 1 + label.count, row: layout.messageRow, maxWidth: columns - label.count - 2)
            // A failed save says why here, under the name, until the next key.
            if let message = state.message {
                screen.putMessage(message, row: layout.keysRow)
            } else {
                screen.put(state.isSaving ? "Saving…" : "Enter save   Esc cancel   Ctrl-U clear",
                           column: 1, row: layout.keysRow, style: Palette.dim)
            }
        } else {
            screen.putMessage(state.message, layout: layout)
            screen.putActions(state.actions, row: layout.keysRow)
        }
        return screen
    }

    /// The cells the collage picture may use on a screen of this size.
    public static func pictureSize(columns: Int, rows: Int) -> (columns: Int, rows: Int) {
        let layout = ScreenLayout(columns: columns, rows: rows)
        if layout.isTooSmall { return (columns: 0, rows: 0) }
        return (columns: layout.pictureColumns, rows: layout.pictureRows)
    }
}
