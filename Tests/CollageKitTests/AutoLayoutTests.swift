import Foundation
import Testing
@testable import CollageKit

/// Real photo shapes: phones (4:3 and 3:4), video frames (16:9, 9:16), a
/// camera's 3:2, squares, a near square and a panorama.
private let shape: [String: (Int, Int)] = [
    "4:3": (4032, 3024), "3:4": (3024, 4032), "16:9": (1920, 1080), "9:16": (1080, 1920), "3:2": (6000, 4000),
    "1:1": (3000, 3000), "1:1.1": (1000, 1100), "4:1": (8000, 2000),
]

/// The layout test set: what the least-kept photo keeps with `auto` on each
/// of the four canvases (1920x1080, 1080x1920, 3000x500, 1500x1500), as
/// the search finds it (docs/quality.md, "Layouts", has the same table with
/// what `auto` kept before issue #31 and what a brute-force search finds).
private let testSet: [(photos: [String], least: [Double])] = [
    (["4:3", "4:3"], [0.667, 0.844, 0.444, 0.667]),
    (["4:3", "3:4"], [0.853, 0.853, 0.347, 0.480]),
    (["16:9", "4:1"], [0.692, 0.457, 0.963, 0.812]),
    (["4:3", "4:3", "4:3", "1:1.1"], [0.820, 0.909, 0.818, 0.828]),
    (["3:4", "3:4", "3:4"], [0.790, 0.889, 0.375, 0.889]),
    (["16:9", "3:2", "1:1", "3:4"], [0.972, 0.987, 0.837, 0.887]),
    (["4:1", "3:4", "4:3"], [0.984, 0.735, 0.846, 0.730]),
    (["9:16", "16:9", "9:16", "16:9"], [0.882, 0.882, 0.779, 0.854]),
    (["4:3", "4:3", "4:3", "4:3", "4:3"], [0.900, 0.844, 0.900, 0.900]),
    (["3:4", "4:3", "3:4", "4:3", "1:1"], [0.983, 0.983, 0.860, 0.903]),
    (["4:3", "3:4", "16:9", "3:2", "1:1", "4:1"], [0.995, 0.981, 0.969, 0.998]),
    (["3:4", "3:4", "3:4", "3:4", "3:4", "3:4"], [0.790, 1.000, 0.750, 1.000]),
    (["3:2", "3:2", "3:2", "3:2", "3:2", "3:2"], [0.889, 0.889, 0.888, 1.000]),
    (["4:1", "3:4", "4:1", "3:4", "9:16", "4:1"], [0.917, 0.978, 0.787, 0.954]),
]
private let canvases = [(1920, 1080), (1080, 1920), (3000, 500), (1500, 1500)]

/// Checks what every `auto` plan promises: photo 1 in the top left cell,
/// cells that tile the canvas exactly (their areas add up to it and none
/// overlaps), and no cell more than 4x another.
private func checkPromises(_ plan: LayoutPlan, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(plan.cells[0].x == 0 && plan.cells[0].y == 0, "photo 1 at \(plan.cells[0])", sourceLocation: sourceLocation)
    #expect(plan.cells.reduce(0) { $0 + $1.width * $1.height } == plan.canvas.width * plan.canvas.height,
            "\(plan.cells) on \(plan.canvas)", sourceLocation: sourceLocation)
    checkTiling(plan, gap: 0, margin: 0, tiles: true, sourceLocation: sourceLocation)
    #expect(areaRatio(plan.cells) <= SlicingLayout.maximumAreaRatio, "\(plan.cells)", sourceLocation: sourceLocation)
}

@Suite struct AutoLayoutTests {
    /// Issue #31's bad case: three 4:3 photos and a near square on a phone's
    /// screen became four full-width strips keeping 49-52% of each. Photo 1
    /// on top, 2 and 4 side by side, 3 below, keeps 90.9% of the least kept
    /// (91.4% at natural proportions, but with cells 4.15x unequal: the
    /// splits moved to bring them within 4x).
    @Test func threeLandscapesAndANearSquareOnAPortraitCanvas() throws {
        let photos = shapes([shape["4:3"]!, shape["4:3"]!, shape["4:3"]!, shape["1:1.1"]!])
        let auto = try plan(photos, 1080, 1920, .auto)
        #expect(auto.cells == [
            CellRect(x: 0, y: 0, width: 1080, height: 736), CellRect(x: 0, y: 736, width: 633, height: 448),
            CellRect(x: 0, y: 1184, width: 1080, height: 736), CellRect(x: 633, y: 736, width: 447, height: 448),
        ])
        #expect(kept(auto, photos).least > 0.908)
        checkPromises(auto)
    }

    /// Issue #41: of six photos, five 640x480 and one 160x120 (fifth), the
    /// 160x120 one was given a large cell and blown up 4x past its pixels.
    /// It gets the smallest cell (a quarter of the largest, the area ratio's
    /// limit), within 0.05 of the least kept by the best plan for their
    /// shapes alone (which gives it a larger one).
    @Test func aPhotoWithFewerPixelsGetsTheSmallestCell() throws {
        let photos = shapes([(640, 480), (640, 480), (640, 480), (640, 480), (160, 120), (640, 480)])
        let byShape = try #require(SlicingLayout.best(for: photos, width: 1920, height: 1080, gap: 0))
        let auto = try plan(photos, 1920, 1080, .auto)
        let areas = auto.cells.map { $0.width * $0.height }
        #expect(areas[4] == areas.min()! && areas[4] < areas.max()!, "\(auto.cells)")
        #expect(byShape.cells[4].width * byShape.cells[4].height > areas[4])
        #expect(kept(auto, photos).least >= byShape.leastKept - SlicingLayout.enlargementAllowance)
        #expect(SlicingLayout.enlargement(photos, auto.cells) <= 0.9 * SlicingLayout.enlargement(photos, byShape.cells))
        checkPromises(auto)
        // Photos with pixels enough for any cell are placed by their shapes alone, as before.
        let large = shapes(Array(repeating: (6400, 4800), count: 6))
        #expect(try plan(large, 1920, 1080, .auto).cells == SlicingLayout.best(for: large, width: 1920, height: 1080, gap: 0)?.cells)
    }

    @Test("the test set: what the least-kept photo keeps, and the promises", arguments: testSet.indices)
    func testSetCase(index: Int) throws {
        let (names, least) = testSet[index]
        let photos = shapes(names.map { shape[$0]! })
        for ((width, height), expected) in zip(canvases, least) {
            let auto = try plan(photos, width, height, .auto)
            let found = kept(auto, photos).least
            #expect(abs(found - expected) < 0.0015, "\(names) on \(width)x\(height): \(found) \(auto.cells)")
            checkPromises(auto)
        }
    }

    @Test("photo 1 stays top left with gaps and margins, and every gap is the gap", arguments: [
        (1920, 1080, 10, 20), (1080, 1920, 7, 0), (3000, 500, 4, 13),
    ])
    func gapsAndMargins(width: Int, height: Int, gap: Int, margin: Int) throws {
        for (names, _) in testSet {
            let auto = try plan(shapes(names.map { shape[$0]! }), width, height, .auto, gap: gap, margin: margin)
            #expect(auto.cells[0].x == margin && auto.cells[0].y == margin)
            #expect(areaRatio(auto.cells) <= SlicingLayout.maximumAreaRatio)
            checkTiling(auto, gap: gap, margin: margin, tiles: true)
        }
    }

    /// What keeps the search fast, counted rather than timed: the trees
    /// whose splits are searched, about a thousand layouts each. The mixed
    /// six on a phone's screen searched 38 trees before trees that no split
    /// can make keep as much as the best found were ruled out (on the
    /// landscape canvas, 15); six photos of one shape on a canvas they do
    /// not fit search 16 (the first trees ranked, before any best is found).
    @Test func theSearchSearchesFewTrees() {
        let mixed = ["3:4", "3:4", "4:3", "4:3", "4:1", "1:1"]
        for (names, width, height, most) in [(mixed, 1080, 1920, 15), (mixed, 1920, 1080, 3),
                                             (Array(repeating: "4:3", count: 6), 1080, 1920, 16)] {
            var searched = 0
            let found = SlicingLayout.best(for: shapes(names.map { shape[$0]! }), width: width, height: height, gap: 0,
                                           searched: &searched)
            #expect(found != nil && searched <= most, "\(names) on \(width)x\(height): \(searched) trees searched")
        }
    }

    /// The search against a brute force over the same family: every tree,
    /// its split positions on a grid, then on finer grids around the best
    /// points found, the area ratio a hard limit. On random shapes and
    /// canvases (seeded), the search's least-kept photo keeps within 1% of
    /// the brute force's (which is exact, not to the pixel; the search was
    /// 0.63% short of it at worst here, where it settles on a ridge of
    /// three parameters).
    @Test func theSearchKeepsAsMuchAsABruteForce() {
        var generator = SeededNumbers(seed: 31)
        for _ in 0..<8 {
            let count = 2 + Int(generator.next() * 3)
            let photos = (0..<count).map { _ in PhotoShape(width: Int(1000 * exp((generator.next() - 0.5) * 2.8)), height: 1000) }
            let width = 200 + Int(generator.next() * 3000), height = 200 + Int(generator.next() * 3000)
            let found = SlicingLayout.best(for: photos, width: width, height: height, gap: 0)?.leastKept ?? 0
            let brute = bruteForce(photos, width: width, height: height, above: found + 0.01)
            #expect(brute == nil, "\(photos.map(\.aspect)) on \(width)x\(height): \(found), brute force \(brute ?? 0)")
        }
    }
}

/// A linear congruential generator: the same shapes on every run.
private struct SeededNumbers {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    /// A number in [0, 1).
    mutating func next() -> Double {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Double(state >> 11) / 9007199254740992.0
    }
}

/// The best least-kept fraction a brute force finds above `floor`, or nil:
/// trees whose natural fit keeps no more than the floor are skipped (no
/// split of a tree beats its natural fit).
private func bruteForce(_ photos: [PhotoShape], width: Int, height: Int, above floor: Double) -> Double? {
    var search = SlicingLayout.Search(aspects: photos.map(\.aspect))
    let all = (1 << photos.count) - 1
    let roots = Array(search.trees(all, across: true)) + Array(search.trees(all, across: false))
    let canvas = Double(width) / Double(height)
    var best: Double?
    for root in roots {
        let k = canvas / search.tree(root).aspect
        guard min(k, 1 / k) > max(floor, best ?? 0) else { continue }
        let splits = SlicingLayout.Splits(root, search, photos, width: width, height: height, gap: 0)
        var boxes = [SlicingLayout.Splits.Box](repeating: (0, 0, 0, 0), count: splits.splits.count)
        var cells = [SlicingLayout.Splits.Box](repeating: (0, 0, 0, 0), count: photos.count)
        func value(_ parameters: [Double]) -> Double {
            guard splits.layOut(parameters, pixels: false, boxes: &boxes, cells: &cells) else { return -1 }
            let (least, ratio) = splits.measure(cells)
            return ratio <= SlicingLayout.maximumAreaRatio ? least : -1
        }
        let dimensions = splits.natural.count, points = dimensions <= 2 ? 17 : 9
        // The best few points of a grid of `points` a side, `half` either side of `centre`.
        func grid(_ centre: [Double], _ half: Double) -> [(value: Double, point: [Double])] {
            var found: [(value: Double, point: [Double])] = []
            var index = [Int](repeating: 0, count: dimensions)
            while true {
                let point = (0..<dimensions).map { centre[$0] - half + 2 * half * Double(index[$0]) / Double(points - 1) }
                let score = value(point)
                if score > 0 { found.append((score, point)) }
                var digit = dimensions - 1
                while digit >= 0 {
                    index[digit] += 1
                    if index[digit] < points { break }
                    index[digit] = 0
                    digit -= 1
                }
                if digit < 0 { break }
            }
            return Array(found.sorted { $0.value > $1.value }.prefix(3))
        }
        var candidates = grid(splits.natural, 4), half = 4.0
        for _ in 0..<6 {
            half *= 2.5 / Double(points - 1)
            candidates = Array(candidates.flatMap { grid($0.point, half) }.sorted { $0.value > $1.value }.prefix(3))
        }
        if let top = candidates.first?.value, top > max(floor, best ?? 0) { best = top }
    }
    return best
}
