import CollageKit
import CollageTestSupport
import Foundation
import Testing

/// `collage book` (issue #43) run as a person runs it, its PDF read back as
/// a printer would (poppler's pdfinfo, pdftotext, pdffonts, pdfimages,
/// pdftoppm), over a small trip made once for the suite: three days in
/// Tuscany and a folder of undated photos. Pages at 72 dpi, to stay quick.
@Suite(.serialized) struct BookEndToEndTests {
    /// Five photos at Arezzo on Oct 22, 2008, three in Florence on the 25th,
    /// one alone in Siena on the 27th, two without a date in "Extras".
    static let trip: URL = {
        let folder = try! temporaryDirectory().appendingPathComponent("Tuscany")
        let engine = ImageEngine()
        let arezzo = (43.46311, 11.87831), florence = (43.76956, 11.25581), siena = (43.31822, 11.33064)
        let shots: [(String, Bool, String, String?, (Double, Double)?)] = [
            ("astronaut-eileen-collins.jpg", false, "a1.jpg", "2008:10:22 10:00:00", arezzo),
            ("cameraman-grayscale.jpg", false, "a2.jpg", "2008:10:22 10:30:00", arezzo),
            ("chelsea-the-cat.jpg", false, "a3.jpg", "2008:10:22 11:00:00", arezzo),
            ("coffee-cup.jpg", false, "a4.jpg", "2008:10:22 11:30:00", arezzo),
            ("rocket-exif-orientation-6.jpg", false, "a5.jpg", "2008:10:22 12:00:00", arezzo),
            ("astronaut-eileen-collins.jpg", true, "f1.jpg", "2008:10:25 09:00:00", florence),
            ("chelsea-the-cat.jpg", true, "f2.jpg", "2008:10:25 09:40:00", florence),
            ("coffee-cup.jpg", true, "f3.jpg", "2008:10:25 10:20:00", florence),
            ("cameraman-grayscale.jpg", true, "s1.jpg", "2008:10:27 15:00:00", siena),
            ("rocket-exif-orientation-6.jpg", true, "Extras/u1.jpg", nil, nil),
            ("retina-round-alpha.png", false, "Extras/u2.jpg", nil, nil),
        ]
        try! FileManager.default.createDirectory(at: folder.appendingPathComponent("Extras"), withIntermediateDirectories: true)
        for (sample, mirrored, name, date, position) in shots {
            var picture = try! engine.picture(of: Photo(path: CLI.samples.appendingPathComponent(sample).path), fitting: 320, height: 320)
            if mirrored { picture = SuggestPhotos.mirrored(picture) }
            let jpeg = try! engine.encode(picture, as: .standard, options: SaveOptions(quality: 90))
            let exif = EXIFBlock.block(ifd0: [], exif: date.map { [.ascii(0x9003, $0)] } ?? [],
                                       gps: position.map { EXIFBlock.gps(latitude: $0.0, longitude: $0.1) } ?? [])
            try! Data(EXIFBlock.inserted(exif, into: jpeg)).write(to: folder.appendingPathComponent(name))
        }
        return folder
    }()

    let cli: CLI
    let cache: URL

    init() throws {
        cli = try CLI()
        cache = try temporaryDirectory()
    }

    /// `collage book ARGUMENTS` in the working folder, in a known locale, with its own cache.
    func book(_ arguments: [String], stdin: String? = nil) throws -> Run {
        let input = stdin.map { "printf %s \(shellQuoted($0)) | " } ?? ""
        return try cli.bash("cd \(shellQuoted(cli.workingDirectory.path)) && \(input)XDG_CACHE_HOME=\(shellQuoted(cache.path)) "
                            + "env LC_ALL=en_US.UTF-8 \"$COLLAGE\" book " + arguments.map(shellQuoted).joined(separator: " "))
    }

    func file(_ name: String) -> URL { cli.workingDirectory.appendingPathComponent(name) }

    static func poppler(_ tool: String, _ arguments: [String], _ file: URL) throws -> ToolRun {
        try PDFEndToEndTests.poppler(tool, arguments, file)
    }

    /// pdfinfo's "Pages" and "Page size" (points).
    static func pages(_ pdf: URL) throws -> (count: Int, width: Double, height: Double) {
        let info = try poppler("pdfinfo", [], pdf).text
        func field(_ name: String) -> String {
            info.split(separator: "\n").first { $0.hasPrefix(name + ":") }.map { String($0.dropFirst(name.count + 1)) } ?? ""
        }
        let size = field("Page size").split(separator: " ").compactMap { Double($0) }
        return (Int(field("Pages").trimmingCharacters(in: .whitespaces)) ?? -1, size.first ?? -1, size.dropFirst().first ?? -1)
    }

    @Test func aBookOfATripReadsAsAPrinterReadsIt() throws {
        let run = try book([Self.trip.path, "--recursive", "-o", "trip.pdf", "--dpi", "72"])
        #expect(run.succeeded, "\(run)")
        let pdf = file("trip.pdf")
        // The cover, Arezzo's page, Florence's (with Siena's lone photo), the undated folder's.
        let info = try Self.pages(pdf)
        #expect(info.count == 4, "\(run)")
        #expect(abs(info.width - 595.28) < 0.05 && abs(info.height - 841.89) < 0.05, "A4: \(info)")
        #expect(run.stderr.contains("the event of Siena · Oct 27, 2008 has one photo worth showing: s1.jpg joins the page of Florence · Oct 25, 2008"),
                "\(run)")
        // Titles, places, dates and page numbers, page by page.
        let text = try Self.poppler("pdftotext", [], pdf).text
        let pages = text.split(separator: "\u{0C}").map { $0.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(pages.count == 4)
        #expect(pages[0].contains("Tuscany · October 2008") && pages[0].contains("Oct 22 – 27, 2008"), "\(pages[0])")
        #expect(pages[1].contains("Arezzo · Oct 22, 2008") && pages[1].contains("2"), "\(pages[1])")
        #expect(pages[2].contains("Florence · Oct 25, 2008") && pages[2].contains("3"), "\(pages[2])")
        #expect(pages[3].contains("Extras") && pages[3].contains("4"), "\(pages[3])")
        // Every font embedded.
        let fonts = try Self.poppler("pdffonts", [], pdf).text.split(separator: "\n").dropFirst(2)
        #expect(!fonts.isEmpty && fonts.allSatisfy { $0.split(separator: " ").filter { $0 == "yes" || $0 == "no" }.first == "yes" },
                "\(fonts)")
        // Each photo once, a JPEG: the hero, four of Arezzo's (one is the hero's... or not), Florence's four, two undated.
        let images = try Self.poppler("pdfimages", ["-list"], pdf).text.split(separator: "\n").dropFirst(2)
        #expect(images.allSatisfy { $0.split(separator: " ")[8] == "jpeg" }, "\(images)")
        let perPage = Dictionary(grouping: images, by: { Int($0.split(separator: " ")[0]) ?? 0 }).mapValues(\.count)
        #expect(perPage[1] == 1 && perPage[3] == 4 && perPage[4] == 2, "\(perPage)")
        #expect([4].contains(perPage[2] ?? 0), "Arezzo: five less the cover's, even: \(perPage)")
    }

    /// The pages are A4 unless --size is given, whatever else the command
    /// line holds: a path named "--size" (after --) is a path, not the option
    /// (the default was once found by looking for "--size" among the arguments).
    @Test func thePagesAreA4UnlessTheSizeIsGiven() throws {
        try FileManager.default.createSymbolicLink(atPath: file("--size").path, withDestinationPath: Self.trip.path)
        let named = try book(["-o", "named.pdf", "--dpi", "72", "--recursive", "--", "--size"])
        #expect(named.succeeded, "\(named)")
        let a4 = try Self.pages(file("named.pdf"))
        #expect(abs(a4.width - 595.28) < 0.05 && abs(a4.height - 841.89) < 0.05, "A4: \(a4)")
        let given = try book([Self.trip.path, "--recursive", "-o", "a5.pdf", "--dpi", "72", "--size=A5-landscape"])
        #expect(given.succeeded, "\(given)")
        let a5 = try Self.pages(file("a5.pdf"))
        #expect(abs(a5.width - 595.28) < 0.05 && abs(a5.height - 419.53) < 0.05, "A5 landscape: \(a5)")
    }

    @Test func aBleedAddsToEverySideAndPagesImagesMatchThePDF() throws {
        let run = try book([Self.trip.path, "--recursive", "-o", "bled.pdf", "--dpi", "72", "--bleed", "3mm"])
        #expect(run.succeeded, "\(run)")
        let info = try Self.pages(file("bled.pdf"))
        // 216 x 303 mm.
        #expect(abs(info.width - 612.28) < 0.05 && abs(info.height - 858.90) < 0.05, "\(info)")

        // The same book's pages as images, and as a PDF, at a size in pixels (at 72 dpi a pixel is a
        // point, so pdftoppm draws the page pixel for pixel, with no resampling between them).
        let sized = ["--size", "600x840", "--dpi", "72", "--bleed", "3mm"]
        let images = try book([Self.trip.path, "--recursive", "-o", "pages", "--format", "jpg"] + sized)
        #expect(images.succeeded, "\(images)")
        let names = try FileManager.default.contentsOfDirectory(atPath: file("pages").path).sorted()
        #expect(names == ["page-001.jpg", "page-002.jpg", "page-003.jpg", "page-004.jpg"], "\(names)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.workingDirectory.path).filter { $0.hasPrefix(".") }.isEmpty,
                "no temporary folder left")
        let pdf = try book([Self.trip.path, "--recursive", "-o", "sized.pdf"] + sized)
        #expect(pdf.succeeded, "\(pdf)")
        let size = try Self.pages(file("sized.pdf"))
        #expect(size.width == 618 && size.height == 858, "3 mm at 72 dpi is 9 pixels a side: \(size)")
        // The cover's photo runs into the bleed (its outer 9 pixels); a page's photos stay inside its margin.
        let cover = try DecodedImage(file("pages/page-001.jpg").path)
        #expect((0..<9).allSatisfy { x in cover.pixel(x, cover.height / 2).contains { $0 < 200 } }, "\(cover.pixel(2, cover.height / 2))")
        let inner = try DecodedImage(file("pages/page-003.jpg").path)
        #expect((0..<(9 + 34)).allSatisfy { x in inner.pixel(x, inner.height / 2).allSatisfy { $0 > 245 } })
        // Page 3 drawn by pdftoppm against its image, outside the title band and the footer.
        // The cover too, outside its bands of words (they are the text's rows, the shade under it and all).
        for (number, top, bottom) in [(3, 80, 43), (1, 140, 110)] {
            let drawn = try Self.page(number, of: file("sized.pdf"))
            let image = try DecodedImage(file(String(format: "pages/page-%03d.jpg", number)).path)
            #expect(drawn.width == image.width && drawn.height == image.height,
                    "\(drawn.width)x\(drawn.height) vs \(image.width)x\(image.height)")
            let text = [try PDFEndToEndTests.Box(["x": 0, "y": 0, "width": image.width, "height": top]),
                        try PDFEndToEndTests.Box(["x": 0, "y": image.height - bottom, "width": image.width, "height": bottom])]
            let psnr = PDFEndToEndTests.psnr(drawn, image, outside: text)
            #expect(psnr >= 35, "page \(number): PSNR \(psnr) dB")
        }
    }

    /// Every image format `--format` lists writes page images (its help once
    /// listed avif and webp and the book refused them).
    @Test(arguments: ["webp", "avif"]) func pageImagesInEveryFormatListed(format: String) throws {
        let run = try book([Self.trip.path, "--recursive", "-o", format, "--format", format, "--size", "210x300", "--dpi", "72"])
        #expect(run.succeeded, "\(run)")
        let names = try FileManager.default.contentsOfDirectory(atPath: file(format).path).sorted()
        #expect(names == (1...4).map { "page-00\($0).\(format)" }, "\(names)")
        for name in names {
            let page = try DecodedImage(file("\(format)/\(name)").path)
            #expect(page.width == 210 && page.height == 300, "\(name): \(page.width)x\(page.height)")
        }
    }

    /// With --margin 0 a page's photos reach the trim at its sides and run on
    /// into the bleed; the title and the number keep to the safe margin
    /// (12 mm, 34 px at 72 dpi, inside the 9-pixel bleed). The cover's photo
    /// lies below its title and dates (once under them, over the hero's hair)
    /// and runs into the bleed on its three other sides. On a lime background,
    /// in PNG, so that every pixel is exactly background or not.
    @Test func photosOnTheTrimRunIntoTheBleedAndWordsKeepToTheSafeMargin() throws {
        let run = try book([Self.trip.path, "--recursive", "-o", "full", "--format", "png", "--size", "600x840", "--dpi", "72",
                            "--bleed", "3mm", "--margin", "0", "--background", "lime"])
        #expect(run.succeeded, "\(run)")
        let (bleed, words) = (9, 9 + 34)
        let lime: [UInt8] = [0, 255, 0]
        for number in [1, 3] {
            let page = try DecodedImage(file(String(format: "full/page-%03d.png", number)).path)
            try #require(page.width == 618 && page.height == 858, "\(page.width)x\(page.height)")
            func background(_ x: Int, _ y: Int) -> Bool { page.pixel(x, y) == lime }
            // Nothing at all above the safe margin: no photo, no word.
            #expect((0..<words).allSatisfy { y in (0..<page.width).allSatisfy { background($0, y) } }, "page \(number)")
            // The rows where a photo fills both bleed strips, at the page's two sides.
            let bled = (0..<page.height).filter { y in (0..<bleed).allSatisfy { !background($0, y) && !background(page.width - 1 - $0, y) } }
            #expect(bled.count > page.height / 2, "page \(number): \(bled.count) rows")
            if number == 3 {
                // Above the footer's margin, which holds the number: the bleed at the foot is the background.
                #expect(bled.allSatisfy { $0 < page.height - words }, "page 3: \(bled.last ?? 0)")
                #expect((page.height - bleed..<page.height).allSatisfy { y in (0..<page.width).allSatisfy { background($0, y) } })
            } else {
                // The cover's photo from below its words to the foot, bleed and all; a clear space above it.
                let top = try #require(bled.first)
                #expect(bled == Array(top..<page.height), "the cover's photo's rows: \(top)-\(bled.last ?? 0), \(bled.count)")
                #expect(top > words + 20 && (top - 4..<top).allSatisfy { y in (0..<page.width).allSatisfy { background($0, y) } },
                        "the photo starts at \(top)")
            }
        }
        let text = try book([Self.trip.path, "--recursive", "-o", "full.pdf", "--size", "600x840", "--dpi", "72", "--bleed", "3mm",
                             "--margin", "0"])
        #expect(text.succeeded, "\(text)")
        let pages = try Self.poppler("pdftotext", [], file("full.pdf")).text.split(separator: "\u{0C}")
        #expect(pages.first?.contains("Oct 22 – 27, 2008") == true && pages.dropFirst(2).first?.contains("3") == true, "\(pages)")
    }

    /// Page `number` at 72 dpi, as pdftoppm draws it.
    static func page(_ number: Int, of pdf: URL) throws -> DecodedImage {
        let folder = try temporaryDirectory()
        // pdftoppm writes PREFIX.png.
        let out = folder.appendingPathComponent("page")
        let run = try ToolRun("/usr/bin/pdftoppm", ["-r", "72", "-f", "\(number)", "-l", "\(number)", "-singlefile", "-png", pdf.path, out.path])
        try #require(run.status == 0)
        return try DecodedImage(out.path + ".png")
    }

    @Test func pagesLimitShortensThenLeavesOutTheLowestScoredEvents() throws {
        let run = try book([Self.trip.path, "--recursive", "-o", "short.pdf", "--dpi", "72", "--pages", "3"])
        #expect(run.succeeded, "\(run)")
        #expect(try Self.pages(file("short.pdf")).count == 3)
        #expect(run.stderr.contains("within 3 pages: the event of ") && run.stderr.contains("is left out"), "\(run)")
    }

    @Test func aListMakesAPagePerCollageAndSaysItsSizeLineIsIgnored() throws {
        let folder = Self.trip.path
        let list = "#title First\n#size A5\n" + ["a1", "a2", "a3", "a4"].map { "\(folder)/\($0).jpg\n" }.joined()
            + "\n#title Second\n#layout rows\n\(folder)/f1.jpg\n\(folder)/f2.jpg\n"
        let run = try book(["--list", "-", "-o", "list.pdf", "--dpi", "72", "--title", "Our trip"], stdin: list)
        #expect(run.succeeded, "\(run)")
        #expect(run.stderr.contains("line 2: #size A5 is ignored"), "\(run)")
        // The cover's photo is the best of the page of four (the astronaut: a face), and leaves it with one other.
        #expect(run.stderr.contains("a1.jpg is the cover's photo: it and ") && run.stderr.contains(" leave the page of First, to keep it even"),
                "\(run)")
        let pages = try Self.poppler("pdftotext", [], file("list.pdf")).text.split(separator: "\u{0C}")
        #expect(pages.count == 3)
        #expect(pages[0].contains("Our trip") && pages[0].contains("Oct 22 – 25, 2008"), "the photos' dates: \(pages)")
        #expect(pages[1].contains("First") && pages[2].contains("Second"), "\(pages)")
        let images = try Self.poppler("pdfimages", ["-list"], file("list.pdf")).text.split(separator: "\n").dropFirst(2)
        #expect(images.map { Int($0.split(separator: " ")[0]) ?? 0 } == [1, 2, 2, 3, 3], "\(images)")
    }

    @Test func badInputIsRefusedAndWritesNothing() throws {
        let empty = file("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let none = try book([empty.path, "-o", "none.pdf"])
        #expect(none.isOneLineRefusal(naming: empty.path), "\(none)")
        #expect(!FileManager.default.fileExists(atPath: file("none.pdf").path))

        // Usage errors: one line each, with the reason ("-3mm" the bleed's value, not an option).
        for (arguments, reason) in [(["--pages", "0"], "--pages 0 is less than 1: a book has at least its cover"),
                                    (["--bleed", "-3mm"], "--bleed is negative: use 0 or more, e.g. 3mm"),
                                    (["--bleed", "60mm"], "--bleed 60mm is over a quarter of the page's shorter side (210mm)"),
                                    (["--bleed", "three"], "--bleed 'three' is not a length")] {
            let refused = try book([Self.trip.path, "-o", "x.pdf"] + arguments)
            #expect(refused.status == 64 && refused.stderr.hasPrefix("collage: \(reason)")
                    && refused.stderr.dropLast().firstIndex(of: "\n") == nil, "\(arguments): \(refused)")
        }

        // An output that cannot be written (its folder is a file: for root too): one line at the end, exit 1.
        try Data("not a folder\n".utf8).write(to: file("plain"))
        let unwritable = try book([Self.trip.path, "--recursive", "-o", "plain/book.pdf", "--dpi", "72"])
        // (Only the last line: the plan's notes come first.)
        let last = unwritable.stderr.split(separator: "\n").last ?? ""
        #expect(unwritable.status == 1 && last.hasPrefix("collage: ") && last.contains("plain/book.pdf"), "\(unwritable)")
        #expect(!FileManager.default.fileExists(atPath: file("x.pdf").path))
    }

    /// An existing book is never replaced without --force, and that is said
    /// before any photo is measured (the cache stays empty); --force replaces
    /// a PDF, and a folder of an earlier book's pages, but not a folder that
    /// holds anything else.
    @Test func anExistingBookIsReplacedOnlyWithForce() throws {
        try Data("the old book\n".utf8).write(to: file("old.pdf"))
        let refused = try book([Self.trip.path, "-o", "old.pdf", "--dpi", "72"])
        #expect(refused.status == 1 && refused.stderr == "collage: \(file("old.pdf").path) already exists (use --force to replace it)\n",
                "\(refused)")
        #expect(try String(contentsOf: file("old.pdf"), encoding: .utf8) == "the old book\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.path).isEmpty, "nothing measured")
        let replaced = try book([Self.trip.path, "-o", "old.pdf", "--dpi", "72", "--pages", "2", "--force"])
        #expect(replaced.status == 0, "\(replaced)")
        #expect(try Self.pages(file("old.pdf")).count == 2)

        // Page images: an earlier book's pages are replaced with --force...
        #expect(try book([Self.trip.path, "-o", "pages", "--format", "jpg", "--dpi", "72", "--pages", "3"]).status == 0)
        #expect(try book([Self.trip.path, "-o", "pages", "--format", "jpg", "--dpi", "72", "--pages", "2"]).status == 1)
        let again = try book([Self.trip.path, "-o", "pages", "--format", "jpg", "--dpi", "72", "--pages", "2", "--force"])
        #expect(again.status == 0, "\(again)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: file("pages").path).sorted() == ["page-001.jpg", "page-002.jpg"])
        // ...a folder holding anything else is not, even with --force.
        try Data("mine\n".utf8).write(to: file("pages/notes.txt"))
        let kept = try book([Self.trip.path, "-o", "pages", "--format", "jpg", "--dpi", "72", "--force"])
        #expect(kept.status == 1 && kept.stderr.contains("notes.txt, which is not a page of a book"), "\(kept)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: file("pages").path).sorted()
                == ["notes.txt", "page-001.jpg", "page-002.jpg"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.workingDirectory.path).filter { $0.hasPrefix(".") }.isEmpty,
                "no hidden folder left")
    }

    /// Copies of the trip's photos `names` in a folder of their own.
    static func copies(_ names: [String]) throws -> (folder: URL, photos: [Photo]) {
        let folder = try temporaryDirectory()
        let photos = try names.map { name in
            let copy = folder.appendingPathComponent(name)
            try FileManager.default.copyItem(at: trip.appendingPathComponent(name), to: copy)
            return Photo(path: copy.path)
        }
        return (folder, photos)
    }

    /// A book of `photos[0]` (its cover) and one page of the rest, "Arezzo",
    /// written by the service as an A6 PDF at 72 dpi: the pages written and the notes said.
    static func bookOfOnePage(_ photos: [Photo], to pdf: URL, engine: ImageEngine) throws -> (pages: Int, notes: [String]) {
        let plan = BookPlan(hero: photos[0], pages: [BookPlan.Page(title: "Arezzo", photos: Array(photos[1...]))])
        let notes = Box<[String]>([])
        let service = BookService(engine: engine, suggester: SuggestService(measurer: engine, cache: nil),
                                  note: { notes.value.append($0) })
        let pages = try service.write(plan, cover: BookCover(title: "Trip", dates: nil), to: pdf.path,
                                      options: BookOptions(size: try SizeRequest(parsing: "A6"), dpi: try PrintResolution(parsing: "72")))
        return (pages, notes.value)
    }

    @Test func aPhotoGoneWhileTheBookIsMadeIsLeftOutAndSaid() throws {
        let (folder, photos) = try Self.copies(["a1.jpg", "a2.jpg", "a3.jpg", "f1.jpg", "f2.jpg"])
        try FileManager.default.removeItem(atPath: photos[2].path)
        let pdf = folder.appendingPathComponent("book.pdf")
        let (pages, notes) = try Self.bookOfOnePage(photos, to: pdf, engine: ImageEngine())
        #expect(pages == 2)
        #expect(notes == ["\(photos[2].path): gone since it was looked at: left out of the page of Arezzo",
                          "\(photos[4].path): left out of the page of Arezzo too, to keep its count even"], "\(notes)")
        let images = try Self.poppler("pdfimages", ["-list"], pdf).text.split(separator: "\n").dropFirst(2)
        #expect(images.count == 3, "the cover's and two: \(images)")
    }

    /// A photo chosen that cannot be drawn within the pixel limit (measures
    /// cached by a run with a higher --max-pixels chose it) is left out of
    /// its page and said; the book is made.
    @Test func aPhotoOverThePixelLimitIsLeftOutAndSaid() throws {
        var (folder, photos) = try Self.copies(["a1.jpg", "a2.jpg", "a3.jpg"])
        let png = folder.appendingPathComponent("big.png")
        try FileManager.default.copyItem(at: CLI.samples.appendingPathComponent("retina-round-alpha.png"), to: png)
        photos.append(Photo(path: png.path))
        let info = try ImageEngine().inspect(photos[3])
        // The JPEGs (213x320 at most) draw within it; the 480x480 PNG decodes only whole.
        let pdf = folder.appendingPathComponent("book.pdf")
        let (pages, notes) = try Self.bookOfOnePage(photos, to: pdf, engine: ImageEngine(maxDecodedPixels: 100_000))
        #expect(pages == 2)
        #expect(notes.count == 1 && notes[0].hasPrefix("\(png.path): \(info.width)x\(info.height) is ")
                && notes[0].hasSuffix(", over the limit of 100000 pixels: left out of the page of Arezzo"), "\(notes)")
        let images = try Self.poppler("pdfimages", ["-list"], pdf).text.split(separator: "\n").dropFirst(2)
        #expect(images.count == 3, "the cover's and the page's two JPEGs: \(images)")
    }

    /// A page that fails after others are written (a photo whose data is broken
    /// when it is drawn): the book there before is left as it was, and nothing beside it.
    @Test func aBookThatFailsHalfWayLeavesWhatWasThere() throws {
        let folder = try temporaryDirectory()
        let good = folder.appendingPathComponent("a1.jpg"), other = folder.appendingPathComponent("a2.jpg")
        try FileManager.default.copyItem(at: Self.trip.appendingPathComponent("a1.jpg"), to: good)
        try FileManager.default.copyItem(at: Self.trip.appendingPathComponent("a2.jpg"), to: other)
        let broken = folder.appendingPathComponent("broken.jpg")
        try Data("not a JPEG at all".utf8).write(to: broken)
        let pdf = folder.appendingPathComponent("book.pdf")
        try Data("the old book\n".utf8).write(to: pdf)
        let plan = BookPlan(hero: Photo(path: good.path), pages: [BookPlan.Page(title: "Arezzo", photos: [Photo(path: other.path),
                                                                                                       Photo(path: broken.path)])])
        let engine = ImageEngine()
        let service = BookService(engine: engine, suggester: SuggestService(measurer: engine, cache: nil), note: { _ in })
        #expect(throws: ImageEngineError.self) {
            try service.write(plan, cover: BookCover(title: "Trip", dates: nil), to: pdf.path,
                              options: BookOptions(size: try SizeRequest(parsing: "A6"), dpi: try PrintResolution(parsing: "72")),
                              overwrite: true)
        }
        #expect(try String(contentsOf: pdf, encoding: .utf8) == "the old book\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["a1.jpg", "a2.jpg", "book.pdf", "broken.jpg"])
        // The same as page images: no folder, and no hidden one.
        #expect(throws: (any Error).self) {
            try service.write(plan, cover: BookCover(title: "Trip", dates: nil), to: folder.appendingPathComponent("pages").path,
                              options: BookOptions(size: try SizeRequest(parsing: "A6"), dpi: try PrintResolution(parsing: "72"),
                                                   format: try ImageFormat(extension: "jpg")))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["a1.jpg", "a2.jpg", "book.pdf", "broken.jpg"])
    }
}
