import CollageTestSupport
import Foundation
import Testing
@testable import CollageKit

/// A collage set on a page (issue #34): what the page sets over the photos,
/// and the paper it is printed on.
@Suite struct CollagePageTests {
    /// Two 4:3 photos in a grid on a 420x594 canvas (A4's shape) with a
    /// title, the first captioned; its pixels a flat grey.
    func page(_ options: CollageRenderOptions) throws -> CollagePage {
        let shape = PhotoShape(width: 4, height: 3)
        let plan = try CollageLayout.plan([shape, shape], LayoutRequest(options))
        let caption = DrawnCaption(text: "Kyoto", band: CaptionBand.rect(in: plan.cells[0], lineHeight: 20, fontPixels: 14),
                                   fontPixels: 14)
        let collage = RenderedCollage(image: RGBImage(width: plan.canvas.width, height: plan.canvas.height,
                                                      filledWith: RGBColor(red: 90, green: 90, blue: 90)),
                                      plan: plan, shown: plan.cells.map { _ in PhotoRegion(x: 0, y: 0, width: 1, height: 1) },
                                      captions: [caption, nil])
        return CollagePage(collage, options: options)
    }

    func options(textColour: RGBColor? = nil) throws -> CollageRenderOptions {
        try CollageRenderOptions(size: RequestedSize(try CanvasSize(width: 420, height: 594)), layout: .grid,
                                 background: RGBColor(red: 20, green: 30, blue: 40), title: try CollageTitle("Summer"),
                                 textColour: textColour)
    }

    /// The caption's band and line, then the title, as the raster drawing
    /// composites them (`CollageText`: one description for both).
    @Test func thePageSetsTheTextTheRasterDraws() throws {
        let options = try options(textColour: RGBColor(red: 255, green: 220, blue: 0))
        let page = try page(options)
        let shape = PhotoShape(width: 4, height: 3)
        let title = try #require(try CollageLayout.plan([shape, shape], LayoutRequest(options)).title)
        #expect(page.title == "Summer")
        #expect(page.background == options.background)
        #expect(page.shades.count == 1 && page.texts.count == 2)
        #expect(page.shades.first?.box == CaptionBand.rect(in: page.cells[0], lineHeight: 20, fontPixels: 14))
        #expect(page.shades.first?.opacity == CaptionBand.opacity)
        // Yellow text on a black band.
        #expect(page.shades.first?.colour == .black && page.texts.first?.colour == options.textColour)
        #expect(page.texts.first?.box == CaptionBand.textBox(in: page.shades[0].box, fontPixels: 14))
        #expect(page.texts.first?.font == CollageFont.captionDefault && page.texts.first?.lines == 1)
        #expect(page.texts.last == CollageText(text: "Summer", font: CollageFont.titleDefault, fontPixels: title.fontPixels,
                                               colour: options.textColour!, box: title.textBox,
                                               lines: TitleRequest.maximumLines))
    }

    /// `tool` (a poppler-utils program) run on the PDF; its standard output.
    static func poppler(_ tool: String, _ pdf: [UInt8]) throws -> String {
        let path = "/usr/bin/" + tool
        try #require(FileManager.default.isExecutableFile(atPath: path),
                     "\(tool) (Debian poppler-utils) is missing: make test installs it")
        let file = try temporaryDirectory().appendingPathComponent("page.pdf")
        try Data(pdf).write(to: file)
        let run = try ToolRun(path, (tool == "pdfimages" ? ["-list"] : []) + [file.path])
        try #require(run.status == 0, "\(tool) failed on the page")
        return run.text
    }

    /// A paper size (`--size A4`, `SaveOptions.page`) is the page, whatever
    /// the canvas; without one the page is the canvas at the print resolution.
    @Test func thePaperIsThePage() throws {
        let page = try page(try options())
        let a4 = try #require(try PrintSize(parsing: "A4"))
        let onPaper = try ImageEngine().encode(page, options: SaveOptions(page: a4))
        #expect(try Self.poppler("pdfinfo", onPaper).contains("Page size:       595.276 x 841.89 pts (A4)"))
        let atResolution = try ImageEngine().encode(page, options: SaveOptions(resolution: PrintResolution(parsing: "72")))
        #expect(try Self.poppler("pdfinfo", atResolution).contains("Page size:       420 x 594 pts"))
        // Each photo once, a JPEG of its cell.
        let images = try Self.poppler("pdfimages", onPaper).split(separator: "\n").dropFirst(2)
            .map { $0.split(separator: " ").map(String.init) }
        #expect(images.map { [$0[3], $0[4], $0[8]] } == page.cells.map { ["\($0.width)", "\($0.height)", "jpeg"] },
                "\(images) for \(page.cells)")
    }
}
