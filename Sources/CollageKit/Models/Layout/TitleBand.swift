import Foundation

/// What the layout is told of a title: its text, its font size, and the
/// height its lines take (measured by the text engine; `estimated` without it).
public struct TitleRequest: Equatable, Sendable {
    public var text: String
    /// The font's size in pixels: about 4% of the canvas's height.
    public var fontPixels: Double
    /// The height of the laid-out lines, in pixels.
    public var textHeight: Int

    public init(text: String, fontPixels: Double, textHeight: Int) {
        self.text = text
        self.fontPixels = fontPixels
        self.textHeight = max(1, textHeight)
    }

    /// The most lines a title takes; what does not fit is ellipsised.
    public static let maximumLines = 2

    /// The title's font size for a canvas: `--font`'s size when it gives
    /// one, else 4% of the canvas's height, or, when the
    /// height follows from the photos (`--size 1920x`), of the height the
    /// default canvas's proportion (16:9) would give.
    public static func fontPixels(for size: RequestedSize, font: CollageFont? = nil) -> Double {
        if let pixels = font?.pixels { return pixels }
        let basis = size.height.map(Double.init) ?? Double(size.width ?? CanvasSize.default.width) * 9 / 16
        return max(6, (basis * 0.04).rounded())
    }

    /// Space above and below the lines (and at the sides), in pixels.
    public static func padding(fontPixels: Double) -> Int { Int((fontPixels * 0.5).rounded()) }

    /// A title of one line, its height estimated from the font size (lines
    /// of common fonts are about 1.2 em), for planning without the text engine.
    public static func estimated(_ title: CollageTitle, size: RequestedSize, font: CollageFont? = nil) -> TitleRequest {
        let pixels = fontPixels(for: size, font: font)
        return TitleRequest(text: title.text, fontPixels: pixels, textHeight: Int((pixels * 1.2).rounded(.up)))
    }

    /// The band's height: the lines and the padding above and below.
    public var bandHeight: Int { textHeight + 2 * Self.padding(fontPixels: fontPixels) }
}

/// Where a title goes: a band across the top of the canvas, inside the
/// margins; the photos' cells lie below it.
public struct TitleBand: Equatable, Sendable {
    public let text: String
    /// The band, background-coloured, the full width inside the margins.
    public let rect: CellRect
    /// Where the lines are laid out and drawn: the band less its padding
    /// at the sides (the lines are centred in it vertically).
    public let textBox: CellRect
    public let fontPixels: Double

    public init(text: String, rect: CellRect, fontPixels: Double) {
        self.text = text
        self.rect = rect
        self.fontPixels = fontPixels
        let side = min(TitleRequest.padding(fontPixels: fontPixels), max(0, (rect.width - 1) / 2))
        textBox = CellRect(x: rect.x + side, y: rect.y, width: max(1, rect.width - 2 * side), height: rect.height)
    }

    /// The text's colour on `background`: black or white, whichever
    /// contrasts more (WCAG 2 contrast ratio; one of the two always
    /// reaches at least 4.58:1).
    public static func textColour(on background: RGBColor) -> RGBColor {
        contrast(.black, background) >= contrast(.white, background) ? .black : .white
    }

    /// WCAG 2's relative luminance of an sRGB colour.
    public static func luminance(_ colour: RGBColor) -> Double {
        func linear(_ value: UInt8) -> Double {
            let c = Double(value) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(colour.red) + 0.7152 * linear(colour.green) + 0.0722 * linear(colour.blue)
    }

    /// WCAG 2's contrast ratio of two colours, 1-21.
    public static func contrast(_ a: RGBColor, _ b: RGBColor) -> Double {
        let (la, lb) = (luminance(a), luminance(b))
        return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
    }
}
