import CChafa
import CollageKit

/// Draws pictures for the terminal with libchafa: Unicode symbols in 24-bit
/// colour (the default, and what works everywhere, tmux included), or a
/// graphics protocol (sixel, kitty, iTerm2) where the terminal has one.
///
/// Stateless and `Sendable`: every `render` builds and frees its own chafa
/// objects, so previews can be rendered on any thread, several at once.
public struct ChafaPictureRenderer: PictureRendering {
    /// The pixel size of a cell assumed when the terminal does not report
    /// one: a common monospace cell, twice as high as wide.
    public static let defaultCellSize = (width: 10, height: 20)
    /// libchafa matches symbols against 8x8-pixel blocks of the image, one per cell.
    static let symbolResolution = 8

    /// "libchafa 1.12.4": the version built against, for `collage --version`.
    public static let libraryVersion = "libchafa \(CHAFA_MAJOR_VERSION).\(CHAFA_MINOR_VERSION).\(CHAFA_MICRO_VERSION)"

    public let kind: TerminalPicture.Kind
    /// NO_COLOR: symbols are drawn with the terminal's own foreground and
    /// background only (CHAFA_CANVAS_MODE_FGBG), without colour codes.
    public let noColor: Bool
    /// The pixel size of one character cell (sets the aspect ratio of the
    /// cells, and the pixel size of graphics pictures).
    public let cellWidth: Int
    public let cellHeight: Int

    public init(kind: TerminalPicture.Kind = .symbols, noColor: Bool = false,
                cellWidth: Int = ChafaPictureRenderer.defaultCellSize.width,
                cellHeight: Int = ChafaPictureRenderer.defaultCellSize.height) {
        self.kind = kind
        self.noColor = noColor
        self.cellWidth = max(1, cellWidth)
        self.cellHeight = max(1, cellHeight)
    }

    /// A renderer sized for `terminal` (its cell size when it reports pixels).
    public init(kind: TerminalPicture.Kind, noColor: Bool, terminal: TerminalSize?) {
        let cell = terminal?.cellPixelSize ?? Self.defaultCellSize
        self.init(kind: kind, noColor: noColor, cellWidth: cell.width, cellHeight: cell.height)
    }

    /// The width / height of a cell, as libchafa's geometry wants it.
    var fontRatio: Float { Float(cellWidth) / Float(cellHeight) }

    /// Graphics: the cells' pixels. Symbols: 8 pixels across per cell (what
    /// libchafa looks at), and as many down as keep the cells' real shape,
    /// so the image is not distorted and each cell still gets 8 rows.
    public func pixelSize(columns: Int, rows: Int) -> (width: Int, height: Int) {
        let columns = max(0, columns), rows = max(0, rows)
        switch kind {
        case .symbols:
            let resolution = Self.symbolResolution
            let scale = Double(resolution) / Double(min(cellWidth, cellHeight))
            return (Int((Double(columns * cellWidth) * scale).rounded()),
                    Int((Double(rows * cellHeight) * scale).rounded()))
        case .sixel, .kitty, .iterm2:
            return (columns * cellWidth, rows * cellHeight)
        }
    }

    public func render(_ image: RGBImage, columns: Int, rows: Int) -> TerminalPicture {
        guard columns > 0, rows > 0, image.width > 0, image.height > 0,
              image.pixels.count >= image.width * image.height * 3 else {
            return TerminalPicture(kind: kind, columns: 0, rows: 0, lines: [])
        }
        // The largest size in cells that keeps the image's aspect ratio
        // (zoom: small images are enlarged to fill the space too).
        var width = gint(columns), height = gint(rows)
        chafa_calc_canvas_geometry(gint(image.width), gint(image.height), &width, &height, fontRatio, 1, 0)
        width = max(1, min(width, gint(columns)))
        height = max(1, min(height, gint(rows)))

        let config = chafa_canvas_config_new()
        let symbols = chafa_symbol_map_new()
        let termInfo = chafa_term_db_get_fallback_info(chafa_term_db_get_default())
        defer {
            chafa_term_info_unref(termInfo)
            chafa_symbol_map_unref(symbols)
            chafa_canvas_config_unref(config)
        }
        // Block elements (halves, quadrants, eighths) and the space: in every
        // monospace font, and what pictures look best in. Borders, Braille
        // and ASCII make photos look noisy.
        chafa_symbol_map_add_by_tags(symbols, ChafaSymbolTags(rawValue: CHAFA_SYMBOL_TAG_BLOCK.rawValue | CHAFA_SYMBOL_TAG_SPACE.rawValue))
        chafa_symbol_map_remove_by_tags(symbols, CHAFA_SYMBOL_TAG_WIDE)
        chafa_canvas_config_set_symbol_map(config, symbols)
        chafa_canvas_config_set_geometry(config, width, height)
        chafa_canvas_config_set_cell_geometry(config, gint(cellWidth), gint(cellHeight))
        chafa_canvas_config_set_canvas_mode(config, kind == .symbols && noColor ? CHAFA_CANVAS_MODE_FGBG : CHAFA_CANVAS_MODE_TRUECOLOR)
        chafa_canvas_config_set_pixel_mode(config, Self.pixelMode(kind))
        // Every cell written: skipping blank cells (a cursor move) would let
        // whatever was on screen show through.
        chafa_canvas_config_set_optimizations(config, CHAFA_OPTIMIZATION_REUSE_ATTRIBUTES)

        guard let canvas = chafa_canvas_new(config) else {
            return TerminalPicture(kind: kind, columns: 0, rows: 0, lines: [])
        }
        defer { chafa_canvas_unref(canvas) }
        let input = Self.chafaInput(image, toAspect: kind == .symbols ? nil
            : Double(Int(width) * cellWidth) / Double(Int(height) * cellHeight))
        input.pixels.withUnsafeBufferPointer { pixels in
            chafa_canvas_draw_all_pixels(canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, pixels.baseAddress,
                                         gint(input.width), gint(input.height), gint(input.width * 4))
        }
        guard let printed = chafa_canvas_print(canvas, termInfo) else {
            return TerminalPicture(kind: kind, columns: 0, rows: 0, lines: [])
        }
        let text = String(cString: printed.pointee.str)
        g_string_free(printed, 1)

        switch kind {
        case .symbols:
            // libchafa separates rows with "\n"; each row is then placed with
            // its own cursor position, so no newline is needed.
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if lines.last == "" { lines.removeLast() }
            return TerminalPicture(kind: .symbols, columns: Int(width), rows: lines.count, lines: lines)
        case .sixel, .kitty, .iterm2:
            return TerminalPicture(kind: kind, columns: Int(width), rows: Int(height), lines: [text])
        }
    }

    /// The pixels handed to libchafa: always RGBA, 4 bytes a pixel. libchafa
    /// 1.12 (Debian 12) scales packed RGB8 wrongly unless each row is a
    /// multiple of 4 bytes: a photo 301 px wide came out sheared, 302 grey
    /// with coloured stripes. RGBA rows are aligned whatever the width.
    ///
    /// Graphics pictures fill their cells exactly, so libchafa stretches the
    /// image to the cells' pixel box, whose shape is the image's only to
    /// within a cell. To keep the aspect ratio, the image is centred on a
    /// transparent canvas of `aspect` (sixel, kitty and iTerm2 all show
    /// transparency as the terminal's background), unless the shapes already
    /// agree to within half a percent. Symbols pass nil: libchafa's geometry
    /// keeps their aspect ratio.
    static func chafaInput(_ image: RGBImage, toAspect aspect: Double?) -> (pixels: [UInt8], width: Int, height: Int) {
        var width = image.width, height = image.height
        if let aspect {
            let imageAspect = Double(image.width) / Double(image.height)
            if imageAspect < aspect * 0.995 {
                width = Int((Double(image.height) * aspect).rounded())
            } else if imageAspect > aspect * 1.005 {
                height = Int((Double(image.width) / aspect).rounded())
            }
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let left = (width - image.width) / 2, top = (height - image.height) / 2
        image.pixels.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                for y in 0..<image.height {
                    var from = y * image.width * 3
                    var to = ((top + y) * width + left) * 4
                    for _ in 0..<image.width {
                        target[to] = source[from]
                        target[to + 1] = source[from + 1]
                        target[to + 2] = source[from + 2]
                        target[to + 3] = 255
                        from += 3
                        to += 4
                    }
                }
            }
        }
        return (pixels, width, height)
    }

    private static func pixelMode(_ kind: TerminalPicture.Kind) -> ChafaPixelMode {
        switch kind {
        case .symbols: return CHAFA_PIXEL_MODE_SYMBOLS
        case .sixel: return CHAFA_PIXEL_MODE_SIXELS
        case .kitty: return CHAFA_PIXEL_MODE_KITTY
        case .iterm2: return CHAFA_PIXEL_MODE_ITERM2
        }
    }
}
