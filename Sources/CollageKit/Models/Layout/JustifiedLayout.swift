import Foundation

/// `--layout rows` and `columns`: justified rows, as photo galleries lay
/// them out. The photos, in the selection's order, are cut into rows; every
/// photo of a row has the row's height and its own aspect ratio (or, on a
/// fixed canvas, nearly: see below), and each row fills the width.
/// `columns` is the same turned.
///
/// Of the ways to cut the photos into rows (at most 2^5 = 32), the one
/// that fills best wins. With both sides given, filling is the share of the
/// canvas covered (rows too tall are scaled down to fit, and the rest of the
/// canvas is background). Each cut is tried with the photos whole and, as
/// justified galleries do, with every cell's aspect ratio its photo's times
/// one factor from 0.9 to 1/0.9 (`stretch`: a tenth of a side cropped at
/// most, the photos then cover their cells) that brings the rows nearest the
/// canvas's height (issue #41: whole photos left columns on a landscape
/// canvas one large photo and a strip, rows on a portrait one bands of
/// background). `bestOnCanvas` chooses: cells within the area ratio where
/// that keeps three quarters of the best cover, the cuts covering 90% of
/// the canvas, whole where whole photos cover 95%, then the most equal rows.
/// With only the width given (`--size 1920x`) nothing is left empty or
/// cropped, the height follows from the
/// photos, and filling is coming near the default canvas's proportion
/// (16:9), weighed with evenness (their product with the square root of the
/// lowest row's height over the tallest's; ties go to fewer rows): a
/// landscape alone across, the rest in a strip below it, is hardly a row
/// layout.
enum JustifiedLayout {
    static func plan(_ photos: [PhotoShape], _ request: LayoutRequest) throws(LayoutError)
        -> (canvas: CanvasSize, cells: [CellRect], cropped: Bool) {
        guard request.layout == .columns else { return try rows(photos, request) }
        // Columns are rows of the turned photos on the turned canvas.
        var turned = request
        turned.size = try LayoutError.size(width: request.size.height, height: request.size.width)
        let plan = try rows(photos.map { PhotoShape(width: $0.height, height: $0.width) }, turned)
        return (try LayoutError.canvas(width: plan.canvas.height, height: plan.canvas.width),
                plan.cells.map { CellRect(x: $0.y, y: $0.x, width: $0.height, height: $0.width) }, plan.cropped)
    }

    /// One way of cutting the photos into rows: the photos of each row.
    struct Cut {
        let rows: [Range<Int>]
        /// Each row's sum of aspect ratios: its width at a height of one.
        let widths: [Double]
        /// The factor on every photo's aspect ratio its cell has (1: whole photos).
        var stretch = 1.0

        /// The same rows with every cell `factor` times its photo's aspect ratio.
        func stretched(by factor: Double) -> Cut {
            Cut(rows: rows, widths: widths.map { $0 * factor / stretch }, stretch: factor)
        }
    }

    static func rows(_ photos: [PhotoShape], _ request: LayoutRequest) throws(LayoutError)
        -> (canvas: CanvasSize, cells: [CellRect], cropped: Bool) {
        let turned = request.layout == .columns
        // CollageLayout.body refuses a side left open that this layout cannot work out.
        guard let width = request.size.width else { preconditionFailure("rows need the width: refused by CollageLayout.body") }
        let margin = request.margin, gap = request.gap
        let innerWidth = width - 2 * margin
        let innerHeight = request.size.height.map { $0 - 2 * margin }
        let size = request.size.height.map { "\(turned ? $0 : width)x\(turned ? width : $0)" }
            ?? (turned ? "x\(width)" : "\(width)x")
        if photos.isEmpty {
            return (try LayoutError.canvas(width: width, height: request.size.height ?? width * 9 / 16), [], false)
        }
        guard innerWidth > 0, innerHeight.map({ $0 > 0 }) ?? true else {
            throw LayoutError.noRoom(photos.count, request, size)
        }

        var candidates: [Candidate] = []
        for cut in cuts(photos) {
            // Each cut whole, and (a fixed canvas, photos covering their
            // cells) stretched to fill it as far as a crop of at most
            // `maximumCrop` of a side allows.
            var stretches = [1.0]
            if let innerHeight, request.fit == .cover, let stretch = stretch(cut, innerWidth: innerWidth, innerHeight: innerHeight, gap: gap) {
                stretches.append(stretch)
            }
            for stretch in stretches {
                let cut = cut.stretched(by: stretch)
                guard let blockWidth = blockWidth(cut, innerWidth: innerWidth, innerHeight: innerHeight, gap: gap),
                      let block = block(cut, photos, width: blockWidth, gap: gap) else { continue }
                if innerHeight == nil && block.height + 2 * margin > CanvasSize.maximumSide { continue }
                // How well the rows fill: with both sides, the share of the
                // canvas they cover; with one, how near the default canvas's
                // proportion they come.
                let fill: Double
                if let innerHeight {
                    fill = Double(block.width * min(block.height, innerHeight)) / Double(innerWidth * innerHeight)
                } else {
                    let target = Double(innerWidth) * Double(CanvasSize.default.height) / Double(CanvasSize.default.width)
                    fill = min(Double(block.height) / target, target / Double(block.height))
                }
                let heights = cut.widths.map { 1 / $0 }
                let areas = block.cells.map { $0.width * $0.height }
                candidates.append(Candidate(block: block, fill: fill, evenness: heights.min()! / heights.max()!,
                                            rows: cut.rows.count, stretch: stretch,
                                            areaRatio: Double(areas.max()!) / Double(max(1, areas.min()!))))
            }
        }
        let best = innerHeight == nil ? bestWithOneSide(candidates) : bestOnCanvas(candidates)
        guard let best else { throw LayoutError.noRoom(photos.count, request, size) }
        let block = best.block
        // The block in the middle of the canvas, inside the margins.
        let canvasHeight = request.size.height ?? block.height + 2 * margin
        let left = margin + (innerWidth - block.width) / 2
        let top = margin + ((canvasHeight - 2 * margin) - block.height) / 2
        return (try LayoutError.canvas(width: width, height: canvasHeight),
                block.cells.map { CellRect(x: $0.x + left, y: $0.y + top, width: $0.width, height: $0.height) },
                best.stretch != 1)
    }

    /// The most a photo of rows or columns on a fixed canvas is cropped, a
    /// share of one side: as justified galleries do, the rows may crop a
    /// little of each photo where whole photos would leave the canvas
    /// emptier than `enoughFill`.
    static let maximumCrop = 0.1
    /// A canvas filled this far by whole photos has them whole.
    static let enoughFill = 0.95
    /// Cuts that cover this much of the canvas are the ones compared on
    /// their cells' evenness (all of them where none does).
    static let wellFilled = 0.9
    /// Cells within the area ratio are kept to where they cover at least
    /// this share of what the best cut covers.
    static let balancedCover = 0.75

    /// One way of laying the photos out, and how well it does.
    struct Candidate {
        let block: Block
        let fill: Double, evenness: Double
        let rows: Int
        /// The cells' aspect ratios over their photos' (1: whole photos).
        let stretch: Double
        /// The largest cell's area over the smallest's.
        let areaRatio: Double
    }

    /// One side open: fill and evenness weighed together, the photos whole.
    static func bestWithOneSide(_ candidates: [Candidate]) -> Candidate? {
        func score(_ candidate: Candidate) -> Double { (candidate.fill * candidate.evenness.squareRoot() * 1e6).rounded() }
        return candidates.min { a, b in score(a) != score(b) ? score(a) > score(b) : a.rows < b.rows }
    }

    /// A fixed canvas: the cuts whose cells are within
    /// `SlicingLayout.maximumAreaRatio` of each other, where one of them
    /// covers at least `balancedCover` of what the best cut covers (one
    /// large photo and a strip of small ones is not worth a little more of
    /// the canvas; a canvas left half empty is); of those, the ones that cover
    /// `wellFilled` of the canvas (where none does, those within 1% of the
    /// most); whole photos where they cover `enoughFill`, else the stretched
    /// cuts too; then the most even of those that fill within 1% of the best
    /// (then the least cropped, then fewer rows).
    static func bestOnCanvas(_ candidates: [Candidate]) -> Candidate? {
        let mostFill = candidates.map(\.fill).max() ?? 0
        let withinRatio = candidates.filter { $0.areaRatio <= SlicingLayout.maximumAreaRatio }
        let balancedFill = withinRatio.map(\.fill).max() ?? 0
        var pool = balancedFill >= balancedCover * mostFill ? withinRatio : candidates
        let poolFill = pool.map(\.fill).max() ?? 0
        pool = pool.filter { $0.fill >= min(wellFilled, poolFill * 0.99) }
        let whole = pool.filter { $0.stretch == 1 }
        if let fill = whole.map(\.fill).max(), fill >= enoughFill { pool = whole }
        let bestFill = pool.map(\.fill).max() ?? 0
        func evenness(_ candidate: Candidate) -> Double { (candidate.evenness * 1e6).rounded() }
        func crop(_ candidate: Candidate) -> Double { abs(log(candidate.stretch)) }
        return pool.filter { $0.fill >= bestFill * 0.99 }.min { a, b in
            if evenness(a) != evenness(b) { return evenness(a) > evenness(b) }
            if crop(a) != crop(b) { return crop(a) < crop(b) }
            return a.rows < b.rows
        }
    }

    /// The factor on the photos' aspect ratios (within what `maximumCrop`
    /// allows: 0.9 crops a tenth of each photo's width, 1/0.9 of its height)
    /// at which the cut's rows, across the whole width, are as tall as the
    /// canvas; nil when the photos whole already are (to the pixel).
    static func stretch(_ cut: Cut, innerWidth: Int, innerHeight: Int, gap: Int) -> Double? {
        // The rows' height is (their heights at a stretch of 1) / stretch, plus the gaps between them.
        let gaps = Double(gap * (cut.rows.count - 1))
        let rows = Double(naturalHeight(cut, width: Double(innerWidth), gap: gap)) - gaps
        guard rows > 0, Double(innerHeight) - gaps > 0 else { return nil }
        let wanted = rows / (Double(innerHeight) - gaps)
        let stretch = min(1 / (1 - maximumCrop), max(1 - maximumCrop, wanted))
        return abs(stretch - 1) < 1e-9 ? nil : stretch
    }

    /// The rows laid out from (0, 0), to the pixel.
    struct Block {
        let width: Int
        let height: Int
        let cells: [CellRect]
    }

    /// The cut at a block width, to the pixel: row heights rounded as a
    /// running total, and within a row the widths likewise, so the pieces
    /// meet exactly. Nil when a photo would get no pixel.
    static func block(_ cut: Cut, _ photos: [PhotoShape], width: Int, gap: Int) -> Block? {
        let rowHeights = roundedRunning(cut.rows.indices.map { exactHeight(cut, row: $0, width: Double(width), gap: gap) })
        var cells: [CellRect] = [], top = 0
        for (row, photosOfRow) in cut.rows.enumerated() {
            let available = width - gap * (photosOfRow.count - 1)
            let widths = roundedRunning(photosOfRow.map { photos[$0].aspect * cut.stretch * Double(available) / cut.widths[row] })
            guard rowHeights[row] > 0, widths.allSatisfy({ $0 > 0 }) else { return nil }
            var x = 0
            for cellWidth in widths {
                cells.append(CellRect(x: x, y: top, width: cellWidth, height: rowHeights[row]))
                x += cellWidth + gap
            }
            top += rowHeights[row] + gap
        }
        return Block(width: width, height: top - gap, cells: cells)
    }

    /// Every way of cutting the photos, in order, into rows.
    static func cuts(_ photos: [PhotoShape]) -> [Cut] {
        let count = photos.count
        return (0..<(1 << (count - 1))).map { breaks in
            var rows: [Range<Int>] = [], start = 0
            for index in 1..<count + 1 where index == count || breaks & (1 << (index - 1)) != 0 {
                rows.append(start..<index)
                start = index
            }
            return Cut(rows: rows, widths: rows.map { $0.reduce(0) { $0 + photos[$1].aspect } })
        }
    }

    /// The height of row `row` at a block width, its photos whole.
    static func exactHeight(_ cut: Cut, row: Int, width: Double, gap: Int) -> Double {
        (width - Double(gap * (cut.rows[row].count - 1))) / cut.widths[row]
    }

    /// The rows' height at a block width, to the pixel.
    static func naturalHeight(_ cut: Cut, width: Double, gap: Int) -> Int {
        roundedRunning(cut.rows.indices.map { exactHeight(cut, row: $0, width: width, gap: gap) }).reduce(0, +)
            + gap * (cut.rows.count - 1)
    }

    /// The rows' width: the whole inner width, or, when they would be taller
    /// than the canvas, the width at which they fit its height. Nil when a
    /// photo would be less than a pixel wide or high.
    static func blockWidth(_ cut: Cut, innerWidth: Int, innerHeight: Int?, gap: Int) -> Int? {
        var width = innerWidth
        if let innerHeight, naturalHeight(cut, width: Double(width), gap: gap) > innerHeight {
            // The height grows linearly with the width: solve for it, then
            // step down past any rounding.
            let perWidth = cut.widths.reduce(0) { $0 + 1 / $1 }
            let fixed = zip(cut.rows, cut.widths).reduce(0.0) { $0 + Double(gap * ($1.0.count - 1)) / $1.1 }
            let rows = Double(gap * (cut.rows.count - 1))
            width = Int(((Double(innerHeight) - rows + fixed) / perWidth).rounded(.down))
            while width > 0 && naturalHeight(cut, width: Double(width), gap: gap) > innerHeight { width -= 1 }
        }
        for (row, photos) in cut.rows.enumerated() {
            guard width - gap * (photos.count - 1) >= photos.count,
                  exactHeight(cut, row: row, width: Double(width), gap: gap) >= 1 else { return nil }
        }
        return width
    }

    /// Lengths rounded so that their running total is the exact total's,
    /// rounded: the pieces meet without a pixel lost or doubled.
    static func roundedRunning(_ lengths: [Double]) -> [Int] {
        var total = 0.0, previous = 0
        return lengths.map { length in
            total += length
            let end = Int(total.rounded())
            defer { previous = end }
            return end - previous
        }
    }
}
