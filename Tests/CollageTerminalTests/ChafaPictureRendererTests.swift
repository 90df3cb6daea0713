import CollageKit
import Foundation
import CollageTestSupport
import Testing
@testable import CollageTerminal

@Suite struct ChafaPictureRendererTests {
    static let red = RGBColor(red: 255, green: 0, blue: 0)

    private func solid(width: Int, height: Int, _ color: RGBColor = red) -> RGBImage {
        RGBImage(width: width, height: height, filledWith: color)
    }

    /// The cells a line takes: its characters once escape sequences are removed.
    private func visibleWidth(_ line: String) -> Int {
        var count = 0
        var inEscape = false
        for scalar in line.unicodeScalars {
            if inEscape {
                if (0x40...0x7E).contains(scalar.value) && scalar != "[" { inEscape = false }
            } else if scalar == "\u{1B}" {
                inEscape = true
            } else {
                count += 1
            }
        }
        return count
    }

    @Test func redImageInSymbolsHasA24BitRedSGR() {
        let picture = ChafaPictureRenderer().render(solid(width: 40, height: 40), columns: 10, rows: 5)
        #expect(picture.kind == .symbols)
        let text = picture.lines.joined()
        #expect(text.contains("\u{1B}[38;2;255;0;0m") || text.contains("48;2;255;0;0m"))
    }

    @Test func noColorSymbolsCarryNoColourCodes() {
        var image = solid(width: 64, height: 32)
        // Half black, half red, so there is something to draw.
        for y in 0..<32 { for x in 0..<32 { image.pixels[(y * 64 + x) * 3] = 0 } }
        let picture = ChafaPictureRenderer(noColor: true).render(image, columns: 16, rows: 4)
        let text = picture.lines.joined()
        #expect(!picture.lines.isEmpty)
        #expect(!text.contains("38;2") && !text.contains("48;2") && !text.contains("38;5") && !text.contains("48;5"))
    }

    @Test func symbolsFitTheCellsAskedAndKeepTheAspectRatio() {
        let renderer = ChafaPictureRenderer(cellWidth: 10, cellHeight: 20)
        // 2:1 in 40 x 40 cells of 10 x 20 px: as wide as allowed, 400 x 200 px = 10 rows.
        let wide = renderer.render(solid(width: 200, height: 100), columns: 40, rows: 40)
        #expect(wide.columns == 40 && wide.rows == 10)
        #expect(wide.lines.count == wide.rows)
        #expect(wide.lines.allSatisfy { visibleWidth($0) == wide.columns })

        // 1:4 in 40 x 10 cells: as high as allowed, 200 px = 50 px wide = 5 columns.
        let tall = renderer.render(solid(width: 100, height: 400), columns: 40, rows: 10)
        #expect(tall.rows == 10 && tall.columns == 5)

        // 16:9 in 80 x 24: within the cells, and the shape within one cell of 16:9.
        let screen = renderer.render(solid(width: 1920, height: 1080), columns: 80, rows: 24)
        #expect(screen.columns <= 80 && screen.rows <= 24)
        let ratio = Double(screen.columns * 10) / Double(screen.rows * 20)
        #expect(abs(ratio - 16.0 / 9.0) < 16.0 / 9.0 * 0.1)
    }

    @Test func smallImagesAreEnlargedToTheSpace() {
        let picture = ChafaPictureRenderer().render(solid(width: 4, height: 4), columns: 20, rows: 10)
        #expect(picture.rows == 10 && picture.columns == 20)
    }

    @Test func sixelKittyAndITerm2UseTheirProtocols() {
        let image = solid(width: 60, height: 60)
        let sixel = ChafaPictureRenderer(kind: .sixel).render(image, columns: 6, rows: 3)
        #expect(sixel.kind == .sixel && sixel.lines.count == 1)
        let data = sixel.lines[0]
        #expect(data.hasPrefix("\u{1B}P"))
        #expect(data.prefix(16).contains("q"))
        #expect(data.hasSuffix("\u{1B}\\"))
        #expect(sixel.columns <= 6 && sixel.rows <= 3)

        let kitty = ChafaPictureRenderer(kind: .kitty).render(image, columns: 6, rows: 3)
        #expect(kitty.kind == .kitty && kitty.lines.count == 1)
        #expect(kitty.lines[0].hasPrefix("\u{1B}_G"))
        #expect(kitty.lines[0].hasSuffix("\u{1B}\\"))

        let iterm = ChafaPictureRenderer(kind: .iterm2).render(image, columns: 6, rows: 3)
        #expect(iterm.lines.count == 1 && iterm.lines[0].hasPrefix("\u{1B}]1337;File="))
    }

    @Test func graphicsKeepTheAspectRatioInsideWholeCells() throws {
        // 16:9 in 20 x 6 cells of 10 x 20 px: the cells' box is not 16:9, so
        // the image is centred on a transparent canvas instead of stretched.
        let picture = ChafaPictureRenderer(kind: .kitty).render(solid(width: 160, height: 90), columns: 20, rows: 6)
        #expect(picture.columns <= 20 && picture.rows <= 6)
        let data = picture.lines[0]
        // The kitty payload: raw RGBA (f=32) of s x v pixels, in base64 chunks.
        func number(_ key: String) throws -> Int {
            let range = try #require(data.range(of: "\(key)="))
            return Int(data[range.upperBound...].prefix { $0.isNumber })!
        }
        let width = try number("s"), height = try number("v")
        #expect(width == picture.columns * 10 && height == picture.rows * 20)
        // Each chunk is base64 on its own (with its own padding).
        var rgba: [UInt8] = []
        for chunk in data.components(separatedBy: "\u{1B}_G").dropFirst() {
            guard let semicolon = chunk.firstIndex(of: ";"), let end = chunk.range(of: "\u{1B}\\") else { continue }
            let decoded = Data(base64Encoded: String(chunk[chunk.index(after: semicolon)..<end.lowerBound]))
            try #require(decoded != nil, "a chunk is not base64")
            rgba += decoded!
        }
        try #require(rgba.count == width * height * 4)
        var opaqueRows = 0, opaqueColumns = 0
        for y in 0..<height where rgba[(y * width + width / 2) * 4 + 3] > 127 { opaqueRows += 1 }
        for x in 0..<width where rgba[(height / 2 * width + x) * 4 + 3] > 127 { opaqueColumns += 1 }
        let aspect = Double(opaqueColumns) / Double(opaqueRows)
        #expect(abs(aspect - 16.0 / 9.0) < 0.05, "opaque \(opaqueColumns) x \(opaqueRows) of \(width) x \(height)")
    }

    @Test func pixelSizeMatchesWhatEachModeCanShow() {
        let symbols = ChafaPictureRenderer(cellWidth: 10, cellHeight: 20)
        #expect(symbols.pixelSize(columns: 10, rows: 5) == (80, 80))
        let sixel = ChafaPictureRenderer(kind: .sixel, cellWidth: 9, cellHeight: 18)
        #expect(sixel.pixelSize(columns: 10, rows: 5) == (90, 90))
        // The cell size comes from the terminal when it reports pixels.
        let sized = ChafaPictureRenderer(kind: .kitty, noColor: false,
                                         terminal: TerminalSize(columns: 100, rows: 30, pixelWidth: 800, pixelHeight: 600))
        #expect(sized.cellWidth == 8 && sized.cellHeight == 20)
        let unsized = ChafaPictureRenderer(kind: .kitty, noColor: false, terminal: TerminalSize(columns: 100, rows: 30))
        #expect(unsized.cellWidth == 10 && unsized.cellHeight == 20)
    }

    /// libchafa 1.12 scaled packed RGB rows that were not a multiple of 4
    /// bytes wrongly: photos 301 px wide were sheared, 302 and 303 grey with
    /// coloured stripes (issue #11). Four coloured quadrants must stay where
    /// they are at every width (photos narrower than 8 px, which libchafa
    /// enlarges smoothly, get two halves, top and bottom, 64 px high).
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8, 299, 300, 301, 302, 303, 598, 599, 600, 601, 2001])
    func quadrantsStayInPlaceAtEveryWidth(width: Int) throws {
        let quadrants = [RGBColor(red: 230, green: 20, blue: 20), RGBColor(red: 20, green: 200, blue: 20),
                         RGBColor(red: 20, green: 20, blue: 230), RGBColor(red: 240, green: 220, blue: 20)]
        let narrow = width < 8
        let height = narrow ? 64 : width * 2 / 3
        var image = solid(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let colour = quadrants[(y < height / 2 ? 0 : 2) + (narrow || x < width / 2 ? 0 : 1)]
                image.pixels.replaceSubrange((y * width + x) * 3..<(y * width + x) * 3 + 3,
                                             with: [colour.red, colour.green, colour.blue])
            }
        }
        let picture = ChafaPictureRenderer().render(image, columns: 24, rows: 8)
        let cells = picture.lines.map { cellColours($0) }
        try #require(picture.rows >= 4 && picture.columns >= (narrow ? 1 : 4))
        #expect(cells.allSatisfy { $0.count == picture.columns })
        // A cell a quarter of the way in from each corner lies well inside its quadrant.
        for (index, expected) in quadrants.enumerated() where !narrow || index % 2 == 0 {
            let row = index < 2 ? picture.rows / 4 : picture.rows - 1 - picture.rows / 4
            let column = index % 2 == 0 ? picture.columns / 4 : picture.columns - 1 - picture.columns / 4
            let seen = cells[row][column]
            let distance = abs(Int(seen.red) - Int(expected.red)) + abs(Int(seen.green) - Int(expected.green))
                + abs(Int(seen.blue) - Int(expected.blue))
            #expect(distance < 60, "width \(width): cell (\(column), \(row)) is \(seen), expected \(expected)")
        }
    }

    @Test func libchafaIsHandedRGBAOfTheImage() {
        var image = solid(width: 3, height: 2)
        image.pixels = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]
        let input = ChafaPictureRenderer.chafaInput(image, toAspect: nil)
        #expect(input.width == 3 && input.height == 2)
        #expect(input.pixels == [1, 2, 3, 255, 4, 5, 6, 255, 7, 8, 9, 255, 10, 11, 12, 255, 13, 14, 15, 255, 16, 17, 18, 255])
    }

    @Test func nothingToDrawGivesAnEmptyPicture() {
        let renderer = ChafaPictureRenderer()
        #expect(renderer.render(solid(width: 10, height: 10), columns: 0, rows: 5).lines.isEmpty)
        #expect(renderer.render(RGBImage(width: 0, height: 0, filledWith: .white), columns: 5, rows: 5).columns == 0)
    }
}
