/// A rectangle on the canvas, in pixels. Cells may reach one pixel past the
/// canvas (the grid rounds its tile size); drawing clips them.
public struct CellRect: Equatable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// The original app's collage grid, exactly.
///
/// For `n` photos on a `W x H` canvas:
/// - rows = 1 when n < 3, else 2;
/// - columns = round(n / rows), halves away from zero (3 -> 2, 5 -> 3);
/// - tile = round(W / columns) x round(H / rows);
/// - photo i goes to column i % columns, row i / columns.
///
/// With a gap of `g` pixels, the gap lies *between* neighbouring cells only
/// (no border around the canvas): tile = round((W - (columns - 1) g) / columns)
/// x round((H - (rows - 1) g) / rows), and cell (c, r) starts at
/// (c (tileW + g), r (tileH + g)). A gap of 0 is the original geometry.
public struct GridLayout: Equatable, Sendable {
    public let count: Int
    public let rows: Int
    public let columns: Int

    public init(count: Int) {
        precondition(count >= 0, "a collage cannot have a negative number of photos")
        self.count = count
        rows = count < 3 ? 1 : 2
        columns = count == 0 ? 0 : Int((Double(count) / Double(rows)).rounded(.toNearestOrAwayFromZero))
    }

    /// The tile size on a canvas, or nil when the gap leaves no room.
    public func tileSize(canvasWidth: Int, canvasHeight: Int, gap: Int = 0) -> (width: Int, height: Int)? {
        guard count > 0 else { return nil }
        let widthForTiles = canvasWidth - (columns - 1) * gap
        let heightForTiles = canvasHeight - (rows - 1) * gap
        let width = Int((Double(widthForTiles) / Double(columns)).rounded(.toNearestOrAwayFromZero))
        let height = Int((Double(heightForTiles) / Double(rows)).rounded(.toNearestOrAwayFromZero))
        guard width > 0, height > 0 else { return nil }
        return (width, height)
    }

    /// One cell per photo, in the order the photos were added.
    public func cells(canvasWidth: Int, canvasHeight: Int, gap: Int = 0) -> [CellRect] {
        guard let tile = tileSize(canvasWidth: canvasWidth, canvasHeight: canvasHeight, gap: gap) else {
            return []
        }
        return (0..<count).map { index in
            CellRect(
                x: (index % columns) * (tile.width + gap),
                y: (index / columns) * (tile.height + gap),
                width: tile.width,
                height: tile.height)
        }
    }
}
