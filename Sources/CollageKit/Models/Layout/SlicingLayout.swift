import Foundation

/// `--layout auto`: cells chosen for these photos on this canvas.
///
/// The canvas is cut by a *slicing tree*: each node lays its children side
/// by side or one above the other, down to one photo a cell, so the cells
/// always tile the canvas. Every tree is considered, because there are few:
/// with at most 6 photos there are 2 x 2,752 (a node's children alternate
/// between side by side and stacked, so every arrangement is counted once;
/// the order of a node's children changes where photos sit, not how much of
/// them is kept, so it is fixed to the selection's order, which also keeps
/// photo 1 in the top left cell, as `collage move` promises).
///
/// A photo covering a cell of another shape keeps min(r, 1/r) of itself, r
/// the ratio of the two aspect ratios, and no cell may be more than 4x
/// another's area. For each tree the split positions are chosen to make the
/// least-kept photo keep as much as it can within that ratio:
/// - At its *natural* split every photo keeps its own aspect ratio (side by
///   side, aspect ratios add; stacked, their inverses do), and fitting the
///   tree to the canvas scales its cells by a common factor k across, so
///   every photo keeps min(k, 1/k): no split of that tree does better, so
///   when its cells are within the ratio that is the tree's best.
/// - Otherwise the splits are searched (a pattern search over each child's
///   share, from the natural split, the area ratio a steep penalty), and
///   where the pixels' rounding still breaks the ratio (tiny canvases),
///   evened toward equal shares until it holds; unless no split of the
///   tree can keep what the best tree found keeps (`Splits.canKeep`).
///
/// Trees are tried best bound first: the natural fit, and what the area
/// ratio allows between the children of each split (`Tree.balanced`); once
/// no tree left can beat the best found, the search stops. The best is the
/// one whose least-kept photo keeps most, then the mean, then the more equal
/// cells, then the reading order (top to bottom, left to right) closest to
/// the selection's. Counting the photos' pixels (`countingPixels`, issue
/// #41), a photo the best plan would enlarge past its pixels gets a smaller
/// cell where a plan within `enlargementAllowance` of it allows.
enum SlicingLayout {
    /// The largest cell's area at most this times the smallest's.
    static let maximumAreaRatio = 4.0

    /// What a plan keeps of each photo, to compare plans.
    struct Result {
        let cells: [CellRect]
        let kept: [Double]
        let areaRatio: Double
        let disorder: Int

        var leastKept: Double { kept.min() ?? 0 }
        var meanKept: Double { kept.isEmpty ? 0 : kept.reduce(0, +) / Double(kept.count) }
    }

    /// How far below the best found a tree's bound may be and still be laid
    /// out: gaps and the pixels' rounding move what a tree really keeps a
    /// little from its bound.
    static let boundSlack = 0.005

    /// The best plan on a `width` x `height` area, or nil when no tree gives
    /// every photo a cell of at least one pixel within the area ratio.
    static func best(for photos: [PhotoShape], width: Int, height: Int, gap: Int, countingPixels: Bool = false) -> Result? {
        var searched = 0
        return best(for: photos, width: width, height: height, gap: gap, countingPixels: countingPixels, searched: &searched)
    }

    /// How much less of its least-kept photo a plan may keep than the best
    /// to enlarge its photos less (`countingPixels`): a twentieth of a photo
    /// more cropped for a photo that is not blown up past its pixels.
    static let enlargementAllowance = 0.05
    /// How much less the most-enlarged photo must be enlarged for that:
    /// a tenth, so that a plan is not given up for what a viewer cannot see.
    static let enlargementGain = 0.9

    /// How far the plan blows up its most-enlarged photo: the largest scale,
    /// over its photos, at which a photo covers its cell (1 or less: no
    /// photo is shown larger than its own pixels).
    static func enlargement(_ photos: [PhotoShape], _ cells: [CellRect]) -> Double {
        zip(photos, cells).reduce(0) { most, pair in
            let (photo, cell) = pair
            return max(most, Double(cell.width) / Double(photo.width), Double(cell.height) / Double(photo.height))
        }
    }

    /// The same, counting in `searched` the trees whose splits were
    /// searched (about a thousand layouts each: what the time follows), for
    /// a test to guard.
    ///
    /// `countingPixels` (the shapes are the photos' pixel sizes): where the
    /// best plan shows a photo larger than its own pixels, the plans that
    /// keep at most `enlargementAllowance` less of their least-kept photo
    /// are weighed by how much they enlarge their most-enlarged photo, and
    /// the one that enlarges it least wins when it does so by a tenth
    /// (`enlargementGain`): so a photo with fewer pixels than the others
    /// gets a smaller cell. Where no photo is enlarged nothing changes.
    static func best(for photos: [PhotoShape], width: Int, height: Int, gap: Int, countingPixels: Bool = false,
                     searched: inout Int) -> Result? {
        guard !photos.isEmpty, width > 0, height > 0 else { return nil }
        // More photos than a collage holds never reach a layout (the rules
        // refuse them first); the trees grow as the Bell numbers.
        guard photos.count <= CollageRules.maximumPhotos else { return nil }
        var search = Search(aspects: photos.map(\.aspect))
        let all = (1 << photos.count) - 1
        let roots = photos.count == 1
            ? Array(search.trees(all, across: true))
            : Array(search.trees(all, across: true)) + Array(search.trees(all, across: false))
        let canvasAspect = Double(width) / Double(height)
        // What no split of the tree can beat, in billionths: its natural fit
        // on the canvas, and what the area ratio allows. Rounded, so trees of
        // the same shape over the same photos tie whatever order their
        // aspect ratios were added in.
        func billionths(_ tree: Search.Tree) -> Double {
            let k = canvasAspect / tree.aspect
            return (min(k, 1 / k, tree.balanced) * 1e9).rounded()
        }
        // Best bound first, then the least disorder, then the order of
        // `roots`: one integer a tree (the billionths short of 1, the
        // disorder, the place in `roots`: at most 5,504 trees), so that the
        // ranking sorts integers (sorting tuples with a comparison took a
        // tenth of the time of six photos whose splits need no search).
        let ranked = roots.indices.map { place in
            let tree = search.tree(roots[place])
            return UInt64(1e9 - billionths(tree)) << 34 | UInt64(tree.disorder) << 16 | UInt64(place)
        }.sorted()
        var best: Result?
        // Photos of one shape make many trees of one shape, which keep the
        // same: only the first (in the selection's order) is laid out.
        var shapes: Set<[Double]> = []
        for key in ranked {
            let candidate = roots[Int(key & 0xffff)], bound = (1e9 - Double(key >> 34)) / 1e9
            if let best, bound < best.leastKept - boundSlack { break }
            guard shapes.insert(search.shape(candidate)).inserted else { continue }
            let splits = Splits(candidate, search, photos, width: width, height: height, gap: gap)
            let wanted = best.map { $0.leastKept - boundSlack } ?? 0
            guard let result = splits.best(unlessBelow: wanted, searched: &searched) else { continue }
            if best.map({ isBetter(result, than: $0) }) ?? true { best = result }
        }
        guard countingPixels, let found = best, enlargement(photos, found.cells) > 1 else { return best }
        // The trees again, down to the allowance below the best, each at its
        // own best split; photos of one shape but not one size are told apart.
        let floor = found.leastKept - enlargementAllowance
        func rounded(_ value: Double) -> Int { Int((value * 100).rounded()) }
        var (sharpest, least) = (found, enlargement(photos, found.cells))
        var sizes: Set<[Double]> = []
        for key in ranked {
            let candidate = roots[Int(key & 0xffff)], bound = (1e9 - Double(key >> 34)) / 1e9
            if bound < floor - boundSlack { break }
            guard sizes.insert(search.shape(candidate, sizes: photos)).inserted else { continue }
            let splits = Splits(candidate, search, photos, width: width, height: height, gap: gap)
            guard let result = splits.best(unlessBelow: floor, searched: &searched), result.leastKept >= floor else {
                continue
            }
            let enlarged = enlargement(photos, result.cells)
            if rounded(enlarged) < rounded(least) || (rounded(enlarged) == rounded(least) && isBetter(result, than: sharpest)) {
                (sharpest, least) = (result, enlarged)
            }
        }
        return least <= enlargementGain * enlargement(photos, found.cells) ? sharpest : found
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

    /// One tree on one area, its split positions to be chosen: the splits
    /// in preorder (a parent before its children), each child's share of
    /// its split's length a parameter. A split of k children has k - 1
    /// parameters, the logarithms of children 2...k's lengths over the
    /// first's, so every choice of parameters is a tiling.
    struct Splits {
        typealias Box = (x: Double, y: Double, width: Double, height: Double)
        enum Child { case photo(Int), split(Int) }
        struct Split {
            let across: Bool
            /// Its natural aspect ratio (as `Search.Tree`'s).
            let aspect: Double
            /// Its children in `children`, and where its parameters start.
            let firstChild: Int, childCount: Int, firstParameter: Int
        }

        private(set) var splits: [Split] = []
        private(set) var children: [Child] = []
        let photos: [PhotoShape]
        let width: Int, height: Int, gap: Int
        /// The parameters at the natural split.
        private(set) var natural: [Double] = []

        init(_ tree: Int, _ search: Search, _ photos: [PhotoShape], width: Int, height: Int, gap: Int) {
            self.photos = photos
            (self.width, self.height, self.gap) = (width, height, gap)
            let root = search.tree(tree)
            guard root.childCount > 0 else {
                // One photo: a split of one child.
                splits = [Split(across: true, aspect: root.aspect, firstChild: 0, childCount: 1, firstParameter: 0)]
                children = [.photo(root.set.trailingZeroBitCount)]
                return
            }
            // Splits in preorder: each appended before its children, which
            // are filled in once it is known where they go.
            var pending = [(tree: tree, split: 0)]
            splits.append(Split(across: root.across, aspect: root.aspect, firstChild: 0, childCount: root.childCount,
                                firstParameter: 0))
            while let (index, split) = pending.popLast() {
                let node = search.tree(index)
                let firstChild = children.count
                let nodes = search.children(of: index)
                // Natural lengths: side by side the children's aspect ratios, stacked their inverses.
                let lengths = nodes.map { node.across ? search.tree($0).aspect : 1 / search.tree($0).aspect }
                splits[split] = Split(across: node.across, aspect: node.aspect, firstChild: firstChild, childCount: nodes.count,
                                      firstParameter: natural.count)
                natural += lengths.dropFirst().map { log($0 / lengths[0]) }
                for child in nodes {
                    let childTree = search.tree(child)
                    if childTree.childCount == 0 {
                        children.append(.photo(childTree.set.trailingZeroBitCount))
                    } else {
                        children.append(.split(splits.count))
                        pending.append((child, splits.count))
                        splits.append(Split(across: childTree.across, aspect: childTree.aspect, firstChild: 0, childCount: 0,
                                            firstParameter: 0))
                    }
                }
            }
        }

        /// The cells at these parameters, into `cells` (one per photo):
        /// exact, or to the pixel (each split's lengths rounded as a running
        /// total, so that they meet exactly). False when a cell would have
        /// no area (no pixel). `boxes` holds the splits' boxes on the way.
        func layOut(_ parameters: [Double], pixels: Bool, boxes: inout [Box], cells: inout [Box]) -> Bool {
            layOut(exponentials: parameters.map { exp($0) }, pixels: pixels, boxes: &boxes, cells: &cells)
        }

        /// The same from the parameters' exponentials (each child's length
        /// over its split's first child's). The search keeps them: a move
        /// changes one or two parameters, and the search lays out a tree
        /// about a thousand times.
        func layOut(exponentials: [Double], pixels: Bool, boxes: inout [Box], cells: inout [Box]) -> Bool {
            boxes[0] = (0, 0, Double(width), Double(height))
            let gap = Double(self.gap), smallest = pixels ? 1.0 : .leastNormalMagnitude
            // (At most six children a split: a collage's most photos.)
            var shares = InlineArray<6, Double>(repeating: 1)
            for (index, split) in splits.enumerated() {
                let box = boxes[index], count = split.childCount
                let length = (split.across ? box.width : box.height) - gap * Double(count - 1)
                var total = 1.0
                for parameter in 0..<(count - 1) {
                    shares[parameter + 1] = exponentials[split.firstParameter + parameter]
                    total += shares[parameter + 1]
                }
                var running = 0.0, start = 0.0
                for order in 0..<count {
                    running += shares[order] / total
                    var end = order == count - 1 ? length : length * running
                    if pixels { end = end.rounded() }
                    guard end - start >= smallest else { return false }
                    let offset = start + gap * Double(order)
                    let childBox: Box = split.across
                        ? (box.x + offset, box.y, end - start, box.height)
                        : (box.x, box.y + offset, box.width, end - start)
                    switch children[split.firstChild + order] {
                    case let .photo(photo): cells[photo] = childBox
                    case let .split(next): boxes[next] = childBox
                    }
                    start = end
                }
            }
            return true
        }

        /// What the least-kept photo keeps of itself in these cells, and the cells' area ratio.
        func measure(_ cells: [Box]) -> (leastKept: Double, areaRatio: Double) {
            var least = 1.0, smallest = Double.infinity, largest = 0.0
            for (photo, cell) in zip(photos, cells) {
                let area = cell.width * cell.height
                (smallest, largest) = (min(smallest, area), max(largest, area))
                least = min(least, LayoutPlan.keptFraction(photo, inCellOf: cell.width / cell.height))
            }
            return (least, largest / smallest)
        }

        /// The tree's best plan to the pixel, or nil when no split found
        /// keeps the area ratio with a pixel for every photo, or when its
        /// natural split breaks the ratio and no split can keep `wanted`
        /// of every photo (`canKeep`): then its splits are not searched.
        /// Counts in `searched` when they are.
        func best(unlessBelow wanted: Double, searched: inout Int) -> Result? {
            if let atNatural = result(natural), atNatural.areaRatio <= maximumAreaRatio { return atNatural }
            guard canKeep(wanted) else { return nil }
            searched += 1
            let searched = search(from: natural)
            if let result = result(searched), result.areaRatio <= maximumAreaRatio { return result }
            // Rounding to the pixel broke the ratio: even the shares toward
            // equal until it holds (found by halving), if even equal shares do.
            guard var fits = result(searched.map { _ in 0 }), fits.areaRatio <= maximumAreaRatio else { return nil }
            var (tooUneven, even) = (0.0, 1.0)
            for _ in 0..<7 {
                let middle = (tooUneven + even) / 2
                if let result = result(searched.map { $0 * (1 - middle) }), result.areaRatio <= maximumAreaRatio {
                    (fits, even) = (result, middle)
                } else {
                    tooUneven = middle
                }
            }
            return fits
        }

        /// Whether some split of the tree might keep `least` of every photo
        /// with cells within the area ratio: false only when none can (on
        /// the exact area, without the pixels' rounding). Where every photo
        /// keeps `least`, each cell's aspect ratio is within a factor
        /// `least` of its photo's, so each split's is within that factor of
        /// its natural one (side by side aspect ratios add, stacked their
        /// inverses do); from the canvas down, each child's length along
        /// its split is within what its aspect ratio allows and what its
        /// siblings leave of the split's. Each cell's area is then within
        /// a range, and no split exists when the smallest a cell can be is
        /// more than the ratio times the largest another can be. The bound
        /// the trees are ranked by sees each split's children alone; this
        /// sees the canvas too: a panorama across a portrait canvas whose
        /// row is too thin for the area ratio, and too thin still when
        /// every other cell is as small as its photo allows.
        ///
        /// With gaps, a split's aspect ratio depends on its size as well:
        /// no tree is ruled out.
        func canKeep(_ least: Double) -> Bool {
            guard gap == 0, least > 0 else { return true }
            typealias Range = (low: Double, high: Double)
            // Each split's width and height, known once its parent's are.
            var sizes = InlineArray<6, (width: Range, height: Range)>(repeating: ((0, 0), (0, 0)))
            sizes[0] = ((Double(width), Double(width)), (Double(height), Double(height)))
            // The largest of the cells' least areas, the smallest of their most.
            var (largestLeast, smallestMost) = (0.0, Double.infinity)
            /// The size narrowed to the aspect ratios within `least` of `aspect`; nil when none is.
            func narrowed(_ size: (width: Range, height: Range), _ aspect: Double) -> (width: Range, height: Range)? {
                let (low, high) = (aspect * least, aspect / least)
                let width = (max(size.width.low, size.height.low * low), min(size.width.high, size.height.high * high))
                let height = (max(size.height.low, width.0 / high), min(size.height.high, width.1 / low))
                guard width.0 <= width.1, height.0 <= height.1 else { return nil }
                return ((width.0, width.1), (height.0, height.1))
            }
            for (index, split) in splits.enumerated() {
                guard let size = narrowed(sizes[index], split.aspect) else { return false }
                // Along the split, and the length its children share.
                let (along, shared) = split.across ? (size.width, size.height) : (size.height, size.width)
                func aspect(_ child: Child) -> Double {
                    switch child {
                    case let .photo(photo): photos[photo].aspect
                    case let .split(next): splits[next].aspect
                    }
                }
                // A child's length along the split per unit of the shared
                // length: its aspect ratio side by side, its inverse stacked.
                func perShared(_ child: Child) -> Range {
                    let aspect = aspect(child)
                    return split.across ? (aspect * least, aspect / least) : (least / aspect, 1 / (aspect * least))
                }
                let run = children[split.firstChild..<(split.firstChild + split.childCount)]
                let shortest = run.reduce(0) { $0 + shared.low * perShared($1).low }
                let longest = run.reduce(0) { $0 + shared.high * perShared($1).high }
                for child in run {
                    let own = perShared(child)
                    let length: Range = (max(shared.low * own.low, along.low - (longest - shared.high * own.high)),
                                         min(shared.high * own.high, along.high - (shortest - shared.low * own.low)))
                    guard length.low <= length.high else { return false }
                    let childSize: (width: Range, height: Range) = split.across ? (length, shared) : (shared, length)
                    switch child {
                    case let .split(next): sizes[next] = childSize
                    case let .photo(photo):
                        guard let cell = narrowed(childSize, photos[photo].aspect) else { return false }
                        largestLeast = max(largestLeast, cell.width.low * cell.height.low)
                        smallestMost = min(smallestMost, cell.width.high * cell.height.high)
                    }
                }
            }
            return largestLeast <= maximumAreaRatio * smallestMost
        }

        /// The area ratio the search aims below, so that rounding to the pixel rarely passes 4.
        static let searchedRatio = maximumAreaRatio * 0.998

        /// What the search climbs: what the least-kept photo keeps, less a
        /// steep penalty for the area ratio past the limit, so that moves
        /// along the limit are found. With a `sharpness`, the least and the
        /// largest are soft (log-sum-exp at that sharpness): a ridge
        /// where two photos keep the least, which only a move of several
        /// parameters at once climbs, is rounded into a slope a step of
        /// one or two climbs.
        ///
        /// A score not above `floor` is not wanted (the search only takes a
        /// move that climbs), so it is given up, as -infinity, as soon as a
        /// part of it shows it cannot be: every term after the first takes
        /// something away. Most moves fail on the least-kept photo alone,
        /// before the exponentials and logarithms that are most of the
        /// search's time (the same scores where it goes on, so the same plans).
        func score(_ cells: [Box], sharpness: Double?, above floor: Double = -.infinity) -> Double {
            guard let sharpness else {
                let (least, ratio) = measure(cells)
                guard least > floor else { return -.infinity }
                return least - 20 * max(0, log(ratio / Self.searchedRatio))
            }
            // Soft maxima (log-sum-exp, less the largest term so that no
            // exponential overflows) of what each photo loses, and of each
            // cell's area's logarithm and its negative. (At most six photos.)
            var lostEach = InlineArray<6, Double>(repeating: 0)
            var lostMost = 0.0
            for (index, (photo, cell)) in zip(photos, cells).enumerated() {
                lostEach[index] = 1 - LayoutPlan.keptFraction(photo, inCellOf: cell.width / cell.height)
                lostMost = max(lostMost, lostEach[index])
            }
            guard 1 - lostMost > floor else { return -.infinity }
            var lost = 0.0
            for index in photos.indices { lost += exp(sharpness * (lostEach[index] - lostMost)) }
            // At least 1 (the largest term's), so its logarithm takes away.
            let kept = 1 - lostMost - log(lost) / sharpness
            guard kept > floor else { return -.infinity }
            var logArea = InlineArray<6, Double>(repeating: 0)
            var (largest, smallest) = (-Double.infinity, Double.infinity)
            for (index, cell) in cells.enumerated() {
                logArea[index] = log(cell.width * cell.height)
                (largest, smallest) = (max(largest, logArea[index]), min(smallest, logArea[index]))
            }
            var larger = 0.0, smaller = 0.0
            for index in cells.indices {
                larger += exp(sharpness * (logArea[index] - largest))
                smaller += exp(sharpness * (smallest - logArea[index]))
            }
            let excess = largest - smallest + (log(larger) + log(smaller)) / sharpness - log(Self.searchedRatio)
            // A soft max(0, excess): excess + log(1 + e^(-s excess)) / s, written to stay finite either side.
            let penalty = max(0, excess) + log(1 + exp(-sharpness * abs(excess))) / sharpness
            return kept - 20 * penalty
        }

        /// The parameters at which the least-kept photo keeps most with the
        /// area ratio held: a pattern search (each parameter, then each pair
        /// together, stepped both ways, a move that helped tried again
        /// first; the step halved when no move helps), on the score made
        /// soft, then sharper, then exact.
        func search(from start: [Double]) -> [Double] {
            var boxes = [Box](repeating: (0, 0, 0, 0), count: splits.count)
            var cells = [Box](repeating: (0, 0, 0, 0), count: photos.count)
            let count = start.count
            var moves: [(first: Int, second: Int, a: Double, b: Double)] = []
            for first in 0..<count { moves += [(first, first, 1, 0), (first, first, -1, 0)] }
            for first in 0..<count {
                for second in (first + 1)..<count {
                    for (a, b) in [(1.0, 1.0), (1, -1), (-1, 1), (-1, -1)] { moves.append((first, second, a, b)) }
                }
            }
            var point = start, pointExponentials = start.map { exp($0) }
            for (sharpness, firstStep, lastStep) in [(100.0, 0.5, 0.01), (1000, 0.05, 0.003), (nil, 0.01, 0.001)]
                    as [(Double?, Double, Double)] {
                func value(_ exponentials: [Double], above floor: Double = -.infinity) -> Double {
                    guard layOut(exponentials: exponentials, pixels: false, boxes: &boxes, cells: &cells) else {
                        return -.infinity
                    }
                    return score(cells, sharpness: sharpness, above: floor)
                }
                var (current, step, firstMove) = (value(pointExponentials), firstStep, 0)
                var (next, nextExponentials) = (point, pointExponentials)
                while step >= lastStep {
                    var moved = false
                    for offset in moves.indices {
                        let index = (firstMove + offset) % moves.count, move = moves[index]
                        next[move.first] = point[move.first] + move.a * step
                        next[move.second] += move.b * step
                        nextExponentials[move.first] = exp(next[move.first])
                        if move.second != move.first { nextExponentials[move.second] = exp(next[move.second]) }
                        let nextValue = value(nextExponentials, above: current + 1e-12)
                        if nextValue > current + 1e-12 {
                            (point, pointExponentials, current, moved, firstMove) = (next, nextExponentials, nextValue, true, index)
                            break
                        }
                        (next[move.first], next[move.second]) = (point[move.first], point[move.second])
                        (nextExponentials[move.first], nextExponentials[move.second]) =
                            (pointExponentials[move.first], pointExponentials[move.second])
                    }
                    if !moved { step /= 2 }
                }
            }
            return point
        }

        /// The plan at these parameters, to the pixel; nil when a photo gets no pixel.
        func result(_ parameters: [Double]) -> Result? {
            var boxes = [Box](repeating: (0, 0, 0, 0), count: splits.count)
            var exact = [Box](repeating: (0, 0, 0, 0), count: photos.count)
            guard layOut(parameters, pixels: true, boxes: &boxes, cells: &exact) else { return nil }
            let cells = exact.map { CellRect(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height)) }
            // Reading order: top to bottom, then left to right, by each cell's top left corner.
            let reading = cells.indices.sorted { (cells[$0].y, cells[$0].x) < (cells[$1].y, cells[$1].x) }
            return Result(cells: cells, kept: zip(photos, cells).map { LayoutPlan.keptFraction($0, in: $1) },
                          areaRatio: measure(exact).areaRatio, disorder: disorder(reading))
        }
    }

    /// Every slicing tree over the photos, built once for every set of
    /// photos and direction (memoised) and kept flat: a tree is an index in
    /// `trees`, its children a run of `childTrees`, so that the thousands of
    /// trees of six photos cost no allocation each.
    struct Search {
        struct Tree {
            /// Its photos, a bit mask.
            let set: Int
            /// Its children side by side, or stacked.
            let across: Bool
            /// Its natural aspect ratio: side by side, the children's add;
            /// stacked, their inverses do.
            let aspect: Double
            /// The most its least-kept photo can keep with cells within the
            /// area ratio, whatever the canvas (1 when the ratio does not
            /// bind): where every photo keeps t, every subtree's aspect
            /// ratio is within a factor t of its natural one, so two
            /// children of a split, which share a height, have areas no
            /// nearer than t^2 times their natural ratio; and the largest
            /// cell is at least the mean of one child's, the smallest at
            /// most the other's. (Stacked, they share a width: inverse
            /// aspect ratios.)
            let balanced: Double
            /// How far the order in which it places its photos (depth
            /// first, near enough to reading order to rank trees before
            /// they are laid out) is from the selection's: pairs out of order.
            let disorder: Int
            /// Its children in `childTrees`; none for a photo.
            let firstChild: Int, childCount: Int
        }

        let aspects: [Double]
        private var trees: [Tree] = []
        private var childTrees: [Int] = []
        private var memo: [Int: Range<Int>] = [:]

        /// How many trees a set of k photos has with its root's direction
        /// given (Schröder's fourth problem, OEIS A000311), to make room for
        /// every set's trees at once: growing the flat arrays as they were
        /// filled (copies, and fresh pages each time) was half of a
        /// profile's samples for six photos whose splits need no search.
        static let treesOfSetsOf = [0, 1, 1, 4, 26, 236, 2752]

        init(aspects: [Double]) {
            self.aspects = aspects
            let count = aspects.count
            guard count < Self.treesOfSetsOf.count else { return }
            // Each subset of k photos: its trees either way (a photo alone, one).
            var (all, subsets) = (0, 1)
            for k in 1..<(count + 1) {
                subsets = subsets * (count - k + 1) / k
                all += subsets * (k == 1 ? 1 : 2 * Self.treesOfSetsOf[k])
            }
            trees.reserveCapacity(all)
            // A tree has two or three children (six photos: 2.3 on average).
            childTrees.reserveCapacity(3 * all)
        }

        func tree(_ index: Int) -> Tree { trees[index] }

        func children(of index: Int) -> ArraySlice<Int> {
            let tree = trees[index]
            return childTrees[tree.firstChild..<(tree.firstChild + tree.childCount)]
        }

        /// The tree's shape: what it keeps of photos of these shapes, so
        /// that trees alike but for which of two photos of one shape goes
        /// where are laid out once.
        func shape(_ index: Int) -> [Double] {
            let tree = trees[index]
            if tree.childCount == 0 { return [aspects[tree.set.trailingZeroBitCount]] }
            return children(of: index).reduce([tree.across ? -1 : -2, Double(tree.childCount)]) { $0 + shape($1) }
        }

        /// The same with the photos' pixel sizes, which tell apart photos of
        /// one shape that are not equally enlarged.
        func shape(_ index: Int, sizes: [PhotoShape]) -> [Double] {
            let tree = trees[index]
            if tree.childCount == 0 {
                let photo = sizes[tree.set.trailingZeroBitCount]
                return [-3, Double(photo.width), Double(photo.height)]
            }
            return children(of: index).reduce([tree.across ? -1 : -2, Double(tree.childCount)]) {
                $0 + shape($1, sizes: sizes)
            }
        }

        /// Every tree over the photos in `set` (a bit mask) whose root lays
        /// its children `across` (or stacked), children alternating.
        mutating func trees(_ set: Int, across: Bool) -> Range<Int> {
            let key = set.nonzeroBitCount == 1 ? set << 1 : set << 1 | (across ? 1 : 0)
            if let known = memo[key] { return known }
            if set.nonzeroBitCount == 1 {
                trees.append(Tree(set: set, across: across, aspect: aspects[set.trailingZeroBitCount], balanced: 1,
                                  disorder: 0, firstChild: 0, childCount: 0))
                memo[key] = (trees.count - 1)..<trees.count
                return memo[key]!
            }
            // Each block is one child: a photo, or a tree turned the other way.
            let partitions = Self.partitions(of: set).filter { $0.count >= 2 }
            let choices = partitions.map { $0.map { trees($0, across: !across) } }
            let first = trees.count
            for (blocks, choices) in zip(partitions, choices) {
                // Pairs of photos the blocks' order puts out of order.
                var crossed = 0
                for (position, block) in blocks.enumerated() {
                    for later in blocks[(position + 1)...] {
                        var rest = later
                        while rest != 0 {
                            crossed += (block >> rest.trailingZeroBitCount).nonzeroBitCount
                            rest &= rest - 1
                        }
                    }
                }
                // Every combination of the blocks' trees, counted like an odometer.
                var picked = choices.map(\.lowerBound)
                while true {
                    var total = 0.0, disorder = crossed, balanced = 1.0
                    var fewest = Double.infinity, most = 0.0
                    for (child, block) in zip(picked, blocks) {
                        let tree = trees[child]
                        let length = across ? tree.aspect : 1 / tree.aspect
                        let perPhoto = length / Double(block.nonzeroBitCount)
                        (total, disorder) = (total + length, disorder + tree.disorder)
                        (fewest, most, balanced) = (min(fewest, perPhoto), max(most, perPhoto), min(balanced, tree.balanced))
                    }
                    trees.append(Tree(set: set, across: across, aspect: across ? total : 1 / total,
                                      balanced: min(balanced, (maximumAreaRatio * fewest / most).squareRoot()),
                                      disorder: disorder, firstChild: childTrees.count, childCount: picked.count))
                    childTrees += picked
                    var digit = picked.count - 1
                    while digit >= 0 {
                        picked[digit] += 1
                        if picked[digit] < choices[digit].upperBound { break }
                        picked[digit] = choices[digit].lowerBound
                        digit -= 1
                    }
                    if digit < 0 { break }
                }
            }
            memo[key] = first..<trees.count
            return memo[key]!
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
