import Testing
@testable import CollageKit

/// Photos of the shapes the measured cases name.
func shapes(_ list: [(Int, Int)]) -> [PhotoShape] { list.map { PhotoShape(width: $0.0, height: $0.1) } }
let landscape = (4000, 3000), portrait = (3000, 4000), panorama = (6000, 2000), square = (3000, 3000)

func plan(_ photos: [PhotoShape], _ width: Int?, _ height: Int?, _ layout: LayoutMode,
          gap: Int = 0, margin: Int = 0, fit: FitMode = .cover) throws -> LayoutPlan {
    try CollageLayout.plan(photos, LayoutRequest(size: try RequestedSize(width: width, height: height), layout: layout,
                                                 gap: gap, margin: margin, fit: fit))
}

func kept(_ plan: LayoutPlan, _ photos: [PhotoShape]) -> (least: Double, mean: Double) {
    let kept = zip(photos, plan.cells).map { LayoutPlan.keptFraction($0, in: $1) }
    return (kept.min()!, kept.reduce(0, +) / Double(kept.count))
}

func areaRatio(_ cells: [CellRect]) -> Double {
    let areas = cells.map { Double($0.width * $0.height) }
    return areas.max()! / areas.min()!
}

/// Checks that cells lie inside the canvas, never overlap, and (for a
/// layout that tiles) leave no hole but the gaps and margins: every pixel of
/// the inner area is in exactly one cell, or in a run of uncovered pixels,
/// across or down, no longer than the gap.
func checkTiling(_ plan: LayoutPlan, gap: Int, margin: Int, tiles: Bool,
                 sourceLocation: SourceLocation = #_sourceLocation) {
    let width = plan.canvas.width, height = plan.canvas.height
    var cover = [UInt8](repeating: 0, count: width * height)
    for cell in plan.cells {
        #expect(cell.width > 0 && cell.height > 0 && cell.x >= 0 && cell.y >= 0
                    && cell.x + cell.width <= width && cell.y + cell.height <= height,
                "\(cell) on \(plan.canvas)", sourceLocation: sourceLocation)
        for y in max(0, cell.y)..<min(height, cell.y + cell.height) {
            for x in max(0, cell.x)..<min(width, cell.x + cell.width) { cover[y * width + x] &+= 1 }
        }
    }
    #expect(!cover.contains { $0 > 1 }, "cells overlap on \(plan.canvas)", sourceLocation: sourceLocation)
    guard tiles else { return }
    // A hole larger than the gaps is a (gap + 1)-pixel square of uncovered
    // pixels inside the margins (where two gaps cross, the square is gap
    // wide): counted with a table of running sums.
    let side = gap + 1
    var sums = [Int](repeating: 0, count: (width + 1) * (height + 1))
    for y in 0..<height {
        for x in 0..<width {
            let uncovered = cover[y * width + x] == 0 ? 1 : 0
            sums[(y + 1) * (width + 1) + x + 1] = uncovered + sums[y * (width + 1) + x + 1]
                + sums[(y + 1) * (width + 1) + x] - sums[y * (width + 1) + x]
        }
    }
    guard width - 2 * margin >= side, height - 2 * margin >= side else { return }
    for y in margin...(height - margin - side) {
        for x in margin...(width - margin - side) {
            let count = sums[(y + side) * (width + 1) + x + side] - sums[y * (width + 1) + x + side]
                - sums[(y + side) * (width + 1) + x] + sums[y * (width + 1) + x]
            if count == side * side {
                Issue.record("a hole at \(x),\(y) on \(plan.canvas) (gap \(gap))", sourceLocation: sourceLocation)
                return
            }
        }
    }
}
