import CollageImaging
import CollageTestSupport
import Foundation
import Testing

/// The page writer (issue #34; formats/pdf_save.c through `ci_document_*`):
/// a page of a physical size, read back with poppler's tools (Debian
/// poppler-utils, which make test installs).
@Suite struct PDFPageTests {
    /// The canvas: 992x1403 (A4 at 120 dpi) of background, and the photo's
    /// cell, red left half, blue right half.
    static let canvasWidth = 992, canvasHeight = 1403
    static let cell = ci_rect(x: 96, y: 300, width: 800, height: 533)
    static let quality: Int32 = 92
    static let canvas: [UInt8] = (0..<canvasWidth * canvasHeight).flatMap { index -> [UInt8] in
        let x = index % canvasWidth, y = index / canvasWidth
        let inCell = x >= Int(cell.x) && x < Int(cell.x) + Int(cell.width) && y >= Int(cell.y) && y < Int(cell.y) + Int(cell.height)
        guard inCell else { return [250, 240, 230] }
        return x < Int(cell.x) + Int(cell.width) / 2 ? [220, 30, 30] : [30, 30, 220]
    }

    /// The bytes a document writes, gathered (the engine's `write` calls them in).
    final class Gathered {
        var bytes: [UInt8] = []
    }

    /// An A4 page (canvas 992x1403, 120 dpi) with the photo, a caption band
    /// and two texts, as a one-page document; the PDF's bytes, or the
    /// engine's error.
    static func write(title: String = "Summer in Kyoto", widthPoints: Double = 595.2755905511812,
                      pixels: Bool = true) throws -> (pdf: [UInt8]?, error: String?) {
        var error = ci_error()
        let gathered = Gathered()
        let status = canvas.withUnsafeBufferPointer { buffer in
            title.withCString { titleText in
                "Sans".withCString { font in
                    let shade = ci_page_shade(box: ci_rect(x: 96, y: 760, width: 800, height: 73),
                                              colour: ci_color(r: 0, g: 0, b: 0), alpha: 128)
                    var texts = [
                        ci_page_text(box: ci_rect(x: 96, y: 100, width: 800, height: 120),
                                     run: ci_text_run(text: titleText, font: font, pixel_size: 60,
                                                      colour: ci_color(r: 0, g: 0, b: 0), width: 800, height: 120,
                                                      max_lines: 2, align: CI_TEXT_CENTRE)),
                    ]
                    return "Caption under the photo".withCString { caption in
                        texts.append(ci_page_text(box: ci_rect(x: 110, y: 770, width: 770, height: 53),
                                                  run: ci_text_run(text: caption, font: font, pixel_size: 36,
                                                                   colour: ci_color(r: 255, g: 255, b: 255), width: 770,
                                                                   height: 53, max_lines: 1, align: CI_TEXT_LEFT)))
                        return texts.withUnsafeBufferPointer { textList in
                            "collage test".withCString { creator in
                                "2026-11-28T10:00:00Z".withCString { date in
                                    // Pointers that outlive the page's initialiser (`&shade`
                                    // there would be valid for that call only).
                                    withUnsafePointer(to: cell) { cellPointer in
                                        withUnsafePointer(to: shade) { shadePointer in
                                            var options = ci_save_options_default()
                                            options.quality = quality
                                            var document = ci_document(
                                                format: CI_FORMAT_PDF, options: options, title: titleText, creator: creator,
                                                creation_date: date,
                                                write: { closure, bytes, size in
                                                    let gathered = Unmanaged<Gathered>.fromOpaque(closure!).takeUnretainedValue()
                                                    gathered.bytes.append(contentsOf: UnsafeBufferPointer(start: bytes, count: size))
                                                    return 1
                                                },
                                                closure: Unmanaged.passUnretained(gathered).toOpaque(), state: nil)
                                            var page = ci_page(
                                                width_points: widthPoints, height_points: 841.8897637795276,
                                                canvas: ci_image(pixels: pixels ? UnsafeMutablePointer(mutating: buffer.baseAddress) : nil,
                                                                 width: UInt32(canvasWidth), height: UInt32(canvasHeight),
                                                                 stride: canvasWidth * 3, channels: 3),
                                                background: ci_color(r: 250, g: 240, b: 230),
                                                photos: cellPointer, photo_count: 1, shades: shadePointer, shade_count: 1,
                                                texts: textList.baseAddress, text_count: textList.count)
                                            let opened = ci_document_open(&document, &error)
                                            guard opened == CI_OK else { return opened }
                                            let added = ci_document_add(&document, &page, &error)
                                            var closing = ci_error()
                                            let closed = ci_document_close(&document, &closing)
                                            if added == CI_OK && closed != CI_OK { error = closing }
                                            return added == CI_OK ? closed : added
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        withExtendedLifetime(gathered) {}
        guard status == CI_OK else { return (nil, TextTests.message(error)) }
        return (gathered.bytes, nil)
    }

    /// The cell's pixels as the writer encodes them: a JPEG at the document's quality.
    static func cellJPEG() throws -> [UInt8] {
        var error = ci_error()
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = canvas.withUnsafeBufferPointer { buffer in
            var image = ci_image(pixels: UnsafeMutablePointer(mutating: buffer.baseAddress! + Int(cell.y) * canvasWidth * 3 + Int(cell.x) * 3),
                                 width: cell.width, height: cell.height, stride: canvasWidth * 3, channels: 3)
            var options = ci_save_options_default()
            options.quality = quality
            return ci_encode(CI_FORMAT_JPEG, &image, &options, &out, &size, &error)
        }
        try #require(status == CI_OK, "\(TextTests.message(error))")
        defer { ci_buffer_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    static func page(title: String = "Summer in Kyoto") throws -> [UInt8] {
        let written = try write(title: title)
        return try #require(written.pdf, "\(written.error ?? "")")
    }

    /// `tool` (a poppler-utils program) run on the PDF; its standard output, as text.
    static func poppler(_ tool: String, _ arguments: [String], pdf: [UInt8]) throws -> String {
        String(decoding: try popplerOutput(tool, arguments, pdf: pdf), as: UTF8.self)
    }

    /// `tool` run on the PDF; its standard output.
    static func popplerOutput(_ tool: String, _ arguments: [String], pdf: [UInt8]) throws -> [UInt8] {
        let path = "/usr/bin/" + tool
        try #require(FileManager.default.isExecutableFile(atPath: path),
                     "\(tool) (Debian poppler-utils) is missing: make test installs it")
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("page.pdf")
        try Data(pdf).write(to: file)
        let run = try ToolRun(path, arguments + [file.path] + (tool == "pdftotext" ? ["-"] : []), in: folder)
        try #require(run.status == 0, "\(tool) failed on the page")
        return [UInt8](run.output)
    }

    @Test func thePageIsA4InPointsWithItsMetadata() throws {
        let pdf = try Self.page()
        let info = try Self.poppler("pdfinfo", [], pdf: pdf)
        #expect(info.contains("Page size:       595.276 x 841.89 pts (A4)"), "\(info)")
        #expect(info.contains("Title:           Summer in Kyoto"))
        #expect(info.contains("Creator:         collage test"))
        #expect(info.contains("CreationDate:    Sat Nov 28 10:00:00 2026 UTC"))
        #expect(info.contains("Pages:           1"))
    }

    @Test func textIsRealTextInEmbeddedFonts() throws {
        let pdf = try Self.page(title: "Summer in Kyoto · 夏の京都")
        let text = try Self.poppler("pdftotext", [], pdf: pdf)
        #expect(text.contains("Summer in Kyoto · 夏の京都"), "\(text)")
        #expect(text.contains("Caption under the photo"))
        let fonts = try Self.poppler("pdffonts", [], pdf: pdf).split(separator: "\n").dropFirst(2)
        #expect(!fonts.isEmpty)
        for font in fonts {
            // name type encoding emb sub uni: every font embedded and subset.
            #expect(font.contains(" yes yes "), "not embedded and subset: \(font)")
        }
    }

    /// The photo is embedded once, as the JPEG of its cell the writer
    /// encoded, at the cell's pixels.
    @Test func thePhotoIsItsCellAsAJPEG() throws {
        let pdf = try Self.page()
        let images = try Self.poppler("pdfimages", ["-list"], pdf: pdf).split(separator: "\n").dropFirst(2)
        #expect(images.count == 1)
        let columns = images.first.map { $0.split(separator: " ").map(String.init) } ?? []
        #expect(columns.count > 8 && columns[3] == "800" && columns[4] == "533" && columns[8] == "jpeg", "\(images)")
        // The JPEG's bytes are in the file as they were encoded (DCTDecode).
        let jpeg = try Self.cellJPEG()
        #expect(pdf.count > jpeg.count && Data(pdf).range(of: Data(jpeg)) != nil)
    }

    /// Rendered at 120 dpi (the canvas's own resolution): the background,
    /// the photo's two halves, the caption band's shade, where they were put.
    @Test func theRenderedPageShowsEverythingWhereItWasPut() throws {
        let pdf = try Self.page()
        let ppm = try Self.popplerOutput("pdftoppm", ["-r", "120"], pdf: pdf)
        // "P6\nW H\n255\n" then RGB; poppler rounds the page's 992.13 x 1403.15 pixels up.
        let fields = ppm.prefix(32).split(separator: UInt8(ascii: "\n"), maxSplits: 3, omittingEmptySubsequences: false)
        try #require(fields.count == 4 && fields[0].elementsEqual("P6".utf8) && fields[2].elementsEqual("255".utf8))
        let size = String(decoding: fields[1], as: UTF8.self).split(separator: " ").compactMap { Int($0) }
        try #require(size.count == 2 && (992...993).contains(size[0]) && (1403...1404).contains(size[1]), "\(size)")
        let start = fields[0].count + fields[1].count + fields[2].count + 3
        try #require(ppm.count == start + size[0] * size[1] * 3, "pdftoppm gave \(ppm.count) bytes")
        func pixel(_ x: Int, _ y: Int) -> [Int] {
            let at = start + (y * size[0] + x) * 3
            return ppm[at..<at + 3].map(Int.init)
        }
        func near(_ a: [Int], _ b: [Int], _ tolerance: Int = 6) -> Bool { zip(a, b).allSatisfy { abs($0 - $1) <= tolerance } }
        #expect(near(pixel(20, 20), [250, 240, 230]), "background \(pixel(20, 20))")
        #expect(near(pixel(300, 500), [220, 30, 30]), "left half \(pixel(300, 500))")
        #expect(near(pixel(700, 500), [30, 30, 220]), "right half \(pixel(700, 500))")
        // Half-black over the photo's blue, right of the caption's text: about (15, 15, 110).
        #expect(near(pixel(860, 765), [15, 15, 110], 10), "caption band \(pixel(860, 765))")
    }

    @Test func badPagesAreRefusedWithAReason() throws {
        #expect(try Self.write(widthPoints: 2).error == "pdf: a page of 2x841.89 points is outside 3 to 14400 a side")
        #expect(try Self.write(pixels: false).error == "pdf: the canvas has no RGB pixels")
    }

    /// A document is pages: one closed without any is refused, and so is
    /// a format that writes no pages.
    @Test func aDocumentNeedsAPageAndAPageWriter() throws {
        var error = ci_error()
        var document = ci_document()
        document.format = CI_FORMAT_PNG
        document.write = { _, _, _ in 1 }
        #expect(ci_document_open(&document, &error) == CI_ERR_INVALID_ARGUMENT)
        #expect(TextTests.message(error) == "ci_document_open: format 2 does not write pages")
        document.format = CI_FORMAT_PDF
        try #require(ci_document_open(&document, &error) == CI_OK, "\(TextTests.message(error))")
        #expect(ci_document_close(&document, &error) == CI_ERR_INVALID_ARGUMENT)
        #expect(TextTests.message(error) == "pdf: a document needs a page")
    }
}
