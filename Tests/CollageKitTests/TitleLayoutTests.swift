import Testing
@testable import CollageKit

/// `--title`: the band across the top, in the one plan, for every layout.
@Suite struct TitleLayoutTests {
    static let photos = [(4000, 3000), (3000, 4000), (6000, 2000), (3000, 3000)].map { PhotoShape(width: $0.0, height: $0.1) }

    static func request(_ width: Int?, _ height: Int?, _ layout: LayoutMode, margin: Int = 0, gap: Int = 0,
                        title: String? = "A trip") throws -> LayoutRequest {
        let size = try RequestedSize(width: width, height: height)
        return LayoutRequest(size: size, layout: layout, gap: gap, margin: margin,
                             title: try title.map { TitleRequest.estimated(try CollageTitle($0), size: size) })
    }

    @Test("every cell lies below the band, inside the canvas", arguments: [
        (1920, 1080, LayoutMode.grid, 0, 0), (1920, 1080, .auto, 0, 0), (1920, 1080, .rows, 0, 0),
        (1920, 1080, .columns, 0, 0), (1080, 1920, .auto, 30, 8), (1000, 600, .grid, 25, 10),
        (1600, nil, .rows, 10, 4), (nil, 900, .columns, 0, 6), (800, 800, .rows, 0, 0),
    ] as [(Int?, Int?, LayoutMode, Int, Int)])
    func cellsStartBelowTheBand(width: Int?, height: Int?, layout: LayoutMode, margin: Int, gap: Int) throws {
        let request = try Self.request(width, height, layout, margin: margin, gap: gap)
        let plan = try CollageLayout.plan(Self.photos, request)
        let band = try #require(plan.title)
        let title = try #require(request.title)
        // (the grid rounds its cells, which may reach a pixel past the margin)
        // The asked size is kept: the band is inside it.
        if let width { #expect(plan.canvas.width == width) }
        if let height { #expect(plan.canvas.height == height) }
        #expect(band.rect == CellRect(x: margin, y: margin, width: plan.canvas.width - 2 * margin, height: title.bandHeight))
        #expect(band.text == "A trip")
        for cell in plan.cells {
            #expect(cell.y >= band.rect.y + band.rect.height, "\(cell) overlaps the band \(band.rect)")
            #expect(cell.y + cell.height <= plan.canvas.height - margin + 1 && cell.x >= margin
                        && cell.x + cell.width <= plan.canvas.width - margin + 1, "\(cell) on \(plan.canvas)")
        }
        // The same request without a title lays the photos on the whole canvas;
        // with it, on the canvas less the band and a gap, moved down.
        var without = request
        without.title = nil
        let shift = title.bandHeight + gap
        if let height {
            without.size = try RequestedSize(width: width, height: height - shift)
        }
        let below = try CollageLayout.plan(Self.photos, without)
        #expect(below.cells.map { CellRect(x: $0.x, y: $0.y + shift, width: $0.width, height: $0.height) } == plan.cells)
        #expect(below.canvas.height + shift == plan.canvas.height)
        if gap > 0 { #expect(plan.cells.map(\.y).min()! >= band.rect.y + band.rect.height + gap) }
    }

    @Test("the font follows the canvas's area, as tall on a portrait canvas as on a landscape one", arguments: [
        (1920, 1080, 43.0), (1080, 1920, 43), (1920, nil, 43), (nil, 1080, 43),  // an open side as 16:9 would give it
        (3000, 500, 37), (1080, 1080, 32), (500, 2000, 30), (800, 600, 21),
        (6000, 500, 37),  // 3% of the area would be 52 px, a band of a fifth of the height: a sixth at most
        (400, 14, 6),  // the smallest title font
    ] as [(Int?, Int?, Double)])
    func fontPixels(width: Int?, height: Int?, expected: Double) throws {
        let size = try RequestedSize(width: width, height: height)
        #expect(TitleRequest.fontPixels(for: size) == expected)
        // A band of one line (estimated) fits the limit (the smallest font aside).
        if expected > TitleRequest.minimumPixels {
            #expect(TitleRequest.estimated(try CollageTitle("T"), size: size).bandHeight <= TitleRequest.bandLimit(for: size))
        }
        // --font's size wins.
        #expect(TitleRequest.fontPixels(for: size, font: CollageFont(description: "Sans 90px", pixels: 90)) == 90)
    }

    @Test func theBandTakesAtMost8PercentOfTheLongerSideAndASixthOfTheHeight() throws {
        #expect(TitleRequest.bandLimit(for: try RequestedSize(width: 1080, height: 1920)) == 153)
        #expect(TitleRequest.bandLimit(for: try RequestedSize(width: 1920, height: 1080)) == 153)
        #expect(TitleRequest.bandLimit(for: try RequestedSize(width: 3000, height: 500)) == 83)
        #expect(TitleRequest.bandLimit(for: try RequestedSize(width: 1080, height: 1080)) == 86)
        // Two estimated lines of the portrait canvas's font fit its 8%.
        let portrait = try RequestedSize(width: 1080, height: 1920)
        let oneLine = TitleRequest.estimated(try CollageTitle("T"), size: portrait)
        let twoLines = TitleRequest(text: "T", fontPixels: oneLine.fontPixels, textHeight: 2 * oneLine.textHeight)
        #expect(twoLines.bandHeight == 148 && twoLines.bandHeight <= TitleRequest.bandLimit(for: portrait))
    }

    @Test func theTextBoxIsInsideTheBand() throws {
        let plan = try CollageLayout.plan(Self.photos, try Self.request(1920, 1080, .grid))
        let band = try #require(plan.title)
        #expect(band.fontPixels == 43)
        #expect(band.textBox.x > band.rect.x && band.textBox.x + band.textBox.width < band.rect.x + band.rect.width)
        #expect(band.textBox.y == band.rect.y && band.textBox.height == band.rect.height)
    }

    @Test func aCanvasTooShortForTheBandIsRefused() throws {
        #expect(throws: LayoutError.self) { try CollageLayout.plan(Self.photos, try Self.request(400, 14, .grid)) }
        #expect(throws: LayoutError.self) { try CollageLayout.plan(Self.photos, try Self.request(400, 40, .auto, margin: 13)) }
    }

    @Test func scaledPlansScaleTheBand() throws {
        let plan = try CollageLayout.plan(Self.photos, try Self.request(1920, 1080, .auto))
        let half = plan.scaled(by: 0.5)
        let band = try #require(half.title)
        #expect(band.rect.height == Int((Double(plan.title!.rect.height) / 2).rounded()))
        #expect(band.fontPixels == 21.5)
        for cell in half.cells { #expect(cell.y >= band.rect.y + band.rect.height) }
    }

    @Test func titleTextIsChecked() throws {
        #expect(try CollageTitle("  Tab\there\nnew line\u{1B}[31m bell\u{07} ").text == "Tab here new line[31m bell")
        #expect(try CollageTitle("Café 東京 مرحبا 👩‍👩‍👧").text == "Café 東京 مرحبا 👩‍👩‍👧")
        #expect(try CollageTitle(String(repeating: "é", count: CollageTitle.maximumCharacters)).text.count == 1000)
        #expect(throws: ValueError("the title has 1001 characters, over the limit of 1000")) {
            try CollageTitle(String(repeating: "x", count: 1001))
        }
        // Combining marks count one by one.
        #expect(throws: ValueError.self) { try CollageTitle("e" + String(repeating: "\u{301}", count: 1000)) }
        #expect(throws: ValueError.self) { try CollageTitle(" \u{07}\n ") }
    }

    @Test("the title's colour contrasts at least 4.5:1 with any background", arguments: [
        RGBColor.white, .black, RGBColor(red: 128, green: 128, blue: 128), RGBColor(red: 118, green: 118, blue: 118),
        RGBColor(red: 255, green: 0, blue: 0), RGBColor(red: 0, green: 0, blue: 255), RGBColor(red: 255, green: 255, blue: 0),
        RGBColor(red: 0, green: 128, blue: 0),
    ])
    func contrast(background: RGBColor) {
        let colour = TitleBand.textColour(on: background)
        #expect(TitleBand.contrast(colour, background) >= 4.5)
    }

    @Test func darkOnLightAndLightOnDark() {
        #expect(TitleBand.textColour(on: .white) == .black)
        #expect(TitleBand.textColour(on: .black) == .white)
        #expect(TitleBand.textColour(on: RGBColor(red: 0, green: 0, blue: 128)) == .white)
        #expect(abs(TitleBand.contrast(.black, .white) - 21) < 1e-9)
    }
}
