/// What every layout is to `CollageLayout.plan`: the canvas and the
/// photos' cells for a request, the title's band already taken off it.
/// Each `LayoutMode` names its one (`LayoutMode.geometry`), so a new layout
/// is a type that conforms, and its case.
protocol LayoutGeometry {
    /// The plan of the photos alone, on the whole canvas (a side left open
    /// is refused before, where this layout cannot work it out).
    static func layOut(_ photos: [PhotoShape], _ request: LayoutRequest) throws(LayoutError) -> LayoutPlan
}

/// A layout of a canvas whose two sides are given (the grid, `auto`): only
/// the cells inside the margins are its own; the canvas, the margins, the
/// rule of room and the fit are the same for every such layout, here.
protocol FixedCanvasLayout: LayoutGeometry {
    /// One cell per photo on a `width` x `height` area (the canvas inside
    /// its margins), at (0, 0); fewer (none) when they cannot all have a pixel.
    static func cells(for photos: [PhotoShape], width: Int, height: Int, gap: Int) -> [CellRect]
}

extension FixedCanvasLayout {
    static func layOut(_ photos: [PhotoShape], _ request: LayoutRequest) throws(LayoutError) -> LayoutPlan {
        guard let canvas = request.size.canvas else { preconditionFailure("both sides: refused before") }
        let count = photos.count, margin = request.margin
        let inner = (width: canvas.width - 2 * margin, height: canvas.height - 2 * margin)
        guard count > 0 else { return LayoutPlan(canvas: canvas, layout: request.layout, cells: [], fit: request.fit) }
        guard inner.width > 0, inner.height > 0 else { throw LayoutError.noRoom(count, request, canvas) }
        let cells = cells(for: photos, width: inner.width, height: inner.height, gap: request.gap)
        guard cells.count == count else { throw LayoutError.noRoom(count, request, canvas) }
        return LayoutPlan(canvas: canvas, layout: request.layout,
                          cells: cells.map { CellRect(x: $0.x + margin, y: $0.y + margin, width: $0.width, height: $0.height) },
                          fit: request.fit)
    }
}

extension GridLayout: FixedCanvasLayout {
    static func cells(for photos: [PhotoShape], width: Int, height: Int, gap: Int) -> [CellRect] {
        GridLayout(count: photos.count).cells(canvasWidth: width, canvasHeight: height, gap: gap)
    }
}

extension SlicingLayout: FixedCanvasLayout {
    static func cells(for photos: [PhotoShape], width: Int, height: Int, gap: Int) -> [CellRect] {
        best(for: photos, width: width, height: height, gap: gap, countingPixels: true)?.cells ?? []
    }
}

extension JustifiedLayout: LayoutGeometry {
    /// Whole photos are contained (their cells have their shapes, to the
    /// pixel); photos the rows crop a little to fill the canvas cover.
    static func layOut(_ photos: [PhotoShape], _ request: LayoutRequest) throws(LayoutError) -> LayoutPlan {
        let cells = try plan(photos, request)
        return LayoutPlan(canvas: cells.canvas, layout: request.layout, cells: cells.cells,
                          fit: cells.cropped ? .cover : .contain)
    }
}

extension LayoutMode {
    /// The layout that plans this mode.
    var geometry: any LayoutGeometry.Type {
        switch self {
        case .auto: SlicingLayout.self
        case .grid: GridLayout.self
        case .rows, .columns: JustifiedLayout.self
        }
    }
}
