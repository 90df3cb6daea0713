import CollageKit

/// Draws the photos screen: the collage's title, the folder, the list
/// (folders first) with the highlight, the highlighted photo's preview, the
/// filter or a message, and the keys. A pure function of the state.
public enum PhotosScreenView {
    public static func render(_ state: PhotosScreenState, columns: Int, rows: Int, resources: Int? = nil) -> ScreenBuffer {
        var screen = ScreenBuffer(columns: columns, rows: rows)
        guard let layout = screen.layoutOrTooSmall() else { return screen }
        let heading = "\(state.collageTitle) · add photos" + (state.canAdd ? "" : " (the collage is full)")
        screen.putTitle(heading, maxWidth: columns - 2, resources: resources)
        let folderLine = state.directory + (state.isScanning ? "  (reading…)" : "") + (state.showHidden ? "  (hidden shown)" : "")
        screen.put(folderLine, column: 1, row: 1, style: Palette.dim, maxWidth: columns - 2)

        // The list scrolls to keep the highlight in view, near the middle.
        let height = layout.bodyHeight
        let count = state.entries.count
        let highlighted = state.highlighted ?? 0
        let top = max(0, min(highlighted - height / 2, count - height))
        if count == 0 {
            let empty = state.filter.map { "Nothing matches “\($0)”" } ?? (state.isScanning ? "" : "No folders or photos here")
            screen.put(empty, column: 1, row: layout.bodyTop, style: Palette.dim, maxWidth: layout.listWidth)
        }
        for line in 0..<min(height, count - top) {
            let index = top + line
            let entry = state.entries[index]
            let row = layout.bodyTop + line
            let isFolder = entry.kind == .folder
            // Photos already in the collage are marked, with how many times
            // when more than once.
            let times = isFolder ? 0 : state.inCollage[entry.file] ?? 0
            let inCollage = times == 0 ? "" : times == 1 ? "  ✓" : "  ✓\(times)"
            let mark = inCollage + (state.suggested.contains(entry.file) ? "  ★" : "")
            // A file collage does not read: dimmed, with why after its name.
            let unread = entry.kind == .unreadable
            let label = isFolder ? entry.name + "/" : unread ? entry.name + "  (" + (entry.reason ?? "not read") + ")" : entry.name
            screen.put(label, column: 1, row: row,
                       style: isFolder ? Palette.folder : unread ? Palette.dim : .plain, maxWidth: layout.listWidth - mark.count)
            if !mark.isEmpty {
                screen.put(mark, column: 1 + min(entry.name.count, layout.listWidth - mark.count), row: row,
                           style: Palette.key)
            }
            if index == state.highlighted {
                screen.paint(style: Palette.highlight, column: 0, row: row, width: layout.listWidth + 1)
            }
        }
        if count > height {
            screen.put("\(highlighted + 1)/\(count)", column: 1, row: layout.bodyTop + height, style: Palette.dim)
        }
        screen.putPreview(state.preview, column: layout.pictureColumn, row: layout.bodyTop,
                          columns: layout.pictureColumns, rows: layout.pictureRows, empty: "")

        if let filter = state.filter {
            screen.put("/", column: 1, row: layout.messageRow, style: Palette.key)
            screen.put(filter + "▏", column: 3, row: layout.messageRow, maxWidth: columns - 4)
            if let message = state.message {
                screen.putMessage(message, row: layout.keysRow)
            } else {
                screen.put("Enter add   Esc clear filter   ↑↓ move", column: 1, row: layout.keysRow, style: Palette.dim)
            }
        } else {
            screen.putMessage(state.message, layout: layout)
            screen.put("↑↓ move   Enter add/open   ← back   / filter   . hidden   S suggest   q done",
                       column: 1, row: layout.keysRow, style: Palette.dim, maxWidth: columns - 2)
        }
        return screen
    }

    /// List rows, and the cells of the preview pane, on a screen of this size.
    public static func geometry(columns: Int, rows: Int) -> (listRows: Int, preview: (columns: Int, rows: Int)) {
        let layout = ScreenLayout(columns: columns, rows: rows)
        if layout.isTooSmall { return (listRows: 1, preview: (columns: 0, rows: 0)) }
        return (listRows: layout.bodyHeight, preview: (columns: layout.pictureColumns, rows: layout.pictureRows))
    }
}
