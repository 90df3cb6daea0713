/// A rectangle on the canvas, in pixels.
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

    /// The area this rectangle shares with another, in pixels.
    public func overlap(_ other: CellRect) -> Int {
        let across = min(x + width, other.x + other.width) - max(x, other.x)
        let down = min(y + height, other.y + other.height) - max(y, other.y)
        return max(0, across) * max(0, down)
    }
}

/// The original app's collage grid, with its edges rounded so the cells
/// tile the canvas.
///
/// For `n` photos on a `W x H` canvas:
/// - rows = 1 when n < 3, else 2;
/// - columns = round(n / rows), halves away from zero (3 -> 2, 5 -> 3);
/// - column i spans round(i W / columns) to round((i + 1) W / columns), and
///   row j likewise down the height;
/// - photo i goes to column i % columns, row i / columns.
///
/// The original made every tile round(W / columns) wide, which leaves a
/// background column at the right edge (or overflows it) when W does not
/// divide; rounding each edge instead gives the same grid wherever it
/// divides, and cells at most a pixel unequal that meet the canvas's edges
/// where it does not.
///
/// With a gap of `g` pixels, the gap lies *between* neighbouring cells only
/// (no border around the canvas): the edges divide W - (columns - 1) g, and
/// column i moves i g to the right, so every gap is g wide. A gap of 0 is
/// the original geometry.
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

    /// One cell per photo, in the order the photos were added; none when
    /// the gaps leave a cell no pixel.
    public func cells(canvasWidth: Int, canvasHeight: Int, gap: Int = 0) -> [CellRect] {
        guard count > 0,
              let across = Self.spans(canvasWidth, into: columns, gap: gap),
              let down = Self.spans(canvasHeight, into: rows, gap: gap) else { return [] }
        return (0..<count).map { index in
            let column = across[index % columns], row = down[index / columns]
            return CellRect(x: column.start, y: row.start, width: column.length, height: row.length)
        }
    }

    /// A length cut into `parts` with a gap between them: the edges at
    /// round(i (length - gaps) / parts), halves up, each part moved past the
    /// gaps before it. Nil when a part would have no pixel.
    static func spans(_ length: Int, into parts: Int, gap: Int) -> [(start: Int, length: Int)]? {
        let cells = length - (parts - 1) * gap
        func edge(_ index: Int) -> Int { (2 * index * cells + parts) / (2 * parts) }
        let spans = (0..<parts).map { (start: edge($0) + $0 * gap, length: edge($0 + 1) - edge($0)) }
        return spans.allSatisfy { $0.length > 0 } ? spans : nil
    }
}
