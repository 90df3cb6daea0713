import Foundation

/// What the layout is told of a title: its text, its font size, and the
/// height its lines take (measured by the text engine; `estimated` without it).
public struct TitleRequest: Equatable, Sendable {
    public var text: String
    /// The font's size in pixels: 3% of the side of a square of the
    /// canvas's area (`fontPixels(for:font:)`), or `--font`'s size.
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

    /// The smallest font a title is given (unless `--font` asks for less).
    public static let minimumPixels = 6.0

    /// The title's font size for a canvas: `--font`'s size when it gives
    /// one, else 3% of the square root of the canvas's area, so that a title
    /// is as tall on a portrait canvas as on the same canvas turned (43 px on
    /// 1920x1080 and on 1080x1920, where 4% of the height was 77 and wrapped)
    /// and a banner's short side does not shrink it (37 px on 3000x500, not
    /// 20), but no larger than lets one line's band fit in `bandLimit`. When
    /// the photos give a side (`--size 1920x`), the default canvas's
    /// proportion (16:9) stands in for it.
    public static func fontPixels(for size: RequestedSize, font: CollageFont? = nil) -> Double {
        if let pixels = font?.pixels { return pixels }
        let canvas = estimatedCanvas(size)
        var pixels = max(minimumPixels, (canvas.width * canvas.height).squareRoot() * 0.03).rounded()
        let limit = bandLimit(for: size)
        while pixels > minimumPixels, estimated(fontPixels: pixels).bandHeight > limit { pixels -= 1 }
        return pixels
    }

    /// The most a title's band may take of a canvas: 8% of its longer side
    /// (a portrait canvas's height: two lines of the area's size fit in it)
    /// and a sixth of its height (a banner's band of one line fits in it).
    /// Beyond it the text engine makes the font smaller (`ImageEngine`'s
    /// measure), unless `--font` gave a size.
    public static func bandLimit(for size: RequestedSize) -> Int {
        let canvas = estimatedCanvas(size)
        return Int(min(max(canvas.width, canvas.height) * 0.08, canvas.height / 6))
    }

    /// The canvas a size stands for when planning text: a side left to the
    /// photos as the default canvas's proportion (16:9) would make it.
    static func estimatedCanvas(_ size: RequestedSize) -> (width: Double, height: Double) {
        let proportion = Double(CanvasSize.default.width) / Double(CanvasSize.default.height)
        let width = size.width.map(Double.init) ?? size.height.map { Double($0) * proportion } ?? Double(CanvasSize.default.width)
        return (width, size.height.map(Double.init) ?? width / proportion)
    }

    /// Space above and below the lines (and at the sides), in pixels.
    public static func padding(fontPixels: Double) -> Int { Int((fontPixels * 0.5).rounded()) }

    /// A title of one line, its height estimated from the font size (lines
    /// of common fonts are about 1.2 em), for planning without the text engine.
    public static func estimated(_ title: CollageTitle, size: RequestedSize, font: CollageFont? = nil) -> TitleRequest {
        estimated(fontPixels: fontPixels(for: size, font: font), text: title.text)
    }

    static func estimated(fontPixels: Double, text: String = "") -> TitleRequest {
        TitleRequest(text: text, fontPixels: fontPixels, textHeight: Int((fontPixels * 1.2).rounded(.up)))
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
