import CollageKit
import CollageTestSupport
import Dispatch
import Foundation
import Testing
@testable import CollageTerminal

/// The photos screen's previews at the widths that once came out sheared or
/// grey (issue #11): through the real path (PreviewService: the engine's
/// draw into the picture's size, then the renderer), the picture handed to
/// libchafa equals the photo scaled, for JPEG and for grey, grey + alpha and
/// palette PNGs.
@Suite struct PreviewPixelTests {
    static let widths = Array(1...8) + Array(299...303) + Array(598...601) + [2001]

    enum Kind: String, CaseIterable { case jpeg, grey, greyAlpha, palette }

    /// Records the image the preview path hands the renderer, and renders it.
    final class RecordingRenderer: PictureRendering, @unchecked Sendable {
        let real = ChafaPictureRenderer()
        var handed: RGBImage?
        func pixelSize(columns: Int, rows: Int) -> (width: Int, height: Int) { real.pixelSize(columns: columns, rows: rows) }
        func render(_ image: RGBImage, columns: Int, rows: Int) -> TerminalPicture {
            handed = image
            return real.render(image, columns: columns, rows: rows)
        }
    }

    /// The photo as a function of position (0...1 across and down): smooth
    /// in both directions, so a shear or a wrong stride shows everywhere.
    static func grey(_ x: Double, _ y: Double) -> UInt8 { UInt8(20 + 180 * x + 50 * y) }
    static let quadrants: [[UInt8]] = [[230, 30, 30], [30, 200, 40], [40, 60, 220], [240, 220, 30]]
    static func quadrant(_ x: Double, _ y: Double) -> Int { (y < 0.5 ? 0 : 2) + (x < 0.5 ? 0 : 1) }

    /// The expected RGB at a position, alpha composited over white.
    static func expected(_ kind: Kind, _ x: Double, _ y: Double) -> [Int] {
        switch kind {
        case .jpeg: return [Int(60 + 140 * x), Int(60 + 140 * y), 128]
        case .grey: return Array(repeating: Int(grey(x, y)), count: 3)
        case .greyAlpha:
            let alpha = x < 0.5 ? 255.0 : 128.0, v = Double(grey(x, y))
            return Array(repeating: Int((v * alpha + 255 * (255 - alpha)) / 255), count: 3)
        case .palette: return quadrants[quadrant(x, y)].map(Int.init)
        }
    }

    static func file(_ kind: Kind, width: Int, height: Int) throws -> [UInt8] {
        func position(_ i: Int, _ n: Int) -> Double { n == 1 ? 0.25 : Double(i) / Double(n - 1) }
        var samples: [UInt8] = []
        for row in 0..<height {
            for column in 0..<width {
                let x = position(column, width), y = position(row, height)
                switch kind {
                case .jpeg: samples += [UInt8(60 + 140 * x), UInt8(60 + 140 * y), 128]
                case .grey: samples.append(grey(x, y))
                case .greyAlpha: samples += [grey(x, y), x < 0.5 ? 255 : 128]
                case .palette: samples.append(UInt8(quadrant(x, y)))
                }
            }
        }
        switch kind {
        case .jpeg:
            var image = RGBImage(width: width, height: height, filledWith: .white)
            image.pixels = samples
            return try ImageEngine().encode(image, as: .jpeg, options: SaveOptions(quality: 97))
        case .grey: return PNGFile.encode(width: width, height: height, colourType: 0, samples: samples)
        case .greyAlpha: return PNGFile.encode(width: width, height: height, colourType: 4, samples: samples)
        case .palette:
            return PNGFile.encode(width: width, height: height, colourType: 3, samples: samples,
                                  palette: quadrants.flatMap { $0 })
        }
    }

    /// A photo's preview of 40 x 20 cells, asked for on the main actor as the
    /// photos screen asks, and awaited (the service draws on its own queue).
    @MainActor
    static func preview(_ photo: Photo, from previews: PreviewService) async -> Result<TerminalPicture, Error> {
        await withCheckedContinuation { done in
            _ = previews.photoPreview(photo, columns: 40, rows: 20) { done.resume(returning: $0) }
        }
    }

    @Test(arguments: widths, Kind.allCases)
    func thePictureHandedToLibchafaIsThePhotoScaled(width: Int, kind: Kind) async throws {
        let height = 40
        let folder = try temporaryDirectory()
        let path = folder.appendingPathComponent("photo-\(width).\(kind == .jpeg ? "jpg" : "png")").path
        try Data(try Self.file(kind, width: width, height: height)).write(to: URL(fileURLWithPath: path))

        let renderer = RecordingRenderer()
        let previews = PreviewService(renderer: renderer, engine: ImageEngine())
        _ = try await Self.preview(Photo(path: path), from: previews).get()
        let image = try #require(renderer.handed)
        let input = ChafaPictureRenderer.chafaInput(image, toAspect: nil)
        #expect(input.width == image.width && input.height == image.height)

        // The picture is the photo fitted in the box, never larger.
        let box = renderer.pixelSize(columns: 40, rows: 20)
        #expect(input.width <= width && input.height <= height)
        #expect(input.width == width || input.height == height || input.width == box.width || input.height == box.height)

        // Every pixel handed to libchafa, against the photo at that place
        // (where a scaled pixel's centre falls). For PNG within a level where
        // the picture is the photo's own size, two where it is scaled (a
        // linear gradient survives the filter but for its last pixels, which
        // it reads past the edge: 40 rows become 6 for the widest); for JPEG
        // its brightness, within the codec's loss (its colour is subsampled
        // 2 x 2, which a photo 2 px wide with a steep gradient cannot keep);
        // the palette's quadrants and the alpha step away from their edges,
        // where the filter (3 pixels each side) rings.
        let tolerance = kind == .jpeg ? 10 : input.width == width ? 1 : 2
        let ringX = max(0.1, 3.5 / Double(input.width)), ringY = max(0.1, 3.5 / Double(input.height))
        func luma(_ rgb: [Int]) -> Int { (299 * rgb[0] + 587 * rgb[1] + 114 * rgb[2]) / 1000 }
        func position(_ i: Int, picture: Int, photo: Int) -> Double {
            guard photo > 1 else { return 0.25 }
            let at = (Double(i) + 0.5) * Double(photo) / Double(picture) - 0.5
            return min(1, max(0, at / Double(photo - 1)))
        }
        var worst = 0, worstAt = (0, 0)
        for v in 0..<input.height {
            for u in 0..<input.width {
                let x = position(u, picture: input.width, photo: width)
                let y = position(v, picture: input.height, photo: height)
                if kind == .palette && (abs(x - 0.5) < ringX || abs(y - 0.5) < ringY) { continue }
                if kind == .greyAlpha && abs(x - 0.5) < ringX { continue }
                let at = (v * input.width + u) * 4
                let got = input.pixels[at..<at + 3].map(Int.init)
                let want = Self.expected(kind, x, y)
                let difference = kind == .jpeg ? abs(luma(got) - luma(want)) : zip(got, want).map { abs($0 - $1) }.max()!
                if difference > worst { worst = difference; worstAt = (u, v) }
                #expect(input.pixels[at + 3] == 255)
            }
        }
        #expect(worst <= tolerance, "\(kind) \(width) px wide: off by \(worst) at \(worstAt) of \(input.width)x\(input.height)")
    }
}
