import ArgumentParser
import CollageKit
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

struct Batch: ServicedCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Make many collages from a list of photos.",
        discussion: """
            LIST is a text file, or - for standard input: one photo path per line;
            a blank line (or several) ends a collage; lines starting with # are
            comments, except five:
            - '#focus X Y PATH': the photo PATH, its crop centred on X, Y
              (fractions of the photo, as `collage focus` takes them; PATH is the
              rest of the line; a file whose name starts with # is written ./#name);
            - '#caption "TEXT" PATH' or '#caption "TEXT" #focus X Y PATH': the
              photo PATH with its own caption (as `collage caption` gives one), in
              double quotes, \\" for a quote and \\\\ for a backslash;
            - '#layout MODE': this collage's layout, auto, grid, rows or columns,
              instead of --layout's. Write it above the collage's first photo,
              with no blank line between (a blank line ends a collage: a #layout
              line followed by one has no photo, and is not a setting for the whole
              list). A #layout line below the first photo, a second one, or an
              unknown MODE makes its collage fail, naming the line. #layouts,
              #layuot and #Layout are comments, with a warning naming the line
              and the word meant (so for every # word one letter from these five,
              or in another case). With --size WIDTHx a #layout other than rows
              fails (with xHEIGHT, other than columns): give WIDTHxHEIGHT to mix;
            - '#title TEXT': this collage's title, instead of --title's, TEXT the
              rest of the line; placed as #layout is, and wrong in the same ways;
            - '#size SIZE': this collage's size, instead of --size's, as --size
              takes it (1080x1920, A4, 6x4in; on paper at --dpi); placed as
              #layout is, and wrong in the same ways.
            A #caption line that does not parse makes its collage fail, naming it.
            Relative paths are relative to the list's folder (to the current
            folder for standard input).

            Each collage follows the usual rules (1 to 6 readable photos, an even
            number to save). One that breaks a rule is reported with its number,
            its lines and the reason, and skipped; the others are still made.
            Collage N is written to DIR/collage-NNN.EXT, numbered by its position
            in the list, so re-runs give the same names. Existing files are not
            replaced without --force; --skip-existing leaves them alone (not
            both). The interactive selection is never touched.
            --dry-run prints each collage's photos, layout, title and file. Exits
            0 only if every collage was saved.

            --shard K/N makes collages K, K + N, K + 2N... of the list, under
            the same names as a whole run: N machines (GNU parallel, a Slurm
            array, a Kubernetes Indexed Job) writing into one folder make what
            one run would. --report FILE (- for standard output) writes a JSON
            line per collage as each finishes: {"collage":3,"line":9,
            "output":"/abs/out/collage-003.jpg","status":"saved","photos":[...],
            "reason":null}; a run that stopped is finished with --skip-existing.
            Interrupted (Ctrl-C), the collages written stay, nothing is left of
            those being made, and the report ends with them ("interrupted").

            Example list (the second collage titled, in justified rows whatever
            --layout says):
              # summer
              beach.jpg
              dunes.jpg

              #title The kids at the beach
              #layout rows
              #caption "Ball!" kids/ball.png
              #focus 0.5 0.2 kids/kite flying.jpg
              kids/sandcastle.jpg
              kids/sunset.jpg
            """)

    @Argument(help: ArgumentHelp("The list of photos, or - for standard input.", valueName: "list"), completion: .file())
    var list: String

    @Option(name: [.short, .customLong("output")],
            help: ArgumentHelp("The folder for the collages (created, if missing, when the first collage is written).", valueName: "dir"),
            completion: .directory)
    var output: String = "."

    @Option(help: "File format of the collages.")
    var format: ImageFormat = .standard

    @OptionGroup var render: RenderOptionGroup

    @OptionGroup var limits: LimitOptionGroup
    var pixelLimit: PixelLimit { limits.maxPixels }

    // Unconditional: "-1" is the value (refused below with the reason), not an option.
    @Option(parsing: .unconditional, help: ArgumentHelp("Collages made at once (default: the number of cores).", valueName: "n"))
    var jobs: Int?

    @Flag(help: "Replace existing files.")
    var force = false

    @Flag(help: "Leave collages whose file exists alone, counted as kept, not failed (to finish an interrupted run).")
    var skipExisting = false

    @Flag(help: "Check the whole list and print the plan, writing nothing.")
    var dryRun = false

    @Option(help: ArgumentHelp("Make only part K of N of the list: collage i is in part ((i - 1) mod N) + 1, named as in a whole run (for a job runner splitting a list across machines).",
                               valueName: "K/N"))
    var shard: BatchShard?

    @Option(help: ArgumentHelp("Write a JSON line per collage to FILE (- for standard output) as each finishes: collage, line, output, status (saved, kept, skipped, failed, interrupted), photos, reason.",
                               valueName: "file"),
            completion: .file())
    var report: String?

    func validate() throws {
        try RawArguments.refuseRepeatedOutput()
        if let jobs, jobs < 1 { throw ValidationError("--jobs \(jobs) is less than 1: use 1 or more collages at once") }
        if BatchOptions.refusal(overwrite: force, skipExisting: skipExisting) != nil {
            throw ValidationError("--skip-existing leaves existing collages alone and --force replaces them: give one or the other")
        }
        // Folders and the list are named by String: bytes that are not UTF-8
        // would silently become U+FFFD. (The photos in the list may have any name.)
        for (name, value) in [("output folder", output), ("list", list), ("report", report ?? "")] where RawArguments.isLossy(value) {
            throw ValidationError("the \(name) name \(value) is not valid UTF-8: choose a UTF-8 name")
        }
    }

    func run(with services: AppServices) throws {
        let workingDirectory = FileManager.default.currentDirectoryPath
        let outputDirectory = URL(fileURLWithPath: Photo(resolving: output, against: workingDirectory).path)
        // The output folder is made by the view model, when a collage is first written.
        let listSource: BatchListSource
        let reportFile: BatchReportFile?
        do {
            listSource = try BatchListSource(argument: list, workingDirectory: workingDirectory)
            reportFile = try report.map { try BatchReportFile(argument: $0, workingDirectory: workingDirectory) }
        } catch {
            Console.error("\(error)")
            throw ExitCode.failure
        }
        // With the report on standard output, it is all that goes there.
        let reportIsStandardOutput = report == "-"

        render.warnIfQualityIsIgnored(for: format)
        let options = BatchOptions(outputDirectory: outputDirectory, format: format,
                                   render: try render.renderOptions(),
                                   jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount, overwrite: force,
                                   skipExisting: skipExisting, dryRun: dryRun,
                                   maxDecodedPixels: limits.maxPixels.pixels, shard: shard ?? .whole,
                                   dpi: render.layout.dpi)
        let viewModel = services.batch(options)
        let progress = BatchProgressView(total: listSource.countGroups(including: options.makes), dryRun: dryRun,
                                         planOnStandardOutput: !reportIsStandardOutput)
        let subscription = viewModel.results.sink { result in
            reportFile?.write(result.reportLine(wording: .commandLine))
            progress.show(result)
        }
        // Ctrl-C: the collages written stay, those being made leave nothing
        // (AtomicFile names a file only once it is whole), and the report
        // ends with them, "interrupted", so a rerun with --skip-existing
        // knows where the run stopped.
        let directory = outputDirectory.path, dryRun = dryRun, shard = shard
        Interruption.onSignal { signal in
            let (summary, unfinished) = viewModel.interrupt()
            for result in unfinished { reportFile?.write(result.reportLine(wording: .commandLine)) }
            progress.finish()
            let line = Self.summaryLine(summary, directory: directory, dryRun: dryRun, shard: shard)
            let them = unfinished.count == 1 ? "it" : "them"
            let stopped = unfinished.isEmpty ? "" : unfinished.map(\.label).joined(separator: ", ") + " unfinished, nothing of \(them) written; "
            Console.error("\(Interruption.name(signal)): \(stopped)\(line.prefix(1).lowercased() + line.dropFirst())")
        }
        let summary = viewModel.run(IteratorSequence(listSource.groups))
        subscription.cancel()
        progress.finish()

        if let failure = listSource.readFailure ?? reportFile?.writeFailure {
            Console.error(failure.message)
            throw ExitCode.failure
        }
        let line = Self.summaryLine(summary, directory: outputDirectory.path, dryRun: dryRun, shard: shard)
        if reportIsStandardOutput { Console.note(line) } else { print(Console.printable(line)) }
        if !summary.allSucceeded { throw ExitCode.failure }
    }

    /// The run in one line, each count in its collages' lines' word (skipped,
    /// failed, kept); a count of none is left out.
    static func summaryLine(_ summary: BatchSummary, directory: String, dryRun: Bool, shard: BatchShard? = nil) -> String {
        func collages(_ n: Int) -> String { n == 1 ? "1 collage" : "\(n) collages" }
        if summary.total == 0 { return shard.map { "Shard \($0) of the list has no collage." } ?? "The list has no collage." }
        let rest = [(summary.kept, "kept (already there)"),
                    (summary.skipped, dryRun ? "would be skipped" : "skipped"),
                    (summary.failed, dryRun ? "would fail" : "failed")]
            .filter { $0.0 > 0 }.map { "; \($0.0) \($0.1)" }.joined()
        return (dryRun ? "Dry run: \(collages(summary.saved)) would be saved in " : "Saved \(collages(summary.saved)) in ")
            + directory + rest + "."
    }
}
