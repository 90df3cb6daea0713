import CollageImaging
import Foundation
import Testing

/// Text runs through Pango and Cairo (`ci_text_measure`, `ci_draw_text`),
/// drawn with the fonts fontconfig finds (fonts-dejavu-core at least).
@Suite struct TextTests {
    struct Canvas {
        var width: Int, height: Int
        var pixels: [UInt8]
        init(width: Int, height: Int, _ colour: [UInt8]) {
            self.width = width
            self.height = height
            pixels = (0..<width * height).flatMap { _ in colour }
        }
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(pixels[(y * width + x) * 3..<(y * width + x) * 3 + 3]) }
    }

    static func message(_ error: ci_error) -> String {
        withUnsafeBytes(of: error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// Draws `text` in `box` of `canvas`; returns the status, metrics and error.
    @discardableResult
    static func draw(_ text: String, on canvas: inout Canvas, box: ci_rect, colour: ci_color, pixels: Double = 24,
                     lines: Int32 = 2, font: String = "DejaVu Sans") -> (ci_status, ci_text_metrics, ci_error) {
        var metrics = ci_text_metrics()
        var error = ci_error()
        let (width, height) = (canvas.width, canvas.height)
        let status = canvas.pixels.withUnsafeMutableBufferPointer { buffer in
            var image = ci_image(pixels: buffer.baseAddress, width: UInt32(width), height: UInt32(height),
                                 stride: width * 3, channels: 3)
            return text.withCString { text in
                font.withCString { font in
                    var run = ci_text_run(text: text, font: font, pixel_size: pixels, colour: colour, width: box.width,
                                          height: box.height, max_lines: lines, align: CI_TEXT_CENTRE)
                    return ci_draw_text(&image, box, &run, &metrics, &error)
                }
            }
        }
        return (status, metrics, error)
    }

    @Test func fontconfigFindsAFont() {
        #expect(ci_text_fonts_available() != 0, "no font installed: scripts/install-deps.sh installs fonts-dejavu-core")
    }

    @Test("ink lies inside its box and nowhere else", arguments: [
        ([255, 255, 255] as [UInt8], ci_color(r: 0, g: 0, b: 0)),
        ([0, 0, 0] as [UInt8], ci_color(r: 255, g: 255, b: 255)),
        ([40, 120, 200] as [UInt8], ci_color(r: 250, g: 240, b: 10)),
    ])
    func inkStaysInItsBox(background: [UInt8], colour: ci_color) throws {
        var canvas = Canvas(width: 400, height: 200, background)
        let box = ci_rect(x: 50, y: 60, width: 300, height: 50)
        // Wide glyphs, descenders and accents, long enough to wrap and be ellipsised.
        let (status, metrics, error) = Self.draw("Ågypsy jumps quietly — Wolfgang's Éé ÿ ŷ long title text", on: &canvas,
                                                 box: box, colour: colour, pixels: 22)
        try #require(status == CI_OK, "\(Self.message(error))")
        #expect(metrics.has_fonts != 0)
        var inside = 0
        for y in 0..<canvas.height {
            for x in 0..<canvas.width where canvas.pixel(x, y) != background {
                let inBox = x >= box.x && x < box.x + Int32(box.width) && y >= box.y && y < box.y + Int32(box.height)
                #expect(inBox, "ink at \(x),\(y) outside the box")
                if !inBox { return }
                inside += 1
            }
        }
        #expect(inside > 500, "only \(inside) pixels drawn")
        // Some ink is the full text colour, not only anti-aliasing.
        let full = (0..<canvas.width * canvas.height).contains { index in
            canvas.pixels[index * 3] == colour.r && canvas.pixels[index * 3 + 1] == colour.g && canvas.pixels[index * 3 + 2] == colour.b
        }
        #expect(full)
    }

    @Test func aBoxPastTheCanvasEdgeIsClipped() throws {
        var canvas = Canvas(width: 120, height: 40, [255, 255, 255])
        let (status, _, error) = Self.draw("Clipped at the edge", on: &canvas, box: ci_rect(x: -30, y: 20, width: 200, height: 40),
                                           colour: ci_color(r: 0, g: 0, b: 0))
        try #require(status == CI_OK, "\(Self.message(error))")
        #expect(canvas.pixels.contains { $0 < 128 })
    }

    @Test func aLongTextWrapsToTwoLinesThenEllipsises() throws {
        var run = ci_text_run()
        var metrics = ci_text_metrics()
        var error = ci_error()
        func measure(_ text: String, lines: Int32) -> ci_status {
            text.withCString { text in
                "DejaVu Sans".withCString { font in
                    run = ci_text_run(text: text, font: font, pixel_size: 20, colour: ci_color(), width: 300, height: 1,
                                      max_lines: lines, align: CI_TEXT_CENTRE)
                    return ci_text_measure(&run, &metrics, &error)
                }
            }
        }
        try #require(measure("Short", lines: 2) == CI_OK)
        #expect(metrics.lines == 1 && metrics.ellipsized == 0)
        let oneLine = metrics.height
        let long = String(repeating: "a trip to the sea ", count: 40)
        try #require(measure(long, lines: 2) == CI_OK)
        #expect(metrics.lines == 2)
        #expect(metrics.ellipsized != 0)
        #expect(metrics.width <= 300)
        #expect(metrics.height >= 2 * oneLine - 2 && metrics.height <= 2 * oneLine + 2)
        // One long word is broken between characters, not left to overflow.
        try #require(measure(String(repeating: "x", count: 500), lines: 2) == CI_OK)
        #expect(metrics.lines == 2 && metrics.width <= 300 && metrics.ellipsized != 0)

        // Drawn in a box of two lines' height: every line's ink inside it.
        var canvas = Canvas(width: 320, height: 120, [255, 255, 255])
        let box = ci_rect(x: 10, y: 30, width: 300, height: metrics.height)
        let (status, drawn, _) = Self.draw(long, on: &canvas, box: box, colour: ci_color(r: 0, g: 0, b: 0), pixels: 20,
                                           font: "DejaVu Sans")
        try #require(status == CI_OK)
        #expect(drawn.lines == 2)
        #expect(drawn.ink_y >= 0 && drawn.ink_y + Int32(drawn.ink_height) <= Int32(box.height), "ink \(drawn.ink_y)+\(drawn.ink_height) in \(box.height)")
        let inkRows = (0..<canvas.height).filter { y in (0..<canvas.width).contains { canvas.pixel($0, y) != [255, 255, 255] } }
        #expect(inkRows.first! >= 30 && inkRows.last! < 30 + Int(box.height))
        // Two lines: a blank row between the lines' ink.
        let gaps = zip(inkRows, inkRows.dropFirst()).filter { $1 - $0 > 1 }
        #expect(gaps.count >= 1)
    }

    /// One line's metrics (or two, wrapped at `width`) of `text` in DejaVu Sans Bold at 40 px.
    static func measured(_ text: String, width: UInt32 = UInt32(CI_TEXT_MAX_SIDE), lines: Int32 = 1) throws -> ci_text_metrics {
        var metrics = ci_text_metrics()
        var error = ci_error()
        let status = text.withCString { text in
            "DejaVu Sans Bold".withCString { font in
                var run = ci_text_run(text: text, font: font, pixel_size: 40, colour: ci_color(), width: width, height: 1,
                                      max_lines: lines, align: CI_TEXT_CENTRE)
                return ci_text_measure(&run, &metrics, &error)
            }
        }
        try #require(status == CI_OK, "\(Self.message(error))")
        return metrics
    }

    /// In a box just wider than "Summer in Kyoto", a line could end there and
    /// the next begin with the mark; the mark goes with "Kyoto" instead:
    /// the longer line is then "Kyoto · 2026" (or "Summer in"). The marks
    /// Pango keeps on the line before itself (! ? : ; ) and the like) too.
    @Test("a spaced separator or closing mark never begins a line", arguments: [
        "\u{B7}", "\u{2022}", "\u{2013}", "\u{2014}", "|", "\u{2026}", "\u{BB}", "\u{30FB}",
        "!", "?", ":", ";", ")",
    ])
    func marksStayWithTheWordBefore(mark: String) throws {
        let first = try Self.measured("Summer in Kyoto")
        let text = "Summer in Kyoto \(mark) 2026"
        let wrapped = try Self.measured(text, width: first.width + 2, lines: 2)
        #expect(wrapped.lines == 2 && wrapped.ellipsized == 0)
        let expected = max(try Self.measured("Summer in").width, try Self.measured("Kyoto \(mark) 2026").width)
        #expect(wrapped.width == expected, "\(text): lines \(wrapped.width) wide, not \(expected): broken before \(mark)")
    }

    /// Columns holding ink, in runs: one run for a joined word.
    static func inkRuns(_ canvas: Canvas, background: [UInt8]) -> Int {
        let columns = (0..<canvas.width).map { x in (0..<canvas.height).contains { canvas.pixel(x, $0) != background } }
        return zip([false] + columns, columns).filter { !$0 && $1 }.count
    }

    @Test func missingGlyphsAreCounted() throws {
        var canvas = Canvas(width: 300, height: 40, [255, 255, 255])
        let box = ci_rect(x: 0, y: 0, width: 300, height: 40)
        let (status, metrics, _) = Self.draw("Private \u{10FFFD}\u{10FFFC} use", on: &canvas, box: box, colour: ci_color())
        try #require(status == CI_OK)
        #expect(metrics.missing_glyphs == 2)
        #expect(Self.draw("Plain Latin", on: &canvas, box: box, colour: ci_color()).1.missing_glyphs == 0)
    }

    /// Japanese, Arabic and emoji need fonts-noto-cjk, fonts-noto-core (or
    /// DejaVu, for Arabic) and fonts-noto-color-emoji, which `make test`
    /// installs (scripts/install-deps.sh).
    @Test func japaneseDrawsWithAFontThatHasIt() throws {
        var canvas = Canvas(width: 300, height: 50, [255, 255, 255])
        let (status, metrics, _) = Self.draw("東京の夏", on: &canvas, box: ci_rect(x: 0, y: 0, width: 300, height: 50),
                                             colour: ci_color(), pixels: 30, font: "Sans")
        try #require(status == CI_OK)
        #expect(metrics.missing_glyphs == 0, "no font for Japanese: install fonts-noto-cjk")
        #expect(canvas.pixels.filter { $0 < 128 }.count > 300)
    }

    @Test func arabicIsShaped() throws {
        // Three seens joined make one word, one run of ink; with zero-width
        // non-joiners between them they stand apart, three runs: HarfBuzz
        // chose the joining forms.
        let box = ci_rect(x: 0, y: 0, width: 300, height: 60)
        var joined = Canvas(width: 300, height: 60, [255, 255, 255])
        let (status, metrics, _) = Self.draw("سسس", on: &joined, box: box, colour: ci_color(), pixels: 36, font: "Sans")
        try #require(status == CI_OK)
        #expect(metrics.missing_glyphs == 0, "no font for Arabic: install fonts-noto-core")
        var apart = Canvas(width: 300, height: 60, [255, 255, 255])
        Self.draw("س\u{200C}س\u{200C}س", on: &apart, box: box, colour: ci_color(), pixels: 36, font: "Sans")
        #expect(Self.inkRuns(joined, background: [255, 255, 255]) == 1)
        #expect(Self.inkRuns(apart, background: [255, 255, 255]) == 3)
    }

    @Test func emojiDrawInColour() throws {
        var canvas = Canvas(width: 200, height: 60, [255, 255, 255])
        // Drawn "in black": only a colour font's own colours can make these pixels coloured.
        let (status, metrics, _) = Self.draw("🌊☀️🍎", on: &canvas, box: ci_rect(x: 0, y: 0, width: 200, height: 60),
                                             colour: ci_color(), pixels: 36, font: "Sans")
        try #require(status == CI_OK)
        #expect(metrics.missing_glyphs == 0, "no font for emoji: install fonts-noto-color-emoji")
        let coloured = (0..<canvas.width * canvas.height).filter { index in
            let (r, g, b) = (Int(canvas.pixels[index * 3]), Int(canvas.pixels[index * 3 + 1]), Int(canvas.pixels[index * 3 + 2]))
            return max(r, g, b) - min(r, g, b) > 80
        }
        #expect(coloured.count > 200, "\(coloured.count) coloured pixels")
    }

    @Test func badRunsAreRefused() {
        var canvas = Canvas(width: 10, height: 10, [255, 255, 255])
        let box = ci_rect(x: 0, y: 0, width: 10, height: 10)
        var error = ci_error()
        var metrics = ci_text_metrics()
        // Invalid UTF-8.
        let invalid: [CChar] = [0x41, -0x3F, 0x28, 0]  // "A\xC1(": an overlong lead byte
        let status = canvas.pixels.withUnsafeMutableBufferPointer { buffer -> ci_status in
            var image = ci_image(pixels: buffer.baseAddress, width: 10, height: 10, stride: 30, channels: 3)
            return invalid.withUnsafeBufferPointer { text in
                var run = ci_text_run(text: text.baseAddress, font: nil, pixel_size: 10, colour: ci_color(), width: 10,
                                      height: 10, max_lines: 1, align: CI_TEXT_CENTRE)
                return ci_draw_text(&image, box, &run, &metrics, &error)
            }
        }
        #expect(status == CI_ERR_INVALID_ARGUMENT)
        #expect(Self.message(error).contains("UTF-8"))
        // Too long, a box of no width, no lines, a box that is not the run's.
        let tooLong = String(repeating: "x", count: Int(CI_TEXT_MAX_BYTES) + 1)
        #expect(Self.draw(tooLong, on: &canvas, box: box, colour: ci_color()).0 == CI_ERR_TOO_LARGE)
        #expect(Self.draw("x", on: &canvas, box: ci_rect(x: 0, y: 0, width: 0, height: 10), colour: ci_color()).0 == CI_ERR_INVALID_ARGUMENT)
        #expect(Self.draw("x", on: &canvas, box: box, colour: ci_color(), lines: 0).0 == CI_ERR_INVALID_ARGUMENT)
        // A box whose surface would pass the limit (8000 x 8000), refused before allocating.
        #expect(Self.draw("x", on: &canvas, box: ci_rect(x: 0, y: 0, width: 8000, height: 8000), colour: ci_color()).0 == CI_ERR_TOO_LARGE)
        #expect(Self.draw("x", on: &canvas, box: box, colour: ci_color(), pixels: -3).0 == CI_ERR_INVALID_ARGUMENT)
        // A line break or a control character: Pango would start a paragraph
        // (each with its own line limit, found by fuzz_text) or has nothing
        // to draw. Callers turn them into spaces or drop them first.
        for text in ["two\nlines", "tab\there", "esc\u{1B}[31m", "next\u{85}line", "sep\u{2028}arated", "para\u{2029}graph"] {
            #expect(Self.draw(text, on: &canvas, box: box, colour: ci_color(), lines: 4).0 == CI_ERR_INVALID_ARGUMENT, "\(text.debugDescription)")
        }
        // A description of no size ("Sans 0", or forty zeros, from fuzz_text)
        // laid out as nothing and Cairo could not draw it: it takes Pango's
        // default size, measured and drawn alike.
        var zeroCanvas = Canvas(width: 60, height: 60, [255, 255, 255])
        let zeros = String(repeating: "0", count: 40)
        for font in [zeros, "Sans 0"] {
            let (status, drawn, _) = Self.draw("@", on: &zeroCanvas, box: ci_rect(x: 0, y: 0, width: 60, height: 60),
                                               colour: ci_color(), pixels: 0, lines: 1, font: font)
            #expect(status == CI_OK && drawn.height > 0 && drawn.ink_height > 0, "\(font): \(drawn)")
        }
        #expect(Self.draw("café — ½ ‰", on: &canvas, box: box, colour: ci_color(r: 255, g: 255, b: 255)).0 == CI_OK,
                "characters beside the controls in UTF-8 (U+00E9, U+2014) are drawn")
        #expect(canvas.pixels.allSatisfy { $0 == 255 })
    }

    @Test func runsOnManyThreadsAtOnceDrawTheSame() throws {
        var reference = Canvas(width: 200, height: 40, [255, 255, 255])
        let box = ci_rect(x: 0, y: 0, width: 200, height: 40)
        try #require(Self.draw("Same on every thread", on: &reference, box: box, colour: ci_color(r: 0, g: 0, b: 0)).0 == CI_OK)
        let results = TextResults<[[UInt8]]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            var canvas = Canvas(width: 200, height: 40, [255, 255, 255])
            _ = Self.draw("Same on every thread", on: &canvas, box: box, colour: ci_color(r: 0, g: 0, b: 0))
            results.withLock { $0.append(canvas.pixels) }
        }
        #expect(results.withLock { $0 }.allSatisfy { $0 == reference.pixels })
    }
}

/// A value guarded by a lock, for the threads above.
private final class TextResults<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.lock(); defer { lock.unlock() }; return body(&value) }
}
