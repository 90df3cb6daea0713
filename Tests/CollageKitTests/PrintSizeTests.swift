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

    /// `--size` as typed: a paper size when it is one, pixels otherwise.
    @Test func aSizeRequestIsPaperOrPixels() throws {
        #expect(try SizeRequest(parsing: "A4") == .paper(try #require(try PrintSize(parsing: "A4"))))
        #expect(try SizeRequest(parsing: "1920x") == .pixels(try RequestedSize(width: 1920, height: nil)))
        #expect(try SizeRequest(parsing: "6x4in").description == "6x4in")
        #expect(throws: ValueError("size 'A7' is not WIDTHxHEIGHT (e.g. 1920x1080), WIDTHx, xHEIGHT or a size on paper (A4, A4-landscape, 6x4in, 15x10cm)")) {
            try SizeRequest(parsing: "A7")
        }
        #expect(try SizeRequest(parsing: "A4-landscape").aspectRatio == 297.0 / 210.0)
        #expect(try SizeRequest(parsing: "1920x1080").aspectRatio == 1920.0 / 1080.0)
        #expect(try SizeRequest(parsing: "x1080").aspectRatio == nil)
    }

    /// The one place a size becomes the pixels drawn and what the file says.
    func resized(_ size: String, dpi: String? = nil) throws -> CollageRenderOptions {
        var options = try CollageRenderOptions(save: SaveOptions(quality: 70))
        try options.resize(to: SizeRequest(parsing: size), dpi: dpi.map { try PrintResolution(parsing: $0) })
        return options
    }

    @Test func aSizeOnPaperIsItsPixelsAtTheResolutionWhichTheFileSays() throws {
        for (size, dpi, width, height) in [("A4", nil, 2480, 3508), ("A4", "300", 2480, 3508), ("a4-landscape", nil, 3508, 2480),
                                           ("6x4in", nil, 1800, 1200), ("letter", "150", 1275, 1650),
                                           ("210x297mm", "72", 595, 842), ("15x10cm", "600", 3543, 2362)] {
            let options = try resized(size, dpi: dpi)
            #expect(options.size == RequestedSize(try CanvasSize(width: width, height: height)), "\(size) at \(dpi ?? "no") dpi")
            #expect(options.save.resolution?.dotsPerInch == Int(dpi ?? "300"), "\(size)")
            #expect(options.save.page == (try PrintSize(parsing: size)), "\(size)")
            #expect(options.save.quality == 70, "the other save options are kept")
        }
    }

    /// Pixels without --dpi: what was written before (no resolution); with it, the dpi only.
    @Test func aSizeInPixelsSaysAResolutionOnlyWhenAsked() throws {
        let plain = try resized("1800x1200")
        #expect(plain.size == RequestedSize(try CanvasSize(width: 1800, height: 1200)))
        #expect(plain.save == (try SaveOptions(quality: 70)))
        let printed = try resized("1800x1200", dpi: "300")
        #expect(printed.size == plain.size)
        #expect(printed.save == (try SaveOptions(quality: 70, resolution: PrintResolution(parsing: "300"))))
        // From paper back to pixels: nothing of the paper is left.
        var options = try resized("A3")
        try options.resize(to: SizeRequest(parsing: "640x480"), dpi: nil)
        #expect(options.save == (try SaveOptions(quality: 70)))
    }

    /// A size resets only what it decides (the page, the resolution): every
    /// other field of `SaveOptions` is carried over, a field added later
    /// too. Each field is set here to a value other than its default, and
    /// the list of fields is checked, so a new one fails this test until it
    /// is set here too (and then its loss fails it).
    @Test func aSizeKeepsEverySaveOptionButThePageAndTheResolution() throws {
        let given = try SaveOptions(quality: 37, resolution: PrintResolution(parsing: "600"), page: PrintSize(parsing: "A5"))
        func fields(_ options: SaveOptions) -> [(String, String)] {
            Mirror(reflecting: options).children.map { ($0.label ?? "?", "\($0.value)") }
        }
        #expect(fields(given).map(\.0) == ["quality", "resolution", "page"],
                "SaveOptions has a new field: give it a value here other than its default")
        for ((name, value), (_, standard)) in zip(fields(given), fields(.defaults)) {
            #expect(value != standard, "\(name) is set to other than its default")
        }
        let decidedBySize: Set = ["resolution", "page"]
        for size in ["640x480", "A4"] {
            var options = try CollageRenderOptions(save: given)
            try options.resize(to: SizeRequest(parsing: size), dpi: PrintResolution(parsing: "150"))
            for ((name, value), (_, kept)) in zip(fields(given), fields(options.save)) where !decidedBySize.contains(name) {
                #expect(kept == value, "\(name) is kept at \(size)")
            }
            #expect(options.save.resolution == (try PrintResolution(parsing: "150")), "\(size)")
            #expect(options.save.page == (try PrintSize(parsing: size)), "\(size): the paper, or none for pixels")
        }
    }

    @Test func aSizeOnPaperTooLargeAtTheResolutionIsRefusedSaying() {
        #expect(throws: ValueError("size A3 at 1200 dpi is 14031x19843 pixels: each side must be 1 to 16384 pixels")) {
            try resized("A3", dpi: "1200")
        }
    }
}
