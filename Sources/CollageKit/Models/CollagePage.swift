import Foundation

/// A collage set on a page to print (PDF, issue #34): the photos drawn as
/// pixels with nothing written over them, and the title and captions apart,
/// for the page to set as text (`ImageEngine.encode(_:options:)`).
public struct CollagePage: Equatable, Sendable {
    /// The canvas: the photos drawn in their cells, the background around them.
    public let image: RGBImage
    public let background: RGBColor
    /// Each photo's cell of `image`, in the collage's order: what the page
    /// embeds of each, at the canvas's resolution.
    public let cells: [CellRect]
    /// Laid over the photos, in order: the captions' bands.
    public let shades: [TextShade]
    /// Set last, in order: the captions, then the title (as a raster
    /// collage draws them).
    public let texts: [CollageText]
    /// The document's title: the collage's, nil for none.
    public let title: String?

    init(image: RGBImage, background: RGBColor, cells: [CellRect], shades: [TextShade], texts: [CollageText],
         title: String?) {
        self.image = image
        self.background = background
        self.cells = cells
        self.shades = shades
        self.texts = texts
        self.title = title
    }

    /// This page with `more` words set last (a book's page number).
    public func adding(_ more: [CollageText]) -> CollagePage {
        CollagePage(image: image, background: background, cells: cells, shades: shades, texts: texts + more, title: title)
    }

    /// The page of `collage`, drawn with its text `.apart`.
    public init(_ collage: RenderedCollage, options: CollageRenderOptions) {
        let captions = collage.captions.compactMap { $0.map { CollageText.caption($0, options: options) } }
        image = collage.image
        background = options.background
        cells = collage.plan.cells
        shades = captions.map(\.shade)
        texts = captions.map(\.line) + (collage.plan.title.map { [CollageText.title($0, options: options)] } ?? [])
        title = options.title?.text
    }
}

/// What a save writes: pixels (every raster format) or a page (PDF).
public enum CollageOutput: Equatable, Sendable {
    case image(RGBImage)
    case page(CollagePage)

    /// `collage`, drawn with `TextDrawing(for: format)`, as `format` writes it.
    public init(_ collage: RenderedCollage, format: ImageFormat, options: CollageRenderOptions) {
        self = format.isPage ? .page(CollagePage(collage, options: options)) : .image(collage.image)
    }

    /// The file's bytes.
    func encoded(by encoder: ImageEncoding, as format: ImageFormat, options: SaveOptions) throws -> [UInt8] {
        switch self {
        case let .image(image): try encoder.encode(image, as: format, options: options)
        case let .page(page): try encoder.encode(page, options: options)
        }
    }
}
