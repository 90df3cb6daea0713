import CollageImaging
import Dispatch
import Foundation
import Testing

// ci_draw_photo (and through it ci_resample_cover) on PNGs made by the tests
// themselves with ci_encode_png, so these need no conformance data.

/// An RGB canvas with a guard band: every row has `padding` extra bytes and
/// there are two extra rows, all filled with a sentinel, so a write outside
/// width x height is caught.
private final class Canvas {
    let width: Int, height: Int, stride: Int
    let storage: UnsafeMutableBufferPointer<UInt8>
    static let padding = 9
    static let sentinel: UInt8 = 0xA5

    init(width: Int, height: Int, fill: (UInt8, UInt8, UInt8)) {
        self.width = width
        self.height = height
        stride = width * 3 + Canvas.padding
        storage = .allocate(capacity: stride * (height + 2))
        storage.initialize(repeating: Canvas.sentinel)
        for y in 0..<height {
            for x in 0..<width {
                storage[y * stride + x * 3] = fill.0
                storage[y * stride + x * 3 + 1] = fill.1
                storage[y * stride + x * 3 + 2] = fill.2
            }
        }
    }

    deinit { storage.deallocate() }

    var image: ci_image {
        ci_image(pixels: storage.baseAddress, width: UInt32(width), height: UInt32(height),
                 stride: stride, channels: 3)
    }

    func pixel(_ x: Int, _ y: Int) -> [UInt8] {
        let at = y * stride + x * 3
        return [storage[at], storage[at + 1], storage[at + 2]]
    }

    /// The bytes outside width x height that are no longer the sentinel.
    var guardBandDamage: Int {
        var damaged = 0
        for y in 0..<(height + 2) {
            let from = y < height ? width * 3 : 0
            for i in from..<stride where storage[y * stride + i] != Canvas.sentinel { damaged += 1 }
        }
        return damaged
    }

    /// ci_draw_photo_placed with a crop rule and fit (background black).
    func drawPlaced(_ path: String, x: Int32, y: Int32, width: UInt32, height: UInt32, crop: ci_crop,
                    fit: ci_fit) -> (ci_status, String) {
        var canvas = image
        var error = ci_error()
        var options = ci_draw_options()
        options.crop = crop
        options.fit = fit
        let status = ci_draw_photo_placed(path, &canvas, ci_rect(x: x, y: y, width: width, height: height),
                                          &options, nil, &error)
        return (status, PNGTestSupport.message(error))
    }

    func draw(_ path: String, x: Int32, y: Int32, width: UInt32, height: UInt32,
              background: ci_color = ci_color(r: 0, g: 0, b: 0)) -> (ci_status, String) {
        var canvas = image
        var error = ci_error()
        let status = ci_draw_photo(path, &canvas, ci_rect(x: x, y: y, width: width, height: height),
                                   background, nil, &error)
        return (status, PNGTestSupport.message(error))
    }
}

/// A temporary folder of PNG files, removed at the end of the test.
private final class PhotoFolder {
    let url: URL
    init() throws { url = try PNGTestSupport.temporaryFolder() }
    deinit { try? FileManager.default.removeItem(at: url) }

    func write(_ name: String, _ pixels: [UInt8], width: Int, height: Int, channels: Int = 3) throws -> String {
        let data = try PNGTestSupport.encodePNG(pixels, width: width, height: height, channels: channels)
        let file = url.appendingPathComponent(name)
        try data.write(to: file)
        return file.path
    }
}

private func noise(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 6364136223846793005 &+ 1442695040888963407  // LCG; top byte
        return UInt8(truncatingIfNeeded: state >> 56)
    }
}

private func solid(_ width: Int, _ height: Int, _ rgb: [UInt8]) -> [UInt8] {
    Array((0..<width * height).map { _ in rgb }.joined())
}

/// The Lanczos-3 cover resampler written out directly in doubles, per output
/// pixel, from the contract's formula (nothing shared with resample.c).
private func referenceCover(_ src: [UInt8], width w: Int, height h: Int, cellWidth cw: Int, cellHeight ch: Int) -> [UInt8] {
    func lanczos(_ x: Double) -> Double {
        if x == 0 { return 1 }
        if abs(x) >= 3 { return 0 }
        let p = Double.pi * x
        return 3 * sin(p) * sin(p / 3) / (p * p)
    }
    let inverse = cw * h >= ch * w ? Double(w) / Double(cw) : Double(h) / Double(ch)
    func weights(size: Int, cell: Int) -> [[Double]] {
        let stretch = max(inverse, 1), support = 3 * stretch
        let offset = (Double(size) - Double(cell) * inverse) / 2
        return (0..<cell).map { o in
            let u = (Double(o) + 0.5) * inverse + offset
            var row = [Double](repeating: 0, count: size)
            for i in Int((u - support).rounded(.down))...Int((u + support).rounded(.up)) {
                row[min(max(i, 0), size - 1)] += lanczos((Double(i) + 0.5 - u) / stretch)
            }
            let sum = row.reduce(0, +)
            return row.map { $0 / sum }
        }
    }
    let wx = weights(size: w, cell: cw), wy = weights(size: h, cell: ch)
    var out = [UInt8](repeating: 0, count: cw * ch * 3)
    for y in 0..<ch {
        for x in 0..<cw {
            for c in 0..<3 {
                var sum = 0.0
                for j in 0..<h where wy[y][j] != 0 {
                    var across = 0.0
                    for i in 0..<w where wx[x][i] != 0 { across += wx[x][i] * Double(src[(j * w + i) * 3 + c]) }
                    sum += wy[y][j] * across
                }
                out[(y * cw + x) * 3 + c] = UInt8(min(max((sum + 0.5).rounded(.down), 0), 255))
            }
        }
    }
    return out
}

@Suite("ci_draw_photo")
struct DrawTests {
    let initial: (UInt8, UInt8, UInt8) = (1, 2, 3)

    @Test("a solid photo fills exactly its cell and nothing else")
    func solidFillsExactlyTheCell() throws {
        let folder = try PhotoFolder()
        let path = try folder.write("solid.png", solid(10, 10, [200, 50, 20]), width: 10, height: 10)
        let canvas = Canvas(width: 40, height: 30, fill: initial)
        let (status, message) = canvas.draw(path, x: 5, y: 7, width: 12, height: 9)
        try #require(status == CI_OK, "\(message)")
        var wrongInside = 0, touchedOutside = 0
        for y in 0..<30 {
            for x in 0..<40 {
                let inside = (5..<17).contains(x) && (7..<16).contains(y)
                let p = canvas.pixel(x, y)
                if inside && p != [200, 50, 20] { wrongInside += 1 }
                if !inside && p != [1, 2, 3] { touchedOutside += 1 }
            }
        }
        #expect(wrongInside == 0, "pixels inside the cell that are not the photo's colour")
        #expect(touchedOutside == 0, "pixels outside the cell that were written")
        #expect(canvas.guardBandDamage == 0)
    }

    @Test("a photo the size of its cell is copied pixel for pixel")
    func identityCopies() throws {
        let (w, h) = (23, 17)
        let pixels = noise(w * h * 3, seed: 42)
        let folder = try PhotoFolder()
        let path = try folder.write("noise.png", pixels, width: w, height: h)
        let canvas = Canvas(width: 40, height: 30, fill: initial)
        let (status, message) = canvas.draw(path, x: 4, y: 3, width: UInt32(w), height: UInt32(h))
        try #require(status == CI_OK, "\(message)")
        var differing = 0
        for y in 0..<h {
            for x in 0..<w where canvas.pixel(4 + x, 3 + y) != Array(pixels[(y * w + x) * 3..<(y * w + x) * 3 + 3]) {
                differing += 1
            }
        }
        #expect(differing == 0, "\(differing) of \(w * h) pixels differ from the photo")
        #expect(canvas.pixel(3, 3) == [1, 2, 3] && canvas.pixel(4 + w, 3 + h - 1) == [1, 2, 3])
        #expect(canvas.guardBandDamage == 0)
    }

    @Test("a cell past the canvas's edges is clipped: the visible part as if unclipped, nothing written outside",
          arguments: [(Int32(30), Int32(22)), (-5, -4), (35, -3), (-6, 27)])
    func overhangingCellIsClipped(origin: (Int32, Int32)) throws {
        let (cw, ch) = (12, 10)
        let folder = try PhotoFolder()
        let path = try folder.write("noise.png", noise(31 * 19 * 3, seed: 7), width: 31, height: 19)
        // The same cell drawn whole on a large canvas is the expectation.
        let whole = Canvas(width: cw, height: ch, fill: initial)
        let (s1, m1) = whole.draw(path, x: 0, y: 0, width: UInt32(cw), height: UInt32(ch))
        try #require(s1 == CI_OK, "\(m1)")

        let canvas = Canvas(width: 40, height: 30, fill: initial)
        let (status, message) = canvas.draw(path, x: origin.0, y: origin.1, width: UInt32(cw), height: UInt32(ch))
        try #require(status == CI_OK, "\(message)")
        var wrong = 0, visible = 0
        for y in 0..<30 {
            for x in 0..<40 {
                let cx = x - Int(origin.0), cy = y - Int(origin.1)
                let inside = (0..<cw).contains(cx) && (0..<ch).contains(cy)
                if inside { visible += 1 }
                let expected = inside ? whole.pixel(cx, cy) : [1, 2, 3]
                if canvas.pixel(x, y) != expected { wrong += 1 }
            }
        }
        #expect(visible > 0 && visible < cw * ch, "the cell should be partly visible")
        #expect(wrong == 0, "\(wrong) canvas pixels differ from the unclipped drawing")
        #expect(canvas.guardBandDamage == 0, "bytes written outside the canvas")
    }

    @Test("placed draws (smart, attention, contain) clipped by the canvas edge write only the visible part",
          arguments: [(CI_CROP_SMART, CI_FIT_COVER), (CI_CROP_ATTENTION, CI_FIT_COVER), (CI_CROP_SMART, CI_FIT_CONTAIN)])
    func placedCellsOverhangingTheCanvas(_ mode: (ci_crop, ci_fit)) throws {
        let (cw, ch) = (24, 10)
        let folder = try PhotoFolder()
        let path = try folder.write("noise.png", noise(31 * 19 * 3, seed: 9), width: 31, height: 19)
        let whole = Canvas(width: cw, height: ch, fill: initial)
        let (s1, m1) = whole.drawPlaced(path, x: 0, y: 0, width: UInt32(cw), height: UInt32(ch), crop: mode.0, fit: mode.1)
        try #require(s1 == CI_OK, "\(m1)")
        for origin in [(Int32(-7), Int32(-3)), (30, 25), (-5, 26)] {
            let canvas = Canvas(width: 40, height: 30, fill: initial)
            let (status, message) = canvas.drawPlaced(path, x: origin.0, y: origin.1, width: UInt32(cw), height: UInt32(ch),
                                                      crop: mode.0, fit: mode.1)
            try #require(status == CI_OK, "\(message)")
            var wrong = 0
            for y in 0..<30 {
                for x in 0..<40 {
                    let cx = x - Int(origin.0), cy = y - Int(origin.1)
                    let inside = (0..<cw).contains(cx) && (0..<ch).contains(cy)
                    if canvas.pixel(x, y) != (inside ? whole.pixel(cx, cy) : [1, 2, 3]) { wrong += 1 }
                }
            }
            #expect(wrong == 0, "\(mode) at \(origin): \(wrong) pixels differ from the unclipped drawing")
            #expect(canvas.guardBandDamage == 0, "\(mode) at \(origin): bytes written outside the canvas")
        }
    }

    @Test("a cell entirely off the canvas writes nothing and succeeds")
    func cellOffCanvas() throws {
        let folder = try PhotoFolder()
        let path = try folder.write("solid.png", solid(4, 4, [9, 9, 9]), width: 4, height: 4)
        let canvas = Canvas(width: 8, height: 8, fill: initial)
        for (x, y) in [(Int32(8), Int32(0)), (0, 8), (-4, 0), (Int32.min, Int32.min), (Int32.max, 0)] {
            let (status, message) = canvas.draw(path, x: x, y: y, width: 4, height: 4)
            #expect(status == CI_OK, "\(message)")
        }
        #expect((0..<8).allSatisfy { y in (0..<8).allSatisfy { canvas.pixel($0, y) == [1, 2, 3] } })
        #expect(canvas.guardBandDamage == 0)
    }

    @Test("downscaling a 1-pixel checkerboard gives mid-grey (anti-aliased, not nearest neighbour)",
          arguments: [(64, 16), (63, 21), (64, 13)])
    func checkerboardBecomesGrey(sizes: (Int, Int)) throws {
        // By 4 the sample points fall between pixels, so even an unwidened
        // kernel averages; by 3 they fall on pixel centres, where a kernel
        // that is not widened by 1/s picks single pixels (black or white);
        // 64 -> 13 is a non-integer factor.
        let (n, m) = sizes
        let pixels = Array((0..<n * n).map { i -> [UInt8] in
            let v: UInt8 = (i % n + i / n) % 2 == 0 ? 0 : 255
            return [v, v, v]
        }.joined())
        let folder = try PhotoFolder()
        let path = try folder.write("checker.png", pixels, width: n, height: n)
        let canvas = Canvas(width: m, height: m, fill: initial)
        let (status, message) = canvas.draw(path, x: 0, y: 0, width: UInt32(m), height: UInt32(m))
        try #require(status == CI_OK, "\(message)")
        var lowest = 255, highest = 0
        for y in 0..<m {
            for x in 0..<m {
                for v in canvas.pixel(x, y) {
                    lowest = min(lowest, Int(v))
                    highest = max(highest, Int(v))
                }
            }
        }
        // 127.5 is the exact mean; near the borders the clamped edge taps
        // leave a couple of levels of error (measured 125...130).
        #expect(lowest >= 124 && highest <= 131, "grey levels \(lowest)...\(highest), want 128 +- 4")
    }

    @Test("a 2:1 photo in a square cell is cropped symmetrically at the sides")
    func wideCropsSidesSymmetrically() throws {
        // Left quarter red, middle half green, right quarter blue: covering a
        // square keeps exactly the middle half.
        let (w, h) = (80, 40)
        var pixels = [UInt8]()
        for _ in 0..<h {
            for x in 0..<w { pixels += x < 20 ? [255, 0, 0] : x < 60 ? [0, 255, 0] : [0, 0, 255] }
        }
        let folder = try PhotoFolder()
        let path = try folder.write("wide.png", pixels, width: w, height: h)
        let canvas = Canvas(width: 20, height: 20, fill: initial)
        let (status, message) = canvas.draw(path, x: 0, y: 0, width: 20, height: 20)
        try #require(status == CI_OK, "\(message)")
        for y in 0..<20 {
            // Lanczos-3 reaches 3 output pixels across the crop line (6 source
            // pixels at this 1/2 scale), so red and blue can only bleed into
            // columns 0-2 and 17-19; the third column gets at most a level.
            for x in 3..<17 {
                #expect(canvas.pixel(x, y) == [0, 255, 0], "(\(x), \(y)) = \(canvas.pixel(x, y))")
            }
            for x in 0..<3 {
                let left = canvas.pixel(x, y), right = canvas.pixel(19 - x, y)
                // Symmetric: as much red on the left as blue on the right.
                #expect(abs(Int(left[0]) - Int(right[2])) <= 1 && left[1] == right[1] && left[2] == right[0],
                        "column \(x) \(left) is not the mirror of column \(19 - x) \(right)")
                #expect(left[1] >= 200, "column \(x) is mostly green: \(left)")
                if x == 2 { #expect(left[0] <= 1 && left[1] >= 254, "column 2 is green within a level: \(left)") }
            }
        }
    }

    @Test("alpha is composited over the background colour")
    func alphaOverBackground() throws {
        let (w, h) = (16, 8)
        let rgb = noise(w * h * 3, seed: 3)
        var rgba = [UInt8]()
        for i in 0..<w * h {
            let alpha: UInt8 = i % w < 4 ? 0 : UInt8((i * 37) % 256)  // left columns fully transparent
            rgba += [rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2], alpha]
        }
        let folder = try PhotoFolder()
        let path = try folder.write("alpha.png", rgba, width: w, height: h, channels: 4)
        let background = ci_color(r: 10, g: 120, b: 250)
        let canvas = Canvas(width: w, height: h, fill: initial)
        let (status, message) = canvas.draw(path, x: 0, y: 0, width: UInt32(w), height: UInt32(h), background: background)
        try #require(status == CI_OK, "\(message)")
        let bg = [Int(background.r), Int(background.g), Int(background.b)]
        var wrong = 0
        for y in 0..<h {
            for x in 0..<w {
                let p = (y * w + x) * 4, a = Int(rgba[p + 3])
                var expected = [UInt8]()
                for c in 0..<3 {
                    let mixed: Int = Int(rgba[p + c]) * a + bg[c] * (255 - a) + 127
                    expected.append(UInt8(mixed / 255))
                }
                if canvas.pixel(x, y) != expected { wrong += 1 }
            }
        }
        #expect(wrong == 0, "\(wrong) pixels are not (c*a + bg*(255-a) + 127) / 255")
        #expect(canvas.pixel(0, 0) == [10, 120, 250], "a transparent pixel is the background")
    }

    @Test("scaling matches a direct Lanczos-3 evaluation of the cover formula",
          arguments: [(31, 19, 12, 10), (64, 48, 20, 20), (7, 5, 30, 17), (40, 41, 39, 40), (50, 20, 13, 29)])
    func matchesReference(size: (Int, Int, Int, Int)) throws {
        let (w, h, cw, ch) = size
        let pixels = noise(w * h * 3, seed: UInt64(w * 1000 + h))
        let folder = try PhotoFolder()
        let path = try folder.write("noise.png", pixels, width: w, height: h)
        let canvas = Canvas(width: cw, height: ch, fill: initial)
        let (status, message) = canvas.draw(path, x: 0, y: 0, width: UInt32(cw), height: UInt32(ch))
        try #require(status == CI_OK, "\(message)")
        let expected = referenceCover(pixels, width: w, height: h, cellWidth: cw, cellHeight: ch)
        var worst = 0, off = 0
        for y in 0..<ch {
            for x in 0..<cw {
                for (c, v) in canvas.pixel(x, y).enumerated() {
                    let d = abs(Int(v) - Int(expected[(y * cw + x) * 3 + c]))
                    worst = max(worst, d)
                    if d > 0 { off += 1 }
                }
            }
        }
        // float accumulation against doubles: at most a rounding step apart.
        #expect(worst <= 1, "largest difference \(worst) (\(off) samples differ)")
    }

    @Test("disjoint cells drawn concurrently give the same canvas as drawn one by one")
    func concurrentCells() throws {
        let folder = try PhotoFolder()
        let paths = try (0..<4).map { try folder.write("p\($0).png", noise(50 * 30 * 3, seed: UInt64($0) + 1), width: 50, height: 30) }
        var cells: [ci_rect] = []
        for i in 0..<16 {
            let x = Int32(i % 4) * 15 - 1, y = Int32(i / 4) * 11 - 1
            cells.append(ci_rect(x: x, y: y, width: 15, height: 11))
        }
        let serial = Canvas(width: 58, height: 42, fill: initial)
        for (i, cell) in cells.enumerated() {
            let (status, message) = serial.draw(paths[i % 4], x: cell.x, y: cell.y, width: cell.width, height: cell.height)
            #expect(status == CI_OK, "\(message)")
        }
        let parallel = Canvas(width: 58, height: 42, fill: initial)
        // The one canvas every worker draws into, through the C image's
        // pixel pointer, which Swift cannot check: each worker writes only
        // its own cell's pixels, as ImageEngine's workers do (SharedCanvas).
        nonisolated(unsafe) let base = parallel.image
        let rects = cells  // a constant, for the workers
        let statuses = Locked([Int32]())
        DispatchQueue.concurrentPerform(iterations: cells.count) { i in
            var canvas = base
            var error = ci_error()
            let status = Int32(bitPattern: ci_draw_photo(paths[i % 4], &canvas, rects[i], ci_color(), nil, &error).rawValue)
            statuses.append(status)
        }
        #expect(statuses.value.count == rects.count && statuses.value.allSatisfy { $0 == 0 })
        #expect(Array(UnsafeBufferPointer(serial.storage)) == Array(UnsafeBufferPointer(parallel.storage)))
    }

    @Test("a missing file gives CI_ERR_OPEN naming the path, and the canvas is untouched")
    func missingFile() throws {
        let folder = try PhotoFolder()
        let path = folder.url.appendingPathComponent("no such photo.png").path
        let canvas = Canvas(width: 8, height: 8, fill: initial)
        let (status, message) = canvas.draw(path, x: 0, y: 0, width: 8, height: 8)
        #expect(status == CI_ERR_OPEN)
        #expect(message.hasPrefix(path + ": "), "message: \(message)")
        #expect(canvas.pixel(3, 3) == [1, 2, 3])
    }

    @Test("bad arguments are refused: non-RGB canvas, empty cell")
    func badArguments() throws {
        let folder = try PhotoFolder()
        let path = try folder.write("solid.png", solid(4, 4, [9, 9, 9]), width: 4, height: 4)
        let canvas = Canvas(width: 8, height: 8, fill: initial)
        var rgba = canvas.image
        rgba.channels = 4
        var error = ci_error()
        #expect(ci_draw_photo(path, &rgba, ci_rect(x: 0, y: 0, width: 4, height: 4), ci_color(), nil, &error)
                    == CI_ERR_INVALID_ARGUMENT)
        #expect(canvas.draw(path, x: 0, y: 0, width: 0, height: 4).0 == CI_ERR_INVALID_ARGUMENT)
        #expect(canvas.pixel(0, 0) == [1, 2, 3])
    }
}

// MARK: - With JPEG photos (the shared EXIF orientation samples)

private let orientationFolder: URL? = TestData.folder("exif-orientation")
private let orientationAbsent = Comment(rawValue: TestData.absentMessage("exif-orientation"))

extension DrawTests {
    @Suite("ci_draw_photo with JPEG")
    struct JPEG {
        private func path(_ name: String) -> String { orientationFolder!.appendingPathComponent(name).path }

        @Test("the EXIF orientation sample data is present")
        func dataIsPresent() {
            if orientationFolder == nil { TestData.reportAbsent("exif-orientation") }
        }

        @Test("every orientation is drawn upright: the same picture as orientation 1",
              .enabled(if: orientationFolder != nil, orientationAbsent), arguments: 2...8)
        func uprightInCell(orientation: Int) throws {
            for kind in ["Landscape", "Portrait"] {
                let (w, h): (UInt32, UInt32) = kind == "Landscape" ? (90, 60) : (60, 90)
                let reference = Canvas(width: Int(w), height: Int(h), fill: (0, 0, 0))
                let (s1, m1) = reference.draw(path("\(kind)_1.jpg"), x: 0, y: 0, width: w, height: h)
                try #require(s1 == CI_OK, "\(m1)")
                let canvas = Canvas(width: Int(w), height: Int(h), fill: (0, 0, 0))
                let (s2, m2) = canvas.draw(path("\(kind)_\(orientation).jpg"), x: 0, y: 0, width: w, height: h)
                try #require(s2 == CI_OK, "\(m2)")
                var total = 0
                for y in 0..<Int(h) {
                    for x in 0..<Int(w) {
                        total += zip(canvas.pixel(x, y), reference.pixel(x, y)).map { abs(Int($0) - Int($1)) }.reduce(0, +)
                    }
                }
                // The files are separate JPEG encodings of one picture, so not
                // bit-identical; a wrong rotation or flip differs by tens.
                let mean = Double(total) / Double(w * h * 3)
                #expect(mean < 4, "\(kind)_\(orientation): mean difference \(mean) from \(kind)_1")
            }
        }

        @Test("shrink-on-load leaves the resampler room: a cell at 1/8 or 1/4 of the photo is close to a full-size draw",
              .enabled(if: orientationFolder != nil, orientationAbsent), arguments: [(150, 225), (300, 450)])
        func shrinkOnLoadKeepsQuality(cell: (Int, Int)) throws {
            // Portrait_6 is stored 1800 x 1200 and shown 1200 x 1800, so these
            // cells are exactly the 1/8 and 2/8 DCT sizes. Copying that DCT
            // output as it is (the smallest covering scale, the rule before)
            // scored 37.7 and 38.2 dB against the full-size draw; decoding at
            // least 4/3 larger and letting Lanczos shrink it scores 47.2 and
            // 45.3 dB (the photo's sharp lettering is the hardest part).
            let file = path("Portrait_6.jpg")
            let (w, h) = cell
            var options = ci_decode_options()
            options.apply_orientation = 1
            var image = ci_image()
            var error = ci_error()
            try #require(ci_decode_file(file, &options, &image, &error) == CI_OK, "\(PNGTestSupport.message(error))")
            let full = PNGTestSupport.pixels(of: image)
            let (fullWidth, fullHeight) = (Int(image.width), Int(image.height))
            ci_image_free(&image)
            try #require(fullWidth == 1200 && fullHeight == 1800)
            let folder = try PhotoFolder()
            let png = try folder.write("full.png", full, width: fullWidth, height: fullHeight)

            let reference = Canvas(width: w, height: h, fill: (0, 0, 0))
            let shrunk = Canvas(width: w, height: h, fill: (0, 0, 0))
            for (canvas, source) in [(reference, png), (shrunk, file)] {
                let (status, message) = canvas.draw(source, x: 0, y: 0, width: UInt32(w), height: UInt32(h))
                try #require(status == CI_OK, "\(message)")
            }
            var squares = 0.0
            for y in 0..<h {
                for x in 0..<w {
                    for (a, b) in zip(reference.pixel(x, y), shrunk.pixel(x, y)) {
                        squares += Double((Int(a) - Int(b)) * (Int(a) - Int(b)))
                    }
                }
            }
            let psnr = 10 * log10(255 * 255 / (squares / Double(w * h * 3)))
            #expect(psnr >= 44, "PSNR \(psnr) dB against the full-size draw")
        }
    }
}

/// ci_draw_options.draft (the picker's previews): the scale that just covers
/// the cell, without the filter's headroom: cheaper, and close to the full draw.
@Suite struct DraftDrawTests {
    func draw(_ path: String, width: Int, height: Int, draft: Bool) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var error = ci_error()
        var options = ci_draw_options()
        options.background = ci_color(r: 255, g: 255, b: 255)
        options.draft = draft ? 1 : 0
        let status = pixels.withUnsafeMutableBufferPointer { buffer -> ci_status in
            var canvas = ci_image(pixels: buffer.baseAddress, width: UInt32(width), height: UInt32(height), stride: width * 3, channels: 3)
            return ci_draw_photo_placed(path, &canvas, ci_rect(x: 0, y: 0, width: UInt32(width), height: UInt32(height)),
                                        &options, nil, &error)
        }
        try #require(status == CI_OK, "\(PNGTestSupport.message(error))")
        return pixels
    }

    @Test func aDraftDecodesLessAndLooksTheSame() throws {
        // A JPEG of 1600x1200 into 190x140: the full draw decodes at 1/4
        // (the 4/3 headroom), the draft at 1/8 (just covering).
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var samples = [UInt8]()
        for y in 0..<1200 { for x in 0..<1600 { samples += [UInt8(x * 255 / 1599), UInt8(y * 255 / 1199), UInt8((x + y) % 256)] } }
        let path = folder.appendingPathComponent("big.jpg").path
        try PNGTestSupport.encodeJPEG(samples, width: 1600, height: 1200, quality: 90).write(to: URL(fileURLWithPath: path))
        #expect(ci_draw_scale(1600, 1200, 1, 190, 140, nil) == 2)
        let full = try draw(path, width: 190, height: 140, draft: false), draft = try draw(path, width: 190, height: 140, draft: true)
        #expect(full != draft, "the draft read another scale")
        let squared = zip(full, draft).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) } / Double(full.count)
        #expect(10 * log10(255 * 255 / squared) > 30, "draft against full: \(10 * log10(255 * 255 / squared)) dB")
    }
}
