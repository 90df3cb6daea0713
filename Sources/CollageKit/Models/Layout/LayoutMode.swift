/// How the canvas is divided into cells (`--layout`).
public enum LayoutMode: String, Equatable, Sendable, OptionChoice, CustomStringConvertible {
    public static let optionName = "layout"

    /// Cells chosen for these photos on this canvas, to show as much of each
    /// as can be: the default, because the original grid ignores the canvas
    /// (on a portrait canvas it shows a fifth of each photo).
    case auto
    /// The original app's grid, exactly: 1-2 photos side by side, 3-6 in two rows.
    case grid
    /// Justified rows, as in photo galleries: each row one height, every photo
    /// whole or (on a fixed canvas whole photos leave emptier) cropped by at most a tenth of a side.
    case rows
    /// Justified columns: `rows` turned.
    case columns

    /// The layout of a collage nobody chose one for (`save`, `preview`,
    /// `batch`, `pick` and the collage screen).
    public static let `default` = LayoutMode.auto

    /// The next mode, in the order `--help` lists them: what the collage screen's `l` cycles to.
    public var next: LayoutMode {
        let all = Self.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }

    /// Whether every photo is shown whole (the layout decides the cells' shapes from the photos).
    public var showsPhotosWhole: Bool { self == .rows || self == .columns }

    public var description: String { rawValue }
}
