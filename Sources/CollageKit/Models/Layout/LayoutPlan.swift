/// The shape of one photo as it is seen (upright, after EXIF orientation):
/// all a layout needs to know of it.
public struct PhotoShape: Equatable, Sendable {
    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) {
        self.width = max(1, width)
        self.height = max(1, height)
    }

    public var aspect: Double { Double(width) / Double(height) }
}

/// Where every photo of a collage goes: the canvas and one cell per photo,
/// in the selection's order. The one geometry of a collage: the render
/// draws it, `save --dry-run --json` prints it, the terminal picture scales it.
public struct LayoutPlan: Equatable, Sendable {
    public let canvas: CanvasSize
    public let layout: LayoutMode
    /// One per photo, in the order the photos were added.
    public let cells: [CellRect]
    /// How each photo fills its cell: rows and columns show every photo
    /// whole (their cells have the photos' shapes, to the pixel) unless they
    /// crop a little of each to fill a fixed canvas (then they cover), the
    /// others as `--fit` says.
    public let fit: FitMode
    /// The title's band across the top (`--title`), above every cell.
    public let title: TitleBand?

    public init(canvas: CanvasSize, layout: LayoutMode, cells: [CellRect], fit: FitMode, title: TitleBand? = nil) {
        self.canvas = canvas
        self.layout = layout
        self.cells = cells
        self.fit = fit
        self.title = title
    }

    /// The plan at `scale` times its size (for pictures in a terminal):
    /// every edge scaled and rounded, so cells still meet; no cell smaller
    /// than a pixel.
    public func scaled(by scale: Double) -> LayoutPlan {
        func edge(_ value: Int) -> Int { Int((Double(value) * scale).rounded()) }
        let canvas = (try? CanvasSize(width: max(1, edge(self.canvas.width)), height: max(1, edge(self.canvas.height))))
            ?? self.canvas
        func rect(_ cell: CellRect) -> CellRect {
            let x = edge(cell.x), y = edge(cell.y)
            return CellRect(x: x, y: y, width: max(1, edge(cell.x + cell.width) - x),
                            height: max(1, edge(cell.y + cell.height) - y))
        }
        return LayoutPlan(canvas: canvas, layout: layout, cells: cells.map(rect), fit: fit,
                          title: title.map { TitleBand(text: $0.text, rect: rect($0.rect), fontPixels: $0.fontPixels * scale) })
    }

    /// The fraction of a photo kept when it covers a cell of another shape
    /// (the rest is cropped), which is also the fraction of the cell a photo
    /// fills when it is contained whole: min(r, 1/r) for r the ratio of the
    /// two aspect ratios. What `auto` maximises.
    public static func keptFraction(_ photo: PhotoShape, in cell: CellRect) -> Double {
        guard cell.width > 0, cell.height > 0 else { return 0 }
        return keptFraction(photo, inCellOf: Double(cell.width) / Double(cell.height))
    }

    /// The same for a cell of this aspect ratio (width over height).
    static func keptFraction(_ photo: PhotoShape, inCellOf aspect: Double) -> Double {
        let ratio = aspect / photo.aspect
        return min(ratio, 1 / ratio)
    }
}

/// A part of a photo, in fractions (0-1) of its upright width and height.
public struct PhotoRegion: Equatable, Sendable {
    public var x, y, width, height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The same part in the photo's pixels, rounded, within the photo.
    public func pixels(of photo: PhotoShape) -> CellRect {
        func span(_ start: Double, _ length: Double, _ size: Int) -> (Int, Int) {
            let from = min(max(0, Int((start * Double(size)).rounded())), size - 1)
            let to = min(max(from + 1, Int(((start + length) * Double(size)).rounded())), size)
            return (from, to - from)
        }
        let (x, width) = span(x, width, photo.width), (y, height) = span(y, height, photo.height)
        return CellRect(x: x, y: y, width: width, height: height)
    }

    /// Its centre, as a focus: where the collage screen's crop keys start from.
    public var centre: PhotoFocus {
        // Within 0-1 by construction; clamped against rounding.
        (try? PhotoFocus(x: min(1, max(0, x + width / 2)), y: min(1, max(0, y + height / 2)))) ?? .centre
    }
}

/// A collage as drawn: the picture, its plan, and the part of each photo
/// its cell shows (where smart or attention put the crop; all of it for
/// contain), in the selection's order.
public struct RenderedCollage: Equatable, Sendable {
    public let image: RGBImage
    public let plan: LayoutPlan
    public let shown: [PhotoRegion]
    /// Each photo's caption as drawn, with its band; nil for a photo without
    /// one (or when no font could draw it).
    public let captions: [DrawnCaption?]

    public init(image: RGBImage, plan: LayoutPlan, shown: [PhotoRegion], captions: [DrawnCaption?]? = nil) {
        self.image = image
        self.plan = plan
        self.shown = shown
        self.captions = captions ?? shown.map { _ in nil }
    }

    public var cropCentres: [PhotoFocus] { shown.map(\.centre) }
}

/// What a layout is asked for: the canvas, the spacing, the mode and fit.
public struct LayoutRequest: Equatable, Sendable {
    public var size: RequestedSize
    public var layout: LayoutMode
    public var gap: Int
    public var margin: Int
    public var fit: FitMode
    /// A title's band goes across the top; the layout fills the rest.
    public var title: TitleRequest?

    public init(size: RequestedSize, layout: LayoutMode, gap: Int = 0, margin: Int = 0, fit: FitMode = .cover,
                title: TitleRequest? = nil) {
        self.size = size
        self.layout = layout
        self.gap = gap
        self.margin = margin
        self.fit = fit
        self.title = title
    }

    /// The options' request; a title's height is estimated (one line), as
    /// planning without the text engine must (`ImageEngine.plan` measures it).
    public init(_ options: CollageRenderOptions) {
        self.init(size: options.size, layout: options.layout, gap: options.gap, margin: options.margin, fit: options.fit,
                  title: options.title.map { TitleRequest.estimated($0, size: options.size, font: options.font) })
    }

    /// Whether the layout needs to know the photos' shapes (the grid does not).
    public var needsPhotoShapes: Bool { layout != .grid }
}

/// Makes the plan of a collage: the one entry to every layout.
public enum CollageLayout {
    /// The plan for photos of these shapes (upright). Throws a `LayoutError`
    /// when the request cannot be met: a side left open that this layout
    /// cannot work out, or a canvas too small for the cells once the gaps,
    /// margins and title are taken (the rule of room is here, and only here).
    public static func plan(_ photos: [PhotoShape], _ request: LayoutRequest) throws(LayoutError) -> LayoutPlan {
        guard let title = request.title else { return try body(photos, request) }
        // The title's band across the top, inside the margins, and the gap
        // below it (the band is the cells' neighbour); every layout lays out
        // the canvas less these, then moves down below them.
        let band = title.bandHeight, below = band + request.gap
        var rest = request
        rest.title = nil
        if let height = request.size.height {
            guard height - 2 * request.margin - below > 0 else {
                throw LayoutError(.noRoom, "a \(request.size) canvas\(request.margin > 0 ? " with a margin of \(request.margin) px" : "") has no room for the title's band of \(band) px and photos below it")
            }
            rest.size = try LayoutError.size(width: request.size.width, height: height - below)
        }
        let plan = try body(photos, rest)
        let canvas = try LayoutError.canvas(width: plan.canvas.width, height: plan.canvas.height + below)
        let margin = request.margin
        let rect = CellRect(x: margin, y: margin, width: max(1, canvas.width - 2 * margin), height: band)
        return LayoutPlan(canvas: canvas, layout: plan.layout,
                          cells: plan.cells.map { CellRect(x: $0.x, y: $0.y + below, width: $0.width, height: $0.height) },
                          fit: plan.fit, title: TitleBand(text: title.text, rect: rect, fontPixels: title.fontPixels))
    }

    /// The plan of the photos alone, on the whole canvas, by the mode's layout.
    static func body(_ photos: [PhotoShape], _ request: LayoutRequest) throws(LayoutError) -> LayoutPlan {
        if let refusal = LayoutError.sideLeftOpen(request.size, request.layout) { throw refusal }
        return try request.layout.geometry.layOut(photos, request)
    }
}

/// A collage's plan as `save --dry-run` reports it: the canvas, the layout,
/// and for each photo (in the selection's order) its upright size, its cell,
/// and the part of it the cell shows, in the photo's own pixels.
public struct CollagePlanReport: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public let photo: Photo
        public let shape: PhotoShape
        public let cell: CellRect
        public let shown: CellRect
        public let caption: DrawnCaption?
    }

    public let canvas: CanvasSize
    public let layout: LayoutMode
    public let photos: [Entry]
    public let title: TitleBand?

    public init(photos: [Photo], shapes: [PhotoShape], drawn: RenderedCollage) {
        canvas = drawn.plan.canvas
        layout = drawn.plan.layout
        title = drawn.plan.title
        self.photos = photos.indices.map { index in
            Entry(photo: photos[index], shape: shapes[index], cell: drawn.plan.cells[index],
                  shown: drawn.shown[index].pixels(of: shapes[index]), caption: drawn.captions[index])
        }
    }
}
