import CollageTestSupport
import Foundation
import Testing

extension DecodedImage {
    init(width: Int, height: Int, rgb: [UInt8]) {
        (self.width, self.height, self.rgb) = (width, height, rgb)
    }
}

/// `collage save -o collage.pdf` (issue #34): one page of the canvas at its
/// print resolution, each photo one JPEG of its cell, the text as text; read
/// back with poppler's tools (Debian poppler-utils, which make test installs).
@Suite struct PDFEndToEndTests {
    /// An A4 canvas at 300 dpi (2480x3508 pixels: 595.2 x 841.92 points).
    static let a4 = ["--size", "2480x3508", "--dpi", "300"]
    static let title = "Summer in Kyoto"
    static let captioned = a4 + ["--title", title, "--caption", "name"]

    /// The five sample JPEGs and the PNG: six photos.
    func collage() throws -> CLI {
        let cli = try CLI()
        let added = try cli.run(["add"] + CLI.jpegs + [CLI.png])
        try #require(added.status == 0, "\(added.stderr)")
        return cli
    }

    /// `tool` (a poppler-utils program) run on `file`; its standard output.
    static func poppler(_ tool: String, _ arguments: [String], _ file: URL) throws -> ToolRun {
        let path = "/usr/bin/" + tool
        try #require(FileManager.default.isExecutableFile(atPath: path),
                     "\(tool) (Debian poppler-utils) is missing: make test installs it")
        let run = try ToolRun(path, arguments + [file.path] + (tool == "pdftotext" ? ["-"] : []))
        try #require(run.status == 0, "\(tool) failed on \(file.path)")
        return run
    }

    /// `save` with `arguments`, kept for the next save; the file's URL.
    func save(_ cli: CLI, _ name: String, _ arguments: [String]) throws -> URL {
        let saved = try cli.run(["save", "-o", name, "--keep"] + arguments)
        try #require(saved.status == 0, "\(saved.stderr)")
        return cli.workingDirectory.appendingPathComponent(name)
    }

    /// The dry run's plan of the same collage.
    func plan(_ cli: CLI, _ arguments: [String]) throws -> [String: Any] {
        let planned = try cli.run(["save", "--dry-run", "--json"] + arguments)
        return try #require(try JSONSerialization.jsonObject(with: Data(planned.stdout.utf8)) as? [String: Any])
    }

    /// A rectangle of the plan ("cell", "band", the title).
    struct Box {
        let x, y, width, height: Int
        init(_ json: Any?) throws {
            let values = try #require(json as? [String: Any])
            (x, y, width, height) = (values["x"] as? Int ?? -1, values["y"] as? Int ?? -1,
                                     values["width"] as? Int ?? -1, values["height"] as? Int ?? -1)
        }
    }

    /// PSNR of `a` against `b` (the same size) over their pixels outside `boxes`.
    static func psnr(_ a: DecodedImage, _ b: DecodedImage, outside boxes: [Box] = []) -> Double {
        var squared = 0, count = 0
        var counted = [Bool](repeating: true, count: a.width)
        a.rgb.withUnsafeBufferPointer { a8 in
            b.rgb.withUnsafeBufferPointer { b8 in
                counted.withUnsafeMutableBufferPointer { counted in
                    for y in 0..<a.height {
                        counted.update(repeating: true)
                        for box in boxes where (box.y..<box.y + box.height).contains(y) {
                            for x in max(0, box.x)..<min(a.width, box.x + box.width) { counted[x] = false }
                        }
                        for x in 0..<a.width where counted[x] {
                            for at in (y * a.width + x) * 3..<(y * a.width + x) * 3 + 3 {
                                let difference = Int(a8[at]) - Int(b8[at])
                                squared += difference * difference
                            }
                            count += 3
                        }
                    }
                }
            }
        }
        return squared == 0 ? .infinity : 10 * log10(255 * 255 / (Double(squared) / Double(count)))
    }

    /// The page at 300 dpi, as pdftoppm draws it (a PPM: its PNG encoder
    /// takes thirty times as long as the drawing).
    static func rendered(_ pdf: URL) throws -> DecodedImage {
        let ppm = [UInt8](try poppler("pdftoppm", ["-r", "300", "-singlefile"], pdf).output)
        // "P6\nW H\n255\n", then the RGB rows.
        let fields = ppm.prefix(32).split(separator: UInt8(ascii: "\n"), maxSplits: 3, omittingEmptySubsequences: false)
        try #require(fields.count == 4 && fields[0].elementsEqual("P6".utf8) && fields[2].elementsEqual("255".utf8))
        let size = String(decoding: fields[1], as: UTF8.self).split(separator: " ").compactMap { Int($0) }
        let start = fields[0].count + fields[1].count + fields[2].count + 3
        try #require(size.count == 2 && ppm.count == start + size[0] * size[1] * 3, "pdftoppm gave \(ppm.count) bytes")
        return DecodedImage(width: size[0], height: size[1], rgb: Array(ppm[start...]))
    }

    @Test func thePageIsTheCanvasAtItsPrintResolution() throws {
        let cli = try collage()
        let pdf = try save(cli, "a4.pdf", Self.captioned)
        let info = try Self.poppler("pdfinfo", [], pdf).text
        #expect(info.contains("Page size:       595.2 x 841.92 pts (A4)"), "\(info)")
        #expect(info.contains("Pages:           1"))
        #expect(info.contains("Title:           \(Self.title)"))
        #expect(info.contains("Creator:         collage"))
        #expect(info.contains("Producer:        cairo"))
        #expect(info.contains("CreationDate:"))
        // 300 dpi unless --dpi says otherwise: 1200x1800 is 4x6 inches, at 150 dpi 8x12.
        let plain = try Self.poppler("pdfinfo", [], try save(cli, "plain.pdf", ["--size", "1200x1800"])).text
        #expect(plain.contains("Page size:       288 x 432 pts"), "\(plain)")
        let coarse = try Self.poppler("pdfinfo", [], try save(cli, "coarse.pdf", ["--size", "1200x1800", "--dpi", "150"])).text
        #expect(coarse.contains("Page size:       576 x 864 pts"), "\(coarse)")
        // Without a title the document has none.
        #expect(!plain.contains("Title:"), "\(plain)")
        // A size on paper is the page, exactly (its canvas 2480x3508 at 300 dpi).
        let paper = try Self.poppler("pdfinfo", [], try save(cli, "paper.pdf", ["--size", "A4"])).text
        #expect(paper.contains("Page size:       595.276 x 841.89 pts (A4)"), "\(paper)")
    }

    @Test func theTitleAndCaptionsAreTextInEmbeddedFonts() throws {
        let cli = try collage()
        let pdf = try save(cli, "a4.pdf", Self.captioned)
        let text = try Self.poppler("pdftotext", [], pdf).text
        #expect(text.contains(Self.title), "\(text)")
        for photo in CLI.jpegs + [CLI.png] {
            let caption = URL(fileURLWithPath: photo).deletingPathExtension().lastPathComponent
            #expect(text.contains(caption), "\(caption) is not in \(text)")
        }
        // name type encoding emb sub uni ...: the title's bold face among them, every font embedded and subset.
        let fonts = try Self.poppler("pdffonts", [], pdf).text.split(separator: "\n").dropFirst(2)
        #expect(fonts.contains { $0.split(separator: " ").first?.contains("Bold") == true }, "\(fonts)")
        for font in fonts { #expect(font.contains(" yes yes "), "not embedded and subset: \(font)") }
    }

    /// Each photo once, a JPEG of its cell's pixels (the region shown at
    /// the print resolution), in the photos' order.
    @Test func eachPhotoIsOneJPEGOfItsCell() throws {
        let cli = try collage()
        let pdf = try save(cli, "a4.pdf", Self.captioned)
        let cells = try (try plan(cli, Self.captioned)["photos"] as? [[String: Any]] ?? []).map { try Box($0["cell"]) }
        let images = try Self.poppler("pdfimages", ["-list"], pdf).text.split(separator: "\n").dropFirst(2)
            .map { $0.split(separator: " ").map(String.init) }
        try #require(images.count == 6 && cells.count == 6, "\(images)")
        for (image, cell) in zip(images, cells) {
            // page num type width height color comp bpc enc ...
            #expect(image[3] == "\(cell.width)" && image[4] == "\(cell.height)" && image[8] == "jpeg",
                    "\(image) for a cell of \(cell.width)x\(cell.height)")
        }
    }

    /// pdftoppm's page at 300 dpi against the JPEG of the same collage. The
    /// photos match within the two JPEG encodings; poppler's own glyph
    /// rasteriser (quarter-pixel positions, no hinting) draws the text's
    /// edges unlike Cairo's (whole pixels, slight hinting), so a page of
    /// captions is compared outside its text too.
    @Test func thePageLooksLikeTheJPEG() throws {
        let cli = try collage()
        let titled = Self.a4 + ["--title", Self.title]
        let page = try Self.rendered(try save(cli, "titled.pdf", titled))
        let jpeg = try DecodedImage(try save(cli, "titled.jpg", titled).path)
        try #require(page.width == 2480 && page.height == 3508 && jpeg.width == 2480 && jpeg.height == 3508)
        let whole = Self.psnr(page, jpeg)
        note("a titled A4 page against its JPEG: \(whole) dB")
        #expect(whole >= 35, "PSNR \(whole) dB")

        let captionedPage = try Self.rendered(try save(cli, "captioned.pdf", Self.captioned))
        let captionedJPEG = try DecodedImage(try save(cli, "captioned.jpg", Self.captioned).path)
        let plan = try plan(cli, Self.captioned)
        let text = try [Box(plan["title"])] + (plan["photos"] as? [[String: Any]] ?? []).map {
            try Box(($0["caption"] as? [String: Any])?["band"])
        }
        let photos = Self.psnr(captionedPage, captionedJPEG, outside: text)
        note("a captioned A4 page against its JPEG: \(Self.psnr(captionedPage, captionedJPEG)) dB, \(photos) dB outside the text")
        #expect(photos >= 40, "PSNR outside the text \(photos) dB")
    }

    @Test func standardOutputAndBatchWritePDF() throws {
        let cli = try collage()
        let sent = try cli.run(["save", "-o", "-", "--format", "pdf", "--keep", "--size", "600x400"])
        #expect(sent.status == 0 && sent.stdout.hasPrefix("%PDF-"), "\(sent.stderr)")
        try Data((CLI.jpegs.prefix(2) + [""] + CLI.jpegs.suffix(2)).joined(separator: "\n").utf8)
            .write(to: cli.workingDirectory.appendingPathComponent("list.txt"))
        let batch = try cli.run("batch", "list.txt", "-o", "out", "--format", "pdf", "--size", "600x400")
        #expect(batch.status == 0, "\(batch.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: cli.workingDirectory.appendingPathComponent("out").path)
        #expect(written.sorted() == ["collage-001.pdf", "collage-002.pdf"], "\(written)")
        let info = try Self.poppler("pdfinfo", [], cli.workingDirectory.appendingPathComponent("out/collage-001.pdf")).text
        #expect(info.contains("Page size:       144 x 96 pts"), "\(info)")
    }

    /// A page Acrobat could not open (over 200 inches a side) is refused
    /// when it is written: nothing is left behind, the selection is kept.
    @Test func aFailedPDFSaveLeavesNothingAndKeepsTheSelection() throws {
        let cli = try collage()
        let failed = try cli.run("save", "-o", "banner.pdf", "--size", "15000x300", "--dpi", "72")
        #expect(failed.status != 0)
        // One line says why (after the warnings of photos enlarged into cells 150 pixels tall).
        let said = failed.stderr.split(separator: "\n").filter { !$0.hasPrefix("collage: warning:") }
        #expect(said == ["collage: cannot save \(cli.workingDirectory.appendingPathComponent("banner.pdf").path): pdf: a page of 15000x300 points is outside 3 to 14400 a side"],
                "\(failed.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.workingDirectory.path).isEmpty)
        #expect(try cli.count() == 6)
    }
}
