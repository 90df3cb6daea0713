import Testing
@testable import CollageKit

/// `--size` given on paper (issue #34): the pixel canvas and the PDF page
/// follow from the physical size and the print resolution.
@Suite struct PrintSizeTests {
    @Test func papersArePortraitAndTurnWhenAskedLandscape() throws {
        let a4 = try #require(try PrintSize(parsing: "A4"))
        #expect(try a4.canvas(at: .default) == CanvasSize(width: 2480, height: 3508))
        let landscape = try #require(try PrintSize(parsing: "a4-LANDSCAPE"))
        #expect(landscape.name == "A4-landscape")
        #expect(try landscape.canvas(at: .default) == CanvasSize(width: 3508, height: 2480))
        #expect(try #require(try PrintSize(parsing: "letter")).canvas(at: .default) == CanvasSize(width: 2550, height: 3300))
        #expect(try #require(try PrintSize(parsing: "A6")).canvas(at: .default) == CanvasSize(width: 1240, height: 1748))
    }

    /// What pdfinfo reports for the page: A4 is 595.28 x 841.89 points.
    @Test func pointsAreWhatAPDFReaderPrints() throws {
        let a4 = try #require(try PrintSize(parsing: "210x297mm"))
        #expect(String(format: "%.2f x %.2f", a4.points.width, a4.points.height) == "595.28 x 841.89")
        let photo = try #require(try PrintSize(parsing: "6x4in"))
        #expect(photo.points.width == 432)
        #expect(photo.points.height == 288)
    }

    @Test func unitsAreInchesCentimetresAndMillimetres() throws {
        #expect(try #require(try PrintSize(parsing: "6x4in")).canvas(at: .default) == CanvasSize(width: 1800, height: 1200))
        #expect(try #require(try PrintSize(parsing: "15x10cm")).canvas(at: .default) == CanvasSize(width: 1772, height: 1181))
        #expect(try #require(try PrintSize(parsing: "6.5x4.25IN")).name == "6.5x4.25in")
        #expect(try #require(try PrintSize(parsing: "6x4in")).canvas(at: PrintResolution(parsing: "72")) == CanvasSize(width: 432, height: 288))
    }

    /// A pixel size is not a paper size: the caller reads it as before.
    @Test func pixelSizesAreLeftToThePixelParser() throws {
        for pixels in ["1920x1080", "6x4", "1920x", "A7", ""] {
            #expect(try PrintSize(parsing: pixels) == nil, "\(pixels)")
        }
    }

    @Test func badPhysicalSizesAreRefusedWithAnExample() {
        for bad in ["0x4in", "x4in", "-1x4in", "1e3x2in", "6x4xin"] {
            #expect(throws: ValueError.self, "\(bad)") { try PrintSize(parsing: bad) }
        }
        #expect(throws: ValueError("size 'ax4cm' is not WIDTHxHEIGHTcm, e.g. 6x4in, 15x10cm or 210x297mm")) { try PrintSize(parsing: "ax4cm") }
    }

    @Test func aCanvasTooLargeAtTheResolutionIsRefused() throws {
        let a3 = try #require(try PrintSize(parsing: "A3"))
        #expect(throws: ValueError("size A3 at 1200 dpi is 14031x19843 pixels: each side must be 1 to 16384 pixels")) {
            try a3.canvas(at: PrintResolution(parsing: "1200"))
        }
    }

    @Test func resolutionsAreWholeDotsPerInchFrom72To1200() throws {
        #expect(PrintResolution.default.dotsPerInch == 300)
        #expect(try PrintResolution(parsing: "72").dotsPerInch == 72)
        #expect(try PrintResolution(parsing: "1200").dotsPerInch == 1200)
        for bad in ["71", "1201", "300.5", "dpi", ""] {
            #expect(throws: ValueError("resolution '\(bad)' is not a whole number of dpi from 72 to 1200"), "\(bad)") { try PrintResolution(parsing: bad) }
        }
    }
}
