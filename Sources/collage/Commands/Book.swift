import ArgumentParser
import CollageKit
import Foundation

struct Book: ServicedCommand {
    static let configuration = CommandConfiguration(
        commandName: "book",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Make a photo book (a PDF) of a trip's folders.",
        discussion: """
            Groups the photos under the paths into events, as `suggest --events`
            does, and makes a book of them: a cover (the title and the dates
            the trip spans, and under them the best photo, people preferred,
            to the page's edges and into the bleed), then each event in
            the order taken, one collage page each of its best 2, 4 or 6 photos,
            titled with its place and date ("Arezzo · Oct 22, 2008") and
            numbered. An event with more than six photos worth showing takes
            more pages, each repeating its title; one with a single photo joins
            the page of the event before it. Photos without a capture date come
            last, titled by their folder. No photo is shown twice, nor a
            near-duplicate of one. With --pages, events give up pages first,
            then the lowest-scored are left out; everything left out is said.

            Without --title the cover is titled with the trip's place and
            month ("Tuscany · October 2008": the region when the photos lie
            in several towns). Every page has --size's paper and the same
            margins (12 mm inside the trim) and type; --bleed adds to each side,
            and a photo on the trim runs into it.

            --size is the page, on paper or in pixels (default A4; A4-landscape
            turns every page), drawn at --dpi (default 300). --title is the
            cover's. Each page is drawn as `save` draws a collage, and takes its
            --layout, --background, --crop, --fit, --caption, --font and
            --text-colour; --margin and --gap in pixels replace the photos'
            12 mm margin and 3 mm gap (titles and numbers keep to the 12 mm;
            --margin 0 takes the photos to the trim at the page's sides).

            -o FILE.pdf writes one PDF, made whole or not at all. With --format
            \(ImageFormat.pixelExtensions), -o names a folder of page images,
            page-001 the cover, made when every page is written. An existing
            PDF, or a folder holding anything, is never replaced without
            --force (said before any photo is looked at); --force replaces a
            PDF, or a folder of an earlier book's pages (a folder holding
            anything else is left alone), once every new page is written: a
            failure leaves what was there.

            --list FILE (- for standard input) makes the book from a batch list
            instead, as `suggest --events` prints one: a page per collage, its
            #title and #layout; a #size line is ignored. Its cover's photo is
            the best of a page of four or more, which gives up it and its
            weakest photo (the page stays even). Example:
              collage suggest --events trip/ > trip.txt   # edit it
              collage book --list trip.txt -o trip.pdf
            """)

    @Argument(help: ArgumentHelp("Photos, or folders of photos (none with --list).", valueName: "path"),
              completion: .file())
    var paths: [String] = []

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("The PDF to write (a folder with --format \(ImageFormat.pixelExtensions)).", valueName: "file"),
            completion: .file())
    var output: String

    /// --size, --dpi, --title (the cover's), --layout (each page's unless a
    /// list says), --background, --font...: the root command's, which
    /// ArgumentParser gives the root (see CanvasSizeOption), so the same
    /// group. Hidden: their --help lines give other commands' defaults
    /// (1920x1080, no margin); the discussion says the book's.
    @OptionGroup(visibility: .hidden) var drawing: LayoutOptionGroup

    @Flag(help: "Look in folders inside the folders too.")
    var recursive = false

    @Option(help: ArgumentHelp("At most N pages, the cover included.", valueName: "n"))
    var pages: Int?

    // Unconditional: "-3mm" is the value (refused with the reason), not an option.
    @Option(parsing: .unconditional, help: ArgumentHelp("Add LENGTH to each side of every page for the print shop to trim (e.g. 3mm, 0.125in); photos on the trim run into it; titles and numbers stay inside the trim's 12 mm margin.",
                               valueName: "length"))
    var bleed: String = "0mm"

    @Option(help: ArgumentHelp("Make the book from a batch list (- for standard input) instead of folders.", valueName: "file"),
            completion: .file())
    var list: String?

    @Option(help: "pdf, or an image format (\(ImageFormat.pixelExtensions)) for a folder of page images.")
    var format: ImageFormat = .pdf

    @Flag(help: "Replace the PDF, or the folder of an earlier book's pages, if it exists.")
    var force = false

    @OptionGroup var limits: LimitOptionGroup
    var pixelLimit: PixelLimit { limits.maxPixels }

    /// `--size`, A4 when not given: the other commands' default is a screen's pixels.
    private var size: SizeRequest { drawing.canvas.requested ?? .paper(try! PrintSize(parsing: "A4")!) }

    /// The book asked for; `withDrawing` false: the page and bleed alone
    /// (for `validate`: the drawing's options warn of missing fonts, once, in `run`).
    private func options(withDrawing: Bool = true) throws -> BookOptions {
        let bleedMicrometres: Int
        do { bleedMicrometres = try BookOptions.micrometres(parsing: bleed) } catch { throw ValidationError("--bleed \(error)") }
        // The book's own margin and gap unless asked (in pixels, as elsewhere).
        return BookOptions(size: size, dpi: drawing.dpi, title: drawing.title, maxPages: pages,
                           bleedMicrometres: bleedMicrometres, format: format,
                           drawing: withDrawing ? try drawing.renderOptions() : .defaults,
                           margin: drawing.requestedMargin, gap: drawing.requestedGap)
    }

    func validate() throws {
        if paths.isEmpty && list == nil { throw ValidationError("name at least one photo or folder, or --list FILE") }
        if !paths.isEmpty && list != nil { throw ValidationError("--list makes the book from its list: name no paths with it") }
        if let pages, pages < 1 { throw ValidationError("--pages \(pages) is less than 1: a book has at least its cover") }
        if size.aspectRatio == nil { throw ValidationError("--size needs both sides, e.g. A4 or 2480x3508") }
        if let refusal = try options(withDrawing: false).bleedRefusal() { throw ValidationError("--bleed \(refusal)") }
    }

    func run(with services: AppServices) throws {
        let options = try options()
        let workingDirectory = FileManager.default.currentDirectoryPath
        let destination = Photo(resolving: output, against: workingDirectory).path
        if let refusal = BookService.refusal(toWrite: destination, format: options.format, overwrite: force) {
            Console.error(CollageFailure(refusal).commandLineMessage)
            throw ExitCode.failure
        }
        let cache = MeasuresCache()
        if cache.wasDamaged { Console.warning("\(cache.file.path) was damaged: measuring again") }
        if let warning = cache.warning { Console.warning(warning) }
        let service = services.book(cache: cache, note: { Console.warning($0) })
        do {
            let plan: BookPlan, cover: BookCover
            if let list {
                (plan, cover) = try service.plan(list: list, workingDirectory: workingDirectory, options: options)
            } else {
                let photos = RawArguments.bytes(of: paths).map { Photo(resolvingFileSystemPath: $0) }
                let progress = ProgressLine()
                defer { progress.finish() }
                let made = try service.plan(photos, recursive: recursive, options: options, progress: { progress.show($0, $1) })
                (plan, cover) = (made.plan, made.cover)
                // As `suggest` names them: the first few, then a count.
                var skipped: [String] = []
                if !made.report.notPhotos.isEmpty {
                    skipped.append("\(made.report.notPhotos.count) not \(made.report.notPhotos.count == 1 ? "a photo" : "photos"): \(Suggest.named(made.report.notPhotos, under: photos))")
                }
                if let first = made.report.unreadable.first {
                    let more = made.report.unreadable.count - 1
                    skipped.append("\(made.report.unreadable.count) unreadable (\(first)\(more > 0 ? " and \(more) more" : ""))")
                }
                if !skipped.isEmpty { Console.warning("skipped \(skipped.joined(separator: "; "))") }
            }
            plan.notes.forEach { Console.warning($0) }
            guard plan.hero != nil || !plan.pages.isEmpty else {
                Console.error(list.map { "the list \($0 == "-" ? "on standard input" : $0) has no collage of two photos or more: no book made" }
                              ?? "no photo worth showing under \(paths.joined(separator: ", ")): no book made")
                throw ExitCode.failure
            }
            let written = try service.write(plan, cover: cover, to: destination, options: options, overwrite: force)
            Console.note("\(written) \(written == 1 ? "page" : "pages") written to \(destination)")
        } catch let exit as ExitCode {
            throw exit
        } catch {
            Console.error(CollageFailure(error).commandLineMessage)
            throw ExitCode.failure
        }
    }
}
