import ArgumentParser
import CollageKit
import Foundation

struct Save: ServicedCommand {
    static let configuration = CommandConfiguration(
        commandName: "save",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Render the collage to a \(ImageFormat.savedTitles) file, then empty the selection.",
        discussion: """
            Needs a non-zero, even number of photos. The format follows the
            output's extension: \(ImageFormat.savedExtensions).
            -o - writes the collage to standard output, for a pipe, as JPEG or
            in the format --format names (`collage save -o - --format png | ...`);
            without -o, or with a folder, --format is the default name's.
            AVIF is encoded by libaom at speed 8: a 1920x1080 collage takes
            about 0.4 s more than as JPEG on two cores.
            A PDF is one page to print: the canvas at --dpi (300 unless given;
            2480x3508 pixels is an A4 page), each photo embedded once as a
            JPEG of its cell at --quality, the title and captions as text
            (selectable, their fonts embedded), the background as vector.
            An existing file is never replaced without --force. If saving
            fails, the selection is kept; with --keep it is kept after a save
            too, to try another size or layout.

            --layout divides the canvas (its values are listed below); --gap puts background-coloured space between neighbouring cells,
            --margin around the edge. In the grid, with n columns, column c
            spans round(c * w / n) to round((c + 1) * w / n) of
            w = width - 2 * margin - (n - 1) * gap, moved right by margin + c * gap,
            and likewise for rows: the cells reach every edge.

            --dry-run prints the plan (each photo's size, its cell, and the part
            of it the cell shows, in the photo's pixels) and writes nothing;
            --json prints it as one JSON object. With a title (the collage's
            own, `collage title`, or --title's), the title's band is in it too
            ("title": its text, x, y, width, height and fontSize in pixels);
            every cell lies below it. A save draws the collage's own title
            unless --title gives another, and empties it with the photos.
            """)

    @Option(name: [.short, .customLong("output")],
            help: ArgumentHelp("The file to write, a folder to write the default name in (default: collage-YYYYMMDD-HHMMSS.jpg here; -2, -3... when taken), or - for standard output.", valueName: "path"),
            completion: .file(extensions: savedPhotoExtensions))
    var output: String?

    @Option(help: ArgumentHelp("The format written to standard output (-o -; jpg unless given) or under the default name; a named file's follows its extension.", valueName: "format"))
    var format: ImageFormat?

    @OptionGroup var render: RenderOptionGroup

    @OptionGroup var limits: LimitOptionGroup
    var pixelLimit: PixelLimit { limits.maxPixels }

    @Flag(help: "Replace the output file if it exists.")
    var force = false

    @Flag(help: "Keep the photos in the selection after saving (by default a save empties it).")
    var keep = false

    @Flag(help: "Print the plan (canvas, cells, the part of each photo shown) and write nothing; the selection stays.")
    var dryRun = false

    @Flag(help: "With --dry-run: print the plan as one JSON object.")
    var json = false

    /// `-o -`: the collage goes to standard output.
    var toStandardOutput: Bool { output == "-" }

    func validate() throws {
        if json && !dryRun { throw ValidationError("--json goes with --dry-run: it prints the plan instead of saving") }
        try RawArguments.refuseRepeatedOutput()
        if toStandardOutput {
            // Image bytes on a terminal are noise, and can leave it in a strange state.
            if !dryRun && isatty(STDOUT_FILENO) != 0 {
                throw ValidationError("standard output is a terminal: pipe it to a program or redirect it to a file")
            }
            return
        }
        if let output {
            // A wrong extension is a usage error (exit 64), said in the model's
            // words; a folder gets the default name (in --format's format).
            var isFolder: ObjCBool = false
            let namesFolder = output.hasSuffix("/")
                || (FileManager.default.fileExists(atPath: output, isDirectory: &isFolder) && isFolder.boolValue)
            if !namesFolder {
                let named: ImageFormat
                do { named = try ImageFormat(path: output) } catch { throw ValidationError("\(error)") }
                if let format, format != named {
                    throw ValidationError("--format \(format.fileExtension) does not go with \(output): a named file's format follows its extension (\(named.name))")
                }
            }
            // The writer names files by String: bytes that are not UTF-8 would
            // silently become U+FFFD, a different name from the one typed.
            if RawArguments.isLossy(output) {
                throw ValidationError("the output name \(output) is not valid UTF-8: choose a UTF-8 name")
            }
        }
    }

    func run(with services: AppServices) throws {
        let options = try render.renderOptions()
        if toStandardOutput { return try send(format ?? .standard, options, services: services) }
        var target = SaveDestination(output: output, workingDirectory: FileManager.default.currentDirectoryPath) {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0, isDirectory: &isFolder) && isFolder.boolValue
        }
        if let format { target.defaultFormat = format }
        let viewModel = try makeCollageViewModel(services)
        // Refused saves (odd count, missing photo) say so before any folder is made.
        if let refusal = viewModel.saveRefusal {
            Console.error(refusal.description)
            throw ExitCode.failure
        }
        if dryRun { return try printPlan(viewModel, options) }
        let now = Date()
        if let format = try? ImageFormat(path: target.path(now: now)) { render.warnIfQualityIsIgnored(for: format) }
        do {
            try OutputFolder.create(target.folder)  // missing parents, as batch does
        } catch {
            Console.error("cannot save \(target.path(now: now)): \(error)")
            throw ExitCode.failure
        }
        // A default name taken (another save this second) moves on to -2, -3...
        for attempt in 1... {
            let destination = URL(fileURLWithPath: target.path(now: now, attempt: attempt))
            switch viewModel.save(to: destination, options: options, overwrite: force, keep: keep).waitForCompletion() {
            case .success:
                // Escaped as `status` shows names: a line break in one would forge a second line.
                print("Saved \(Console.printable(destination.path))")
                return
            case let .failure(error):
                let failure = (error as? CollageActionError)?.failure
                if failure?.kind == .outputExists && target.usesDefaultName && attempt < 100 { continue }
                Console.error(failure?.commandLineMessage ?? "\(error)")
                throw ExitCode(failure?.kind == .options ? CommandLineEntry.usageError : 1)
            }
        }
    }
}

extension Save {
    /// `-o -`: the collage to standard output, nothing else printed there.
    func send(_ format: ImageFormat, _ options: CollageRenderOptions, services: AppServices) throws {
        let viewModel = try makeCollageViewModel(services)
        if let refusal = viewModel.saveRefusal {
            Console.error(refusal.description)
            throw ExitCode.failure
        }
        if dryRun { return try printPlan(viewModel, options) }
        render.warnIfQualityIsIgnored(for: format)
        // A reader that stops early (`| head -c 100`) is an error to report
        // (EPIPE), not a signal that kills the process mid-write.
        signal(SIGPIPE, SIG_IGN)
        if case let .failure(error) = viewModel.save(to: .standardOutput(format), options: options, overwrite: false, keep: keep)
            .waitForCompletion() {
            let failure = (error as? CollageActionError)?.failure
            Console.error(failure?.commandLineMessage ?? "\(error)")
            throw ExitCode(failure?.kind == .options ? CommandLineEntry.usageError : 1)
        }
    }

    /// `--dry-run`: the plan, as a table or (`--json`) one JSON object.
    func printPlan(_ viewModel: CollageViewModel, _ options: CollageRenderOptions) throws {
        let plan: CollagePlanReport
        switch viewModel.plan(options: options) {
        case let .success(report): plan = report
        case let .failure(error):
            Console.error(error.failure?.commandLineMessage ?? "\(error)")
            throw ExitCode(error.failure?.kind == .options ? CommandLineEntry.usageError : 1)
        }
        if ProcessInfo.processInfo.environment["COLLAGE_TRACE_LAYOUT"] == "1" { traceLayoutTime(plan, options) }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(PlanJSON(plan, options.save)), as: UTF8.self))
            return
        }
        // The print size, when one is in play: "(A4 at 300 dpi)", "(300 dpi)".
        let page = options.save.page.map { "\($0) at " } ?? ""
        let printed = options.save.resolution.map { " (\(page)\($0))" } ?? ""
        print("\(plan.canvas)\(printed) \(plan.layout), \(plan.photos.count) photos (nothing written)")
        if let title = plan.title {
            print("  title \(Console.printable(title.text).debugDescription) in band \(title.rect)")
        }
        for (index, entry) in plan.photos.enumerated() {
            let kept = Double(entry.shown.width * entry.shown.height) / Double(entry.shape.width * entry.shape.height)
            print("  \(index + 1). \(Console.printable(entry.photo.path))")
            print("     \(entry.shape.width)x\(entry.shape.height) in cell \(entry.cell), showing \(entry.shown) (\(Int((kept * 100).rounded()))%)")
            if let caption = entry.caption {
                print("     caption \(Console.printable(caption.text).debugDescription) in band \(caption.band)")
            }
        }
    }
}

/// COLLAGE_TRACE_LAYOUT=1: how long the layout alone takes for these
/// photos (the median of 21 plans from their shapes), on standard error, so
/// `make bench` can report `auto`'s search without the decoding around it.
private func traceLayoutTime(_ plan: CollagePlanReport, _ options: CollageRenderOptions) {
    let shapes = plan.photos.map(\.shape)
    var times: [Double] = []
    for _ in 0..<21 {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try? CollageLayout.plan(shapes, LayoutRequest(options))
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    let line = String(format: "layout: %@ of %d photos planned in %.3f ms (median of 21)\n",
                      plan.layout.rawValue, shapes.count, times.sorted()[10])
    FileHandle.standardError.write(Data(line.utf8))
}

/// The `save --dry-run --json` shape, with the keys the documentation promises.
private struct PlanJSON: Encodable {
    struct Size: Encodable {
        let width: Int
        let height: Int
        /// The print resolution, when one was given (`--dpi`, or 300 for a size on paper); else absent.
        let dpi: Int?
        /// The size on paper, when one was given: as named ("A4", "6x4in") and in millimetres; else absent.
        let paper: String?
        let widthMillimetres: Double?
        let heightMillimetres: Double?
    }
    struct Rect: Encodable {
        let x, y, width, height: Int
        init(_ rect: CellRect) {
            (x, y, width, height) = (rect.x, rect.y, rect.width, rect.height)
        }
    }
    struct Entry: Encodable {
        let path: String
        /// The base64 of the path's exact bytes when they are not UTF-8, as `status --json` gives it; else null.
        let pathBytes: String?
        /// The upright photo's size.
        let width: Int
        let height: Int
        let cell: Rect
        /// The part of the upright photo drawn in the cell, in its pixels.
        let shown: Rect
        /// Absent for a photo without a caption.
        let caption: Caption?
    }

    struct Caption: Encodable {
        let text: String
        /// The translucent band across the bottom of the cell.
        let band: Rect
        /// The font's size in pixels.
        let fontSize: Double
    }

    struct Title: Encodable {
        let text: String
        /// The band across the top (the photos' cells lie below it).
        let x, y, width, height: Int
        /// The font's size in pixels.
        let fontSize: Double
    }

    let canvas: Size
    let layout: String
    let photos: [Entry]
    /// Absent without a title (`collage title`, --title) or without any font to draw it.
    let title: Title?

    init(_ plan: CollagePlanReport, _ save: SaveOptions) {
        canvas = Size(width: plan.canvas.width, height: plan.canvas.height, dpi: save.resolution?.dotsPerInch,
                      paper: save.page?.name, widthMillimetres: save.page?.widthMillimetres,
                      heightMillimetres: save.page?.heightMillimetres)
        layout = plan.layout.rawValue
        title = plan.title.map { Title(text: $0.text, x: $0.rect.x, y: $0.rect.y, width: $0.rect.width, height: $0.rect.height,
                                       fontSize: $0.fontPixels) }
        photos = plan.photos.map { entry in
            Entry(path: entry.photo.path,
                  pathBytes: entry.photo.pathIsExact ? nil : Data(entry.photo.fileSystemPath).base64EncodedString(),
                  width: entry.shape.width, height: entry.shape.height,
                  cell: Rect(entry.cell), shown: Rect(entry.shown),
                  caption: entry.caption.map { Caption(text: $0.text, band: Rect($0.band), fontSize: $0.fontPixels) })
        }
    }
}
