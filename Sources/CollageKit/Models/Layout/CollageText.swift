import Foundation

/// A line or lines of text on a collage (its title, a caption) as they are
/// drawn: the one description that the raster drawing composites into the
/// pixels and a page (PDF) sets as text, so the two cannot disagree on a
/// box, a font or a colour.
public struct CollageText: Equatable, Sendable {
    public let text: String
    /// A Pango font description.
    public let font: String
    public let fontPixels: Double
    public let colour: RGBColor
    /// Where the lines are laid out, centred in it vertically and across.
    public let box: CellRect
    /// Wrapped to at most this many lines, the last ellipsised.
    public let lines: Int

    /// The title in its band, in `--text-colour`, else black or white,
    /// whichever contrasts more with the background (the band's colour).
    public static func title(_ title: TitleBand, options: CollageRenderOptions) -> CollageText {
        CollageText(text: title.text, font: options.font?.description ?? CollageFont.titleDefault,
                    fontPixels: title.fontPixels, colour: options.textColour ?? TitleBand.textColour(on: options.background),
                    box: title.textBox, lines: TitleRequest.maximumLines)
    }

    /// A caption's line in its band (`CaptionBand`), and the translucent
    /// shade under it.
    public static func caption(_ caption: DrawnCaption, options: CollageRenderOptions) -> (shade: TextShade, line: CollageText) {
        let colours = CaptionBand.colours(text: options.textColour)
        let line = CollageText(text: caption.text, font: options.font?.description ?? CollageFont.captionDefault,
                               fontPixels: caption.fontPixels, colour: colours.text,
                               box: CaptionBand.textBox(in: caption.band, fontPixels: caption.fontPixels), lines: 1)
        return (TextShade(box: caption.band, colour: colours.band, opacity: CaptionBand.opacity), line)
    }
}

/// A translucent band laid under text so it stays legible on any photo.
public struct TextShade: Equatable, Sendable {
    public let box: CellRect
    public let colour: RGBColor
    /// Out of 255.
    public let opacity: UInt8
}

/// Where a collage's title and captions go: into its pixels (a raster
/// file), or apart, measured and placed but not drawn, for a page that sets
/// them as text over the photos (PDF: `CollagePage`).
public enum TextDrawing: Sendable {
    case onPixels
    case apart

    /// What `format` needs.
    public init(for format: ImageFormat) { self = format.isPage ? .apart : .onPixels }
}

