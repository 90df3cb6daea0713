import CollageImaging

// The text engine (Pango through CollageImaging's text/): fonts, measuring
// and compositing lines. Where text goes is the planner's (`CollagePlanner`).
extension ImageEngine: TextMeasuring {
    /// Whether fontconfig finds any font: without one no text is drawn.
    public static var fontsAvailable: Bool { ci_text_fonts_available() != 0 }

    /// A font description (`--font`) checked by the text engine, with the
    /// size it gives in pixels (Pango's points are 96/72 pixels).
    public static func font(parsing description: String) throws -> CollageFont {
        var pixels = 0.0
        var error = ci_error()
        guard ci_text_font_pixels(description, &pixels, &error) == CI_OK else { throw ImageEngineError(error) }
        return CollageFont(description: description, pixels: pixels)
    }

    /// The family drawn instead of the one `font` asks for when fontconfig
    /// has no font of that name (it then gives its default, silently); nil
    /// when it has one, and for the generic families (Sans, Serif,
    /// Monospace...), which fontconfig maps to an installed one by design.
    public static func substitute(for font: CollageFont) -> (asked: String, used: String)? {
        var asked = [CChar](repeating: 0, count: 256)
        var used = [CChar](repeating: 0, count: 256)
        var error = ci_error()
        guard ci_text_font_family(font.description, &asked, &used, asked.count, &error) == CI_OK else { return nil }
        let askedFamily = String(engineText: asked), usedFamily = String(engineText: used)
        // A description may list families ("Noto Sans,DejaVu Sans"): any one found is the one asked for.
        let families = askedFamily.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let generic: Set<String> = ["sans", "sans-serif", "serif", "monospace", "mono", "system-ui", "cursive", "fantasy",
                                    "emoji", "math"]
        if families.isEmpty || families.contains(usedFamily.lowercased()) || families.contains(where: generic.contains) {
            return nil
        }
        return (askedFamily, usedFamily)
    }

    /// How many characters of `text` no installed font has (Pango draws
    /// them as boxes with their code), in the title's font at one line's
    /// width; 0 without any font.
    public static func missingGlyphs(in text: String, font: CollageFont? = nil) -> Int {
        var metrics = ci_text_metrics()
        var error = ci_error()
        let status = withTextRun(text, font: font?.description ?? CollageFont.titleDefault, pixels: 20,
                                 width: Int(CI_TEXT_MAX_SIDE), height: 1, lines: 1) {
            ci_text_measure(&$0, &metrics, &error)
        }
        return status == CI_OK ? Int(metrics.missing_glyphs) : 0
    }

    /// A text run (one line of text as `TextLine` makes it), centred, for the length of `body`.
    private static func withTextRun(_ text: String, font: String, pixels: Double, width: Int, height: Int, lines: Int32,
                                    colour: RGBColor = .black, _ body: (inout ci_text_run) -> ci_status) -> ci_status {
        text.withCString { text in
            font.withCString { font in
                var run = ci_text_run(text: text, font: font, pixels: pixels, width: width, height: height, lines: lines,
                                      colour: colour)
                return body(&run)
            }
        }
    }

    public func lineHeight(of text: String, font: String, pixels: Double, width: Int?,
                           lines: Int) throws(ImageEngineError) -> Int? {
        var metrics = ci_text_metrics()
        var error = ci_error()
        let status = Self.withTextRun(text, font: font, pixels: pixels, width: width ?? Int(CI_TEXT_MAX_SIDE), height: 1,
                                      lines: Int32(lines)) {
            ci_text_measure(&$0, &metrics, &error)
        }
        guard status == CI_OK else { throw ImageEngineError(error) }
        return metrics.has_fonts != 0 ? Int(metrics.height) : nil
    }

    /// Composites `text` (a title's lines, a caption's line) into `canvas`.
    func draw(_ text: CollageText, on canvas: inout ci_image) throws(ImageEngineError) {
        var error = ci_error()
        let status = Self.withTextRun(text.text, font: text.font, pixels: text.fontPixels, width: text.box.width,
                                      height: text.box.height, lines: Int32(text.lines), colour: text.colour) {
            ci_draw_text(&canvas, ci_rect(text.box), &$0, nil, &error)
        }
        guard status == CI_OK else { throw ImageEngineError(error) }
    }

    /// Composites a caption into `canvas`: its translucent band over the
    /// photo already drawn there, then its line.
    func draw(_ caption: DrawnCaption, on canvas: inout ci_image, options: CollageRenderOptions) throws(ImageEngineError) {
        let (shade, line) = CollageText.caption(caption, options: options)
        ci_shade_box(&canvas, ci_rect(shade.box), ci_color(shade.colour), shade.opacity)
        try draw(line, on: &canvas)
    }
}

extension ci_text_run {
    /// A run centred in a `width` x `height` box, of strings the caller
    /// keeps alive for as long as the run.
    init(text: UnsafePointer<CChar>, font: UnsafePointer<CChar>, pixels: Double, width: Int, height: Int, lines: Int32,
         colour: RGBColor) {
        self.init(text: text, font: font, pixel_size: pixels, colour: ci_color(colour), width: UInt32(max(1, width)),
                  height: UInt32(max(1, height)), max_lines: lines, align: CI_TEXT_CENTRE)
    }
}
