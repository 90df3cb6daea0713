import CollageImaging
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How a photo book is made (`collage book`, issue #43).
public struct BookOptions: Sendable {
    /// Each page's size: paper (drawn at `dpi`) or pixels (both sides).
    public var size: SizeRequest
    /// `--dpi`; nil: 300.
    public var dpi: PrintResolution?
    /// The cover's title; nil: made from the trip's places and dates.
    public var title: String?
    /// At most this many pages, the cover included; nil: as many as needed.
    public var maxPages: Int?
    /// Added to the paper on every side (`--bleed`), in micrometres.
    public var bleedMicrometres: Int
    /// `.pdf`: one document; a raster format: a folder of page images.
    public var format: ImageFormat
    /// How each page is drawn, but for its size, title, margin and gap:
    /// the layout (a list's `#layout` overrides it), background, crop, fit,
    /// captions, font, text colour and save quality asked.
    public var drawing: CollageRenderOptions
    /// The photos' margin inside the trim (0: a photo on the trim runs into
    /// the bleed; the words keep to `safeMarginMicrometres` whatever it is)
    /// and the gap between photos, in pixels; nil: `safeMarginMicrometres`
    /// and `gapMicrometres` at `dpi`.
    public var margin: Int?
    public var gap: Int?

    public init(size: SizeRequest, dpi: PrintResolution? = nil, title: String? = nil, maxPages: Int? = nil,
                bleedMicrometres: Int = 0, format: ImageFormat = .pdf, drawing: CollageRenderOptions = .defaults,
                margin: Int? = nil, gap: Int? = nil) {
        self.size = size
        self.dpi = dpi
        self.title = title
        self.maxPages = maxPages
        self.bleedMicrometres = bleedMicrometres
        self.format = format
        self.drawing = drawing
        self.margin = margin
        self.gap = gap
    }

    var resolution: PrintResolution { dpi ?? .default }

    /// The same margin on every page, inside the trim: titles and page
    /// numbers stay this far from the edge a print shop cuts.
    public static let safeMarginMicrometres = 12_000
    /// The space between photos.
    public static let gapMicrometres = 3_000

    func pixels(_ micrometres: Int) -> Int {
        Int((Double(micrometres) * Double(resolution.dotsPerInch) / 25_400).rounded())
    }

    /// The page (trim plus bleed) in pixels, and the page a PDF says (nil
    /// for pixels: its size at `dpi`).
    func page() throws -> (canvas: CanvasSize, paper: PrintSize?) {
        switch size {
        case let .paper(paper):
            guard bleedMicrometres > 0 else { return (try paper.canvas(at: resolution), paper) }
            let text = String(format: "%.3fx%.3fmm", Double(paper.widthMicrometres + 2 * bleedMicrometres) / 1000,
                              Double(paper.heightMicrometres + 2 * bleedMicrometres) / 1000)
            guard let bled = try PrintSize(parsing: text) else { throw ValueError("cannot add the bleed to \(paper)") }
            return (try bled.canvas(at: resolution), bled)
        case let .pixels(requested):
            guard let width = requested.width, let height = requested.height else {
                throw ValueError("a book's page size needs both sides, e.g. A4 or 2480x3508")
            }
            let bleed = pixels(bleedMicrometres)
            return (try CanvasSize(width: width + 2 * bleed, height: height + 2 * bleed), nil)
        }
    }

    /// Why a bleed is refused, said after the bleed's name ("is negative:
    /// ..."): negative, or over a quarter of the page's shorter side (nil:
    /// fine).
    public func bleedRefusal() -> String? {
        if bleedMicrometres < 0 { return "is negative: use 0 or more, e.g. 3mm" }
        let shorter: Int
        switch size {
        case let .paper(paper): shorter = min(paper.widthMicrometres, paper.heightMicrometres)
        case let .pixels(requested):
            shorter = min(requested.width ?? .max, requested.height ?? .max) * 25_400 / resolution.dotsPerInch
        }
        if bleedMicrometres * 4 > shorter {
            return "\(Self.millimetres(bleedMicrometres)) is over a quarter of the page's shorter side (\(Self.millimetres(shorter)))"
        }
        return nil
    }

    /// Micrometres as a person writes them: "60mm", "2.5mm".
    static func millimetres(_ micrometres: Int) -> String { String(format: "%gmm", Double(micrometres) / 1000) }

    /// A length as a print shop writes one: "3mm", "0.3cm", "0.125in"
    /// (a bare number is millimetres), in micrometres; may be negative
    /// (refused by `bleedRefusal`, with the reason).
    public static func micrometres(parsing text: String) throws -> Int {
        let lowered = text.lowercased().trimmingCharacters(in: .whitespaces)
        let unit = PrintSize.units.first { lowered.hasSuffix($0.suffix) } ?? ("", 1_000)
        guard let value = Double(lowered.dropLast(unit.suffix.count)), value.isFinite else {
            throw ValueError("'\(text)' is not a length: write e.g. 3mm, 0.3cm or 0.125in")
        }
        return Int((value * unit.micrometres).rounded())
    }
}

/// The cover's words: the book's title and the dates it spans.
public struct BookCover: Equatable, Sendable {
    public var title: String
    public var dates: String?

    public init(title: String, dates: String?) {
        self.title = title
        self.dates = dates
    }
}

/// Makes a photo book: the photos under some paths grouped into events
/// and chosen (`SuggestService`), planned into pages (`BookPlan`), each
/// page a collage drawn by the engine, written as one PDF streamed page by
/// page, or as a folder of page images.
public final class BookService {
    private let engine: ImageEngine
    private let suggester: SuggestService
    /// Told each thing a person should know (an event joined or left out, a
    /// photo gone), as it happens.
    private let note: (String) -> Void

    public init(engine: ImageEngine, suggester: SuggestService, note: @escaping (String) -> Void) {
        self.engine = engine
        self.suggester = suggester
        self.note = note
    }

    /// The plan and cover of the photos under `paths`, and the report they
    /// came from (for what was skipped).
    public func plan(_ paths: [Photo], recursive: Bool, followLinks: Bool = false, options: BookOptions,
                     progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in })
        throws -> (plan: BookPlan, cover: BookCover, report: SuggestionReport) {
        let report = try suggester.suggest(paths, recursive: recursive, followLinks: followLinks, choice: try Self.choice(for: options),
                                           byEvents: true, progress: progress)
        let byEvent = Dictionary(grouping: report.verdicts.indices, by: { report.verdicts[$0].event })
        let events = byEvent.keys.sorted().map { event -> BookPlan.Event in
            let members = byEvent[event]!
            let candidates = members.compactMap { i -> BookPlan.Candidate? in
                guard let score = report.verdicts[i].score else { return nil }
                return BookPlan.Candidate(photo: report.photos[i].photo, score: score,
                                          hasPeople: (report.photos[i].measures.faces ?? 0) > 0,
                                          enlargement: report.verdicts[i].enlarged)
            }
            return BookPlan.Event(title: report.title(ofEvent: event), photos: candidates,
                                  undated: report.photos[members[0]].measures.taken == nil)
        }
        let plan = BookPlan.make(events, maxPages: options.maxPages)
        return (plan, Self.cover(of: report, title: options.title), report)
    }

    /// The plan and cover of a batch list (`list` a file, or - for standard
    /// input: `BatchListSource`): `BookPlan.fromList`'s pages; its photos
    /// measured as `suggest` measures them (from the cache `suggest --events`
    /// filled) for the cover: its photo (`BookPlan.takeCover`), its title
    /// when none is given, and its dates.
    public func plan(list: String, workingDirectory: String, options: BookOptions) throws
        -> (plan: BookPlan, cover: BookCover) {
        let source = try BatchListSource(argument: list, workingDirectory: workingDirectory)
        var plan = BookPlan.fromList(IteratorSequence(source.groups), maxPages: options.maxPages)
        if let failure = source.readFailure { throw failure }
        // A photo that cannot be read is said when its page is drawn.
        let photos = plan.pages.flatMap(\.photos).map { $0.focused(nil) }.filter { photo in
            photo.withFileSystemPath { access($0, R_OK) } == 0
        }
        guard !photos.isEmpty else { return (plan, BookCover(title: options.title ?? "Photos", dates: nil)) }
        let report = try suggester.suggest(photos, recursive: false, choice: try Self.choice(for: options), byEvents: true)
        var scores: [[UInt8]: BookPlan.Candidate] = [:]
        for (photo, verdict) in zip(report.photos, report.verdicts) {
            guard let score = verdict.score else { continue }
            scores[photo.photo.fileSystemPath] = BookPlan.Candidate(photo: photo.photo, score: score,
                                                                    hasPeople: (photo.measures.faces ?? 0) > 0)
        }
        plan.takeCover { scores[$0.fileSystemPath] }
        return (plan, Self.cover(of: report, title: options.title))
    }

    /// What `suggest` is asked for a book's pages: six a page, for the page's shape.
    static func choice(for options: BookOptions) throws -> SuggestionChoice {
        let canvas = try options.page().canvas
        return SuggestionChoice(count: CollageRules.maximumPhotos, canvasShape: Double(canvas.width) / Double(canvas.height),
                                canvasArea: Double(canvas.width * canvas.height))
    }

    /// The cover's title (given, or the trip's place and month: "Tuscany ·
    /// October 2008", the region when its photos lie in more than one town)
    /// and the dates the trip spans.
    public static func cover(of report: SuggestionReport, title: String?,
                             locale: Locale = CaptionSource.environmentLocale()) -> BookCover {
        let clocks = report.photos.compactMap { $0.measures.taken?.wallClock }
        guard let first = clocks.min(), let last = clocks.max() else {
            return BookCover(title: title ?? SuggestionReport.folderTitle(report.photos.map(\.photo)), dates: nil)
        }
        let dates = SuggestionReport.dateTitle(from: first, to: last, locale: locale)
        if let title { return BookCover(title: title, dates: dates) }
        let positions = report.photos.compactMap(\.measures.position)
        var place: String?
        if let places = report.places, let named = places.title(of: positions) {
            // One town names the trip; several, their region when they share one.
            place = named.contains(" – ") ? (places.commonRegion(of: positions) ?? named) : named
        }
        let months = monthTitle(from: first, to: last, locale: locale)
        return BookCover(title: place.map { "\($0) · \(months)" } ?? months, dates: dates)
    }

    /// "October 2008", or "September – October 2008", "December 2008 –
    /// January 2009", in the locale's words, on the photos' wall clocks.
    static func monthTitle(from first: Double, to last: Double, locale: Locale) -> String {
        func formatted(_ template: String, _ clock: Double) -> String {
            let formatter = DateFormatter()
            formatter.locale = locale
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.setLocalizedDateFormatFromTemplate(template)
            return formatter.string(from: Date(timeIntervalSince1970: clock))
        }
        let (from, to) = (formatted("MMMMyyyy", first), formatted("MMMMyyyy", last))
        if from == to { return from }
        if formatted("yyyy", first) == formatted("yyyy", last) { return "\(formatted("MMMM", first)) – \(to)" }
        return "\(from) – \(to)"
    }

    /// Why writing the book to `output` would be refused, asked before its
    /// photos are measured (minutes for a library): a PDF that exists, or a
    /// folder that holds anything, unless `overwrite`; and even then a
    /// folder that holds anything but an earlier book's page images, which
    /// are all `overwrite` replaces (`-o ~/Pictures --force` must not
    /// delete pictures).
    public static func refusal(toWrite output: String, format: ImageFormat, overwrite: Bool) -> Error? {
        if format.isPage { return AtomicFile.refusal(toWrite: output, overwrite: overwrite) }
        guard let existing = try? FileManager.default.contentsOfDirectory(atPath: output), !existing.isEmpty else { return nil }
        guard overwrite else { return FileWriteError.exists(path: output) }
        if let other = existing.sorted().first(where: { !Self.isPageImage($0) }) {
            return FileWriteError.io(path: output, reason: "it holds \(other), which is not a page of a book: only a folder of page images is replaced")
        }
        return nil
    }

    /// `page-001.jpg` and the like: what `writeImages` names a page.
    private static func isPageImage(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].hasPrefix("page-"), let format = ImageFormat.saving(extension: String(parts[1])),
              !format.isPage else { return false }
        let number = parts[0].dropFirst("page-".count)
        return number.count >= 3 && number.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Writes the book: `output` a PDF file (left as it was when anything
    /// fails), or for a raster format a folder of `page-001.EXT` (the
    /// cover) onwards, written into a hidden folder beside it and renamed
    /// when every page is written. What is there already is replaced only
    /// with `overwrite` (`refusal(toWrite:)`). Returns the pages written.
    @discardableResult
    public func write(_ plan: BookPlan, cover: BookCover, to output: String, options: BookOptions,
                      overwrite: Bool = false) throws -> Int {
        if let refusal = Self.refusal(toWrite: output, format: options.format, overwrite: overwrite) { throw refusal }
        let layout = try PageLayout(options)
        if options.format.isPage {
            try AtomicFile.write(to: output, overwrite: overwrite, mode: AtomicFile.sharedFileMode) { fd in
                let document = try PageDocument(options: layout.save, title: cover.title, threads: engine.decodeThreads,
                                                writingTo: fd)
                try eachPage(plan, cover: cover, layout: layout) { page, _ in try document.add(page) }
                try document.close()
            }
            return pagesWritten
        }
        return try writeImages(plan, cover: cover, layout: layout, to: output, options: options, overwrite: overwrite)
    }

    /// Pages drawn so far by `eachPage`.
    private var pagesWritten = 0

    /// The page images into a hidden folder beside `output`, renamed to it
    /// at the end (an empty folder there is replaced; with `overwrite`, an
    /// earlier book's pages too, moved aside first and removed once the new
    /// pages have their name).
    private func writeImages(_ plan: BookPlan, cover: BookCover, layout: PageLayout, to output: String,
                             options: BookOptions, overwrite: Bool) throws -> Int {
        let url = URL(fileURLWithPath: output)
        let parent = url.deletingLastPathComponent().path
        func hiddenName() -> String { "\(parent)/.\(url.lastPathComponent).\(UInt32.random(in: 0...UInt32.max)).tmp" }
        let hidden = hiddenName()
        guard mkdir(hidden, 0o775) == 0 else { throw AtomicFile.ioError(output) }
        do {
            try eachPage(plan, cover: cover, layout: layout) { page, number in
                let bytes = try engine.encode(try engine.drawnImage(of: page), as: options.format, options: layout.save)
                let name = String(format: "%@/page-%03d.%@", hidden, number, options.format.fileExtension)
                try AtomicFile.write(bytes, to: name, overwrite: false, mode: AtomicFile.sharedFileMode)
            }
            // Asked again: the folder may have changed while the pages were drawn.
            if let refusal = Self.refusal(toWrite: output, format: options.format, overwrite: overwrite) { throw refusal }
            var earlier: String?
            if overwrite, let existing = try? FileManager.default.contentsOfDirectory(atPath: output), !existing.isEmpty {
                let aside = hiddenName()
                guard rename(output, aside) == 0 else { throw AtomicFile.ioError(output) }
                earlier = aside
            }
            guard rename(hidden, output) == 0 else {
                let error = errno == ENOTEMPTY || errno == EEXIST ? FileWriteError.exists(path: output) : AtomicFile.ioError(output)
                if let earlier { rename(earlier, output) }
                throw error
            }
            if let earlier { try? FileManager.default.removeItem(atPath: earlier) }
        } catch {
            try? FileManager.default.removeItem(atPath: hidden)
            throw error
        }
        return pagesWritten
    }

    /// Draws the cover and each page in turn (one in memory at a time),
    /// numbered from 1 (the cover), and hands each to `add`.
    private func eachPage(_ plan: BookPlan, cover: BookCover, layout: PageLayout,
                          add: (CollagePage, Int) throws -> Void) throws {
        pagesWritten = 0
        let hero = plan.hero.flatMap { present([$0], title: cover.title, keepingEven: false).first }
        let coverPage: CollagePage
        if let hero {
            coverPage = try self.cover(hero, cover, layout: layout)
        } else {
            coverPage = layout.blankPage(title: cover.title)
                .adding(cover.dates.map { [layout.footer($0, scale: 0.8)] } ?? [])
        }
        try add(coverPage, 1)
        pagesWritten = 1
        for page in plan.pages {
            let photos = present(page.photos, title: page.title, keepingEven: true)
            guard photos.count >= BookPlan.fewestPerPage else {
                note("the page of \(page.title) is left out: fewer than two of its photos are left")
                continue
            }
            let options = try layout.render(title: page.title, mode: page.layout)
            let band = try titleBand(page.title, options: options, layout: layout)
            let top = layout.words + (band.map { $0.rect.height + layout.gap } ?? 0)
            let area = CellRect(x: layout.inset, y: top, width: layout.canvas.width - 2 * layout.inset,
                                height: layout.canvas.height - layout.words - top)
            let drawn = try draw(photos, in: area, title: band, options: options, layout: layout)
            let number = pagesWritten + 1
            try add(drawn.adding([layout.footer(String(number), scale: 0.6)]), number)
            pagesWritten = number
        }
    }

    /// A title's band across the top of a page, inside the safe margin, as
    /// tall as its lines in the pages' type (nil: no font to draw it).
    private func titleBand(_ title: String, options: CollageRenderOptions, layout: PageLayout) throws -> TitleBand? {
        guard let measured = try engine.planner.measure(try CollageTitle(title), options, width: layout.canvas.width) else { return nil }
        return TitleBand(text: title, rect: CellRect(x: layout.words, y: layout.words, width: layout.canvas.width - 2 * layout.words,
                                                     height: measured.bandHeight),
                         fontPixels: measured.fontPixels)
    }

    /// `photos` laid out in `area` of the page (a cell on its edge runs to
    /// the page's edge: into the bleed), with `title`'s band, drawn with
    /// their words apart.
    private func draw(_ photos: [Photo], in area: CellRect, title: TitleBand?, options: CollageRenderOptions,
                      layout: PageLayout) throws -> CollagePage {
        var inside = options
        inside.size = RequestedSize(try CanvasSize(width: area.width, height: area.height))
        inside.margin = 0
        inside.title = nil
        let laidOut = try engine.planner.plan(photos, options: inside)
        let plan = LayoutPlan(canvas: layout.canvas, layout: laidOut.layout,
                              cells: laidOut.cells.map { CellRect(x: $0.x + area.x, y: $0.y + area.y, width: $0.width, height: $0.height) },
                              fit: laidOut.fit, title: title)
        return CollagePage(try engine.drawNoting(photos, plan: plan, options: options, text: .apart).collage, options: options)
    }

    /// The cover: the title where the pages have theirs and the dates under
    /// it, on the background; the photo below them, to the page's edges and
    /// into the bleed (no word over it: the top of a head, a face, stays clear).
    private func cover(_ hero: Photo, _ cover: BookCover, layout: PageLayout) throws -> CollagePage {
        let options = try layout.render(title: cover.title, mode: nil)
        let band = try titleBand(cover.title, options: options, layout: layout)
        var top = layout.words + (band?.rect.height ?? 0)
        var dates: [CollageText] = []
        if let text = cover.dates {
            let line = layout.footer(text, scale: 0.8)
            let height = Int((line.fontPixels * 1.6).rounded())
            dates = [CollageText(text: text, font: line.font, fontPixels: line.fontPixels, colour: line.colour,
                                 box: CellRect(x: layout.words, y: top, width: line.box.width, height: height), lines: 1)]
            top += height
        }
        top += (layout.words - layout.bleed) / 2
        var whole = layout.fullPage()
        whole.title = options.title
        let page = try draw([hero], in: CellRect(x: 0, y: top, width: layout.canvas.width, height: layout.canvas.height - top),
                            title: band, options: whole, layout: layout)
        return page.adding(dates)
    }

    /// The photos that are still there to draw; each one gone since it was
    /// measured is said, and (`keepingEven`) the last is left out too when
    /// that leaves an odd count (a collage shows an even number).
    private func present(_ photos: [Photo], title: String, keepingEven: Bool) -> [Photo] {
        var kept = photos.filter { photo in
            let readable = photo.withFileSystemPath { access($0, R_OK) } == 0
            if !readable { note("\(photo.path): gone since it was looked at: left out of the page of \(title)") }
            return readable && drawable(photo, title: title)
        }
        if keepingEven && kept.count % 2 == 1 && kept.count < photos.count {
            let dropped = kept.removeLast()
            note("\(dropped.path): left out of the page of \(title) too, to keep its count even")
        }
        return kept
    }

    /// Whether `photo` can be drawn within the pixel limit; if not, said and
    /// left out of its page, not the book failed for it. Measures cached by
    /// a run with a higher --max-pixels choose such a photo (measuring
    /// refuses it now: `ImageEngine.measure`).
    private func drawable(_ photo: Photo, title: String) -> Bool {
        do {
            _ = try engine.inspect(photo)
        } catch let error as ImageEngineError where error.kind == .tooLarge {
            note("\(error.message): left out of the page of \(title)")
            return false
        } catch {}  // anything else is said when the page is drawn, as before
        return true
    }
}

/// The shape every page of a book shares: its canvas, margins, gap, type.
struct PageLayout {
    let canvas: CanvasSize
    let save: SaveOptions
    /// The words' distance from the page's edge: the bleed and the safe
    /// margin inside the trim (the margin asked when it is wider).
    let words: Int
    /// The photos' distance from the page's edge: the bleed and the margin
    /// (none when the margin is 0: the photos on the trim run into the bleed).
    let inset: Int
    let bleed: Int
    let gap: Int
    let titlePixels: Double
    let drawing: CollageRenderOptions
    /// The footer's colour: the title's.
    let ink: RGBColor

    init(_ options: BookOptions) throws {
        let page = try options.page()
        canvas = page.canvas
        save = try SaveOptions(quality: options.drawing.save.quality, resolution: options.resolution, page: page.paper)
        bleed = options.pixels(options.bleedMicrometres)
        let margin = options.margin ?? options.pixels(BookOptions.safeMarginMicrometres)
        words = bleed + max(margin, options.pixels(BookOptions.safeMarginMicrometres))
        inset = margin == 0 ? 0 : bleed + margin
        gap = options.gap ?? options.pixels(BookOptions.gapMicrometres)
        titlePixels = TitleRequest.fontPixels(for: RequestedSize(canvas), font: options.drawing.font)
        drawing = options.drawing
        ink = options.drawing.textColour ?? TitleBand.textColour(on: options.drawing.background)
    }

    /// A page's drawing: the book's canvas, margin and gap, titled `title`,
    /// in `mode` (nil: the book's layout).
    func render(title: String, mode: LayoutMode?) throws -> CollageRenderOptions {
        var options = drawing
        options.size = RequestedSize(canvas)
        options.layout = mode ?? drawing.layout
        options.margin = words
        options.gap = gap
        options.save = save
        options.title = try CollageTitle(title)
        return options
    }

    /// Words in the bottom margin, inside the trim (a page number, the cover's dates).
    func footer(_ text: String, scale: Double) -> CollageText {
        CollageText(text: text, font: drawing.font?.description ?? CollageFont.captionDefault,
                    fontPixels: (titlePixels * scale).rounded(),
                    colour: ink,
                    box: CellRect(x: words, y: canvas.height - words, width: canvas.width - 2 * words,
                                  height: words - bleed), lines: 1)
    }

    /// A cover's photo: the book's drawing, auto, with no margin, gap, title or caption.
    func fullPage() -> CollageRenderOptions {
        var options = drawing
        options.size = RequestedSize(canvas)
        options.layout = .auto
        options.margin = 0
        options.gap = 0
        options.save = save
        options.title = nil
        options.caption = .none
        return options
    }

    /// A cover with no photo: its title alone, centred.
    func blankPage(title: String) -> CollagePage {
        CollagePage(image: RGBImage(width: canvas.width, height: canvas.height, filledWith: drawing.background),
                    background: drawing.background, cells: [], shades: [],
                    texts: [CollageText(text: title, font: drawing.font?.description ?? CollageFont.titleDefault, fontPixels: titlePixels,
                                        colour: ink,
                                        box: CellRect(x: words, y: words, width: canvas.width - 2 * words,
                                                      height: canvas.height - 2 * words),
                                        lines: TitleRequest.maximumLines)],
                    title: title)
    }
}

extension ImageEngine {
    /// `page`'s pixels with its bands and words drawn in, as a raster
    /// collage draws its captions: a page image shows what its PDF page
    /// sets as text.
    func drawnImage(of page: CollagePage) throws -> RGBImage {
        var image = page.image
        let (width, height) = (image.width, image.height)
        try image.pixels.withUnsafeMutableBufferPointer { buffer in
            var canvas = ci_image(pixels: buffer.baseAddress, width: UInt32(width), height: UInt32(height),
                                  stride: width * 3, channels: 3)
            for shade in page.shades { ci_shade_box(&canvas, ci_rect(shade.box), ci_color(shade.colour), shade.opacity) }
            for text in page.texts { try draw(text, on: &canvas) }
        }
        return image
    }
}

extension BookPlan {
    /// The book of a batch list (`suggest --events`' output, edited): a
    /// page per collage, its `#title` and `#layout`, the photos as listed; a
    /// collage with a problem, or fewer than two photos, is left out and
    /// said; a `#size` line is said and ignored (a book has one page size).
    /// Its cover has the title alone: a list says nothing of which photo is
    /// best. Within `maxPages`, the last collages are left out.
    public static func fromList<Groups: Sequence>(_ groups: Groups, maxPages: Int?) -> BookPlan
        where Groups.Element == BatchGroup {
        var pages: [Page] = []
        var notes: [String] = []
        var seen = Set<Photo>()
        for group in groups {
            if let problem = group.problem {
                notes.append("collage \(group.number) (\(group.lineRange)) is left out: \(problem)")
                continue
            }
            if let size = group.size { notes.append("line \(size.line): #size \(size.request) is ignored: a book has one page size") }
            var photos = group.photos.filter { seen.insert($0).inserted }
            if photos.count < group.photos.count {
                notes.append("collage \(group.number) (\(group.lineRange)): a photo already on an earlier page is left out")
            }
            if photos.count % 2 == 1 { photos.removeLast() }
            photos = Array(photos.prefix(mostPerPage))
            guard photos.count >= fewestPerPage else {
                notes.append("collage \(group.number) (\(group.lineRange)) is left out: fewer than two photos")
                continue
            }
            if let maxPages, pages.count + 1 >= maxPages {
                notes.append("within \(maxPages) pages: collage \(group.number) (\(group.lineRange)) is left out")
                continue
            }
            pages.append(Page(title: group.title?.text ?? SuggestionReport.folderTitle(photos), photos: photos,
                              layout: group.layout))
        }
        return BookPlan(hero: nil, pages: pages, notes: notes)
    }

    /// Chooses a list's cover photo: of the pages of four photos or more,
    /// the best-scored (`scored`; nil: not the best of its scene), people
    /// first. It leaves its page, and so does the lowest-scored photo left
    /// there, to keep the page even; both said in `notes`. No page of four:
    /// no cover photo (a page of two would be left with one).
    mutating func takeCover(scored: (Photo) -> Candidate?) {
        var best: (page: Int, index: Int, candidate: Candidate)?
        for (p, page) in pages.enumerated() where page.photos.count >= 2 * Self.fewestPerPage {
            for (i, photo) in page.photos.enumerated() {
                guard let candidate = scored(photo) else { continue }
                if let current = best?.candidate,
                   (current.hasPeople ? 1 : 0, current.score) >= (candidate.hasPeople ? 1 : 0, candidate.score) { continue }
                best = (p, i, candidate)
            }
        }
        guard let best else { return }
        hero = pages[best.page].photos.remove(at: best.index)
        let rest = pages[best.page].photos
        let lowest = rest.indices.min { (scored(rest[$0])?.score ?? -.infinity) < (scored(rest[$1])?.score ?? -.infinity) }!
        let dropped = pages[best.page].photos.remove(at: lowest)
        notes.append("\(hero!.fileName) is the cover's photo: it and \(dropped.fileName) leave the page of "
                     + "\(pages[best.page].title), to keep it even")
    }
}
