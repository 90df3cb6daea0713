/// `--layout auto`: cells chosen for these photos on this canvas.
///
/// The canvas is cut by a *slicing tree*: each node lays its children side
/// by side or one above the other, down to one photo a cell, so the cells
/// always tile the canvas. The search is exhaustive, because it is small:
/// with at most 6 photos there are 2 x 2,752 trees (a node's children
/// alternate between side by side and stacked, so every arrangement is
/// counted once; the order of a node's children changes where photos sit,
/// not how much of them is kept, so it is fixed to the selection's order).
/// A branch-and-bound or greedy search would need a bound on how much a
/// partial tree can keep; exhaustive needs none and is never wrong.
///
/// Each tree has a natural shape: the one in which every photo keeps its
/// own aspect ratio (side by side, aspect ratios add; stacked, their
/// inverses do). Fitting the tree to the canvas scales its cells by a common
/// factor k (canvas aspect / natural aspect) across, so every photo keeps
/// min(k, 1/k) of itself. Trees are ranked by that, and the best are then
/// laid out to the pixel (gaps, rounding) and ranked by what they really
/// keep: the least any photo keeps, then the mean, then the more equal
/// cells, then the reading order (top to bottom, left to right) closest to
/// the selection's. No cell may be more than 4x another: a tree whose
/// natural cells are more unequal than that is left out, and only when no
/// tree fits (a panorama beside a portrait: 5x in every arrangement) are
/// all of them tried with their splits evened toward equal shares, just
/// enough to fit.
enum SlicingLayout {
    /// The largest cell's area at most this times the smallest's.
    static let maximumAreaRatio = 4.0

    /// A node of a slicing tree: a photo (its index), or children side by
    /// side (`across`) or stacked.
    indirect enum Node: Equatable {
        case photo(Int)
        /// With the children's natural aspect ratio, so laying out does not add them up again.
        case split(across: Bool, [Node], aspect: Double)
    }

    /// A tree with its natural aspect ratio and its cells' smallest and
    /// largest share of its area.
    struct Tree {
        let node: Node
        let aspect: Double
        let smallestShare: Double
        let largestShare: Double
        /// Photos in the order the tree places them (depth first): near
        /// enough to reading order to rank trees before they are laid out.
        let order: [Int]
    }

    /// What a plan keeps of each photo, to compare plans.
    struct Result {
        let node: Node
        let cells: [CellRect]
        let kept: [Double]
        let areaRatio: Double
        let disorder: Int

        var leastKept: Double { kept.min() ?? 0 }
        var meanKept: Double { kept.isEmpty ? 0 : kept.reduce(0, +) / Double(kept.count) }
    }

    /// How many of the naturally best trees (that fit at all) are laid out to the pixel.
    static let exactCandidates = 48

    /// The best plan on a `width` x `height` area, or nil when no tree gives
    /// every photo a cell of at least one pixel within the area ratio.
    static func best(for photos: [PhotoShape], width: Int, height: Int, gap: Int) -> Result? {
        guard !photos.isEmpty, width > 0, height > 0 else { return nil }
        // More photos than a collage holds never reach a layout (the rules
        // refuse them first); the search would grow as the Bell numbers.
        guard photos.count <= CollageRules.maximumPhotos else { return nil }
        // First the trees whose natural cells are within the area ratio
        // (the rest pruned as they are built: joining never evens cells);
        // only when none fits, every tree, evened to fit.
        return search(photos, width: width, height: height, gap: gap, evening: false)
            ?? search(photos, width: width, height: height, gap: gap, evening: true)
    }

    static func search(_ photos: [PhotoShape], width: Int, height: Int, gap: Int, evening: Bool) -> Result? {
        var search = Search(aspects: photos.map(\.aspect), prune: !evening)
        let all = (1 << photos.count) - 1
        let trees = photos.count == 1
            ? search.trees(all, across: true)
            : search.trees(all, across: true) + search.trees(all, across: false)
        let canvasAspect = Double(width) / Double(height)
        // Rank by the natural fit, then by more equal cells and the selection's order.
        // Rounded, so trees of the same shape over the same photos tie
        // whatever order their aspect ratios were added in.
        func natural(_ tree: Tree) -> Double {
            let k = canvasAspect / tree.aspect
            return (min(k, 1 / k) * 1e9).rounded() / 1e9
        }
        let ranked = trees.map { (tree: $0, kept: natural($0), disorder: disorder($0.order)) }
            .sorted { a, b in
                if a.kept != b.kept { return a.kept > b.kept }
                let ratioA = a.tree.largestShare / a.tree.smallestShare, ratioB = b.tree.largestShare / b.tree.smallestShare
                if ratioA != ratioB { return ratioA < ratioB }
                return a.disorder < b.disorder
            }
        // Laid out to the pixel, best first, until the best few that fit
        // at all are done and no tree left can keep more than the best
        // found (what a tree keeps at its natural split bounds what it
        // keeps laid out, up to rounding).
        var best: Result?, laidOut = 0
        for candidate in ranked {
            if laidOut >= exactCandidates, let best, candidate.kept < best.leastKept - 0.001 { break }
            let laid = evening
                ? fitted(candidate.tree, photos, width: width, height: height, gap: gap)
                : layOut(candidate.tree, photos, width: width, height: height, gap: gap)
            guard let result = laid, result.areaRatio <= maximumAreaRatio else { continue }
            laidOut += 1
            if best.map({ isBetter(result, than: $0) }) ?? true { best = result }
        }
        return best
    }

    /// The tree laid out within the area ratio: at its natural split if
    /// that is within it, else with its splits evened just enough (found
    /// by halving), since a panorama beside a portrait has cells 5x
    /// unequal in every arrangement at their natural split. Nil when even
    /// equal splits leave the cells too unequal, or a photo no pixel.
    static func fitted(_ tree: Tree, _ photos: [PhotoShape], width: Int, height: Int, gap: Int) -> Result? {
        func layOut(_ evening: Double) -> Result? {
            Self.layOut(tree, photos, width: width, height: height, gap: gap, evening: evening)
        }
        if let natural = layOut(0), natural.areaRatio <= maximumAreaRatio { return natural }
        guard var fits = layOut(1), fits.areaRatio <= maximumAreaRatio else { return nil }
        var (tooUneven, even) = (0.0, 1.0)
        for _ in 0..<7 {
            let middle = (tooUneven + even) / 2
            if let result = layOut(middle), result.areaRatio <= maximumAreaRatio {
                (fits, even) = (result, middle)
            } else {
                tooUneven = middle
            }
        }
        return fits
    }

    /// Compares what two plans keep, to a tenth of a percent (finer
    /// differences are rounding), then their cells' evenness and order.
    static func isBetter(_ a: Result, than b: Result) -> Bool {
        func rounded(_ value: Double) -> Int { Int((value * 1000).rounded()) }
        if rounded(a.leastKept) != rounded(b.leastKept) { return a.leastKept > b.leastKept }
        if rounded(a.meanKept) != rounded(b.meanKept) { return a.meanKept > b.meanKept }
        if (a.areaRatio * 100).rounded() != (b.areaRatio * 100).rounded() { return a.areaRatio < b.areaRatio }
        return a.disorder < b.disorder
    }

    /// How far an order is from the selection's: the pairs out of order.
    static func disorder(_ order: [Int]) -> Int {
        var count = 0
        for i in order.indices {
            for j in order.indices where j > i && order[j] < order[i] { count += 1 }
        }
        return count
    }

    /// The tree laid out on the area to the pixel: each node splits its
    /// length, less the gaps, in proportion to its children's natural
    /// lengths (moved `evening` of the way to equal lengths), rounding the
    /// running total so the cells meet exactly. Nil when a photo would get
    /// no pixel; the area ratio is the caller's to check.
    static func layOut(_ tree: Tree, _ photos: [PhotoShape], width: Int, height: Int, gap: Int,
                       evening: Double = 0) -> Result? {
        var cells = [CellRect](repeating: CellRect(x: 0, y: 0, width: 0, height: 0), count: photos.count)
        func aspect(_ node: Node) -> Double {
            switch node {
            case let .photo(index): return photos[index].aspect
            case let .split(_, _, aspect): return aspect
            }
        }
        func place(_ node: Node, _ box: CellRect) -> Bool {
            guard box.width > 0, box.height > 0 else { return false }
            guard case let .split(across, children, aspect: whole) = node else {
                if case let .photo(index) = node { cells[index] = box }
                return true
            }
            let length = (across ? box.width : box.height) - gap * (children.count - 1)
            var running = 0.0, start = 0
            for (index, child) in children.enumerated() {
                // Each child's share: its natural one (side by side, its
                // aspect ratio's share of the whole's; stacked, the
                // inverse's), moved `evening` of the way to an equal one.
                let natural = across ? aspect(child) / whole : whole / aspect(child)
                running += (1 - evening) * natural + evening / Double(children.count)
                // Lengths without the gaps, rounded as a running total so
                // that they add up to the whole.
                let end = index == children.count - 1 ? length : Int((Double(length) * running).rounded())
                let offset = start + gap * index
                let childBox = across
                    ? CellRect(x: box.x + offset, y: box.y, width: end - start, height: box.height)
                    : CellRect(x: box.x, y: box.y + offset, width: box.width, height: end - start)
                guard place(child, childBox) else { return false }
                start = end
            }
            return true
        }
        guard place(tree.node, CellRect(x: 0, y: 0, width: width, height: height)) else { return nil }
        let areas = cells.map { Double($0.width * $0.height) }
        let ratio = areas.max()! / areas.min()!
        // Reading order: top to bottom, then left to right, by each cell's top left corner.
        let reading = cells.indices.sorted { (cells[$0].y, cells[$0].x) < (cells[$1].y, cells[$1].x) }
        return Result(node: tree.node, cells: cells,
                      kept: zip(photos, cells).map { LayoutPlan.keptFraction($0, in: $1) },
                      areaRatio: ratio, disorder: disorder(reading))
    }

    /// The trees over a set of photos, memoised by set and root direction.
    struct Search {
        let aspects: [Double]
        private var memo: [Int: [Tree]] = [:]

        /// Whether subtrees whose natural cells are already too unequal are dropped.
        let prune: Bool

        init(aspects: [Double], prune: Bool) {
            self.aspects = aspects
            self.prune = prune
        }

        /// Every tree over the photos in `set` (a bit mask) whose root lays
        /// its children `across` (or stacked), children alternating.
        mutating func trees(_ set: Int, across: Bool) -> [Tree] {
            if set.nonzeroBitCount == 1 {
                let index = set.trailingZeroBitCount
                return [Tree(node: .photo(index), aspect: aspects[index], smallestShare: 1, largestShare: 1, order: [index])]
            }
            let key = set << 1 | (across ? 1 : 0)
            if let known = memo[key] { return known }
            var result: [Tree] = []
            for blocks in Self.partitions(of: set) where blocks.count >= 2 {
                // Each block is one child: a photo, or a tree turned the other way.
                let choices = blocks.map { trees($0, across: !across) }
                var picked: [Tree] = []
                func combine(_ depth: Int) {
                    if depth == choices.count {
                        let tree = Self.join(picked, across: across)
                        // A little over the limit is kept: gaps and rounding
                        // move the real cells, which are checked exactly.
                        if !prune || tree.largestShare <= tree.smallestShare * maximumAreaRatio * 1.05 {
                            result.append(tree)
                        }
                        return
                    }
                    for tree in choices[depth] {
                        picked.append(tree)
                        combine(depth + 1)
                        picked.removeLast()
                    }
                }
                combine(0)
            }
            memo[key] = result
            return result
        }

        /// Children side by side (or stacked) as one tree.
        static func join(_ children: [Tree], across: Bool) -> Tree {
            let weights = children.map { across ? $0.aspect : 1 / $0.aspect }
            let total = weights.reduce(0, +)
            var smallest = Double.infinity, largest = 0.0
            for (child, weight) in zip(children, weights) {
                smallest = min(smallest, child.smallestShare * weight / total)
                largest = max(largest, child.largestShare * weight / total)
            }
            return Tree(node: .split(across: across, children.map(\.node), aspect: across ? total : 1 / total),
                        aspect: across ? total : 1 / total,
                        smallestShare: smallest, largestShare: largest,
                        order: children.flatMap(\.order))
        }

        /// The ways of dividing a set into non-empty blocks, each block
        /// listed by its lowest member, lowest first (so children keep the
        /// selection's order).
        static func partitions(of set: Int) -> [[Int]] {
            guard set != 0 else { return [[]] }
            let lowest = set & -set
            let rest = set & ~lowest
            var result: [[Int]] = []
            // Every subset of the rest joins the lowest member's block.
            var subset = rest
            while true {
                let block = lowest | subset
                for others in partitions(of: rest & ~subset) { result.append([block] + others) }
                if subset == 0 { break }
                subset = (subset - 1) & rest
            }
            return result
        }
    }
}
