import ArgumentParser
import CollageKit
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif
#if canImport(Glibc)
import Glibc
#endif

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Make many collages from a list of photos.",
        discussion: """
            LIST is a text file, or - for standard input: one photo path per line;
            a blank line (or several) ends a collage; lines starting with # are
            comments. Relative paths are relative to the list's folder (to the
            current folder for standard input).

            Each collage follows the usual rules (1 to 6 readable photos, an even
            number to save). One that breaks a rule is reported with its number,
            its lines and the reason, and skipped; the others are still made.
            Collage N is written to DIR/collage-NNN.EXT, numbered by its position
            in the list, so re-runs give the same names. Existing files are not
            replaced without --force. The interactive selection is never touched.
            Exits 0 only if every collage was saved.

            Example list:
              # summer
              beach.jpg
              dunes.jpg

              kids/ball.png
              kids/kite.jpg
              kids/sandcastle.jpg
              kids/sunset.jpg
            """)

    @Argument(help: ArgumentHelp("The list of photos, or - for standard input.", valueName: "list"))
    var list: String

    @Option(name: [.short, .customLong("output")],
            help: ArgumentHelp("The folder for the collages (created if missing).", valueName: "dir"))
    var output: String = "."

    @Option(help: ArgumentHelp("File format of the collages.", valueName: "jpg|png"))
    var format: BatchFormat = .jpg

    @OptionGroup var render: RenderOptionGroup

    @OptionGroup var limits: LimitOptionGroup

    @Option(help: ArgumentHelp("Collages made at once (default: the number of cores).", valueName: "n"))
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Replace existing files.")
    var force = false

    @Flag(help: "Check the whole list and print the plan, writing nothing.")
    var dryRun = false

    enum BatchFormat: String, ExpressibleByArgument, CaseIterable {
        case jpg, png
        var imageFormat: ImageFormat { self == .jpg ? .jpeg : .png }
    }

    func validate() throws {
        if jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        // Folders and the list are named by String: bytes that are not UTF-8
        // would silently become U+FFFD. (The photos in the list may have any name.)
        for (name, value) in [("output folder", output), ("list", list)] where RawArguments.isLossy(value) {
            throw ValidationError("the \(name) name \(value) is not valid UTF-8: choose a UTF-8 name")
        }
    }

    func run() throws {
        let workingDirectory = FileManager.default.currentDirectoryPath
        let listSource = try ListSource(argument: list, workingDirectory: workingDirectory)
        defer { listSource.close() }

        let outputDirectory = URL(fileURLWithPath: Photo(resolving: output, against: workingDirectory).path)
        if !dryRun, let error = Self.makeFolders(outputDirectory.path) {
            Console.error("cannot create the output folder \(outputDirectory.path): \(error)")
            throw ExitCode.failure
        }

        let options = BatchOptions(outputDirectory: outputDirectory, format: format.imageFormat,
                                   render: try render.renderOptions(), jobs: jobs, overwrite: force, dryRun: dryRun,
                                   maxDecodedPixels: limits.maxPixels)
        let viewModel = BatchViewModel(options: options)
        let progress = BatchProgressView(total: listSource.countGroups(), dryRun: dryRun)
        let subscription = viewModel.results.sink { progress.show($0) }

        var reader = BatchListReader(fileDescriptor: listSource.fileDescriptor, baseDirectory: listSource.baseDirectory)
        let summary = viewModel.run(IteratorSequence(AnyIterator { reader.next() }))
        subscription.cancel()
        progress.finish()

        if let error = reader.readError {
            Console.error("cannot read \(listSource.name): \(String(cString: strerror(error)))")
            throw ExitCode.failure
        }
        print(Self.summaryLine(summary, directory: outputDirectory.path, dryRun: dryRun))
        if !summary.allSucceeded { throw ExitCode.failure }
    }

    /// `mkdir -p` with mode 0775 minus the umask: it honours the umask but,
    /// unlike FileManager's 0777, never makes a folder writable by others.
    /// Returns why it failed, or nil.
    static func makeFolders(_ path: String) -> String? {
        var current = ""
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o775) != 0 && errno != EEXIST { return String(cString: strerror(errno)) }
        }
        var info = stat()
        guard stat(path, &info) == 0 else { return String(cString: strerror(errno)) }
        return (info.st_mode & S_IFMT) == S_IFDIR ? nil : "it is not a folder"
    }

    static func summaryLine(_ summary: BatchSummary, directory: String, dryRun: Bool) -> String {
        func collages(_ n: Int) -> String { n == 1 ? "1 collage" : "\(n) collages" }
        if summary.total == 0 { return "The list has no collage." }
        if dryRun {
            return "Dry run: \(collages(summary.saved)) would be saved in \(directory); \(summary.failed) would fail."
        }
        return "Saved \(collages(summary.saved)) in \(directory); \(summary.failed) failed."
    }
}

/// The list file or standard input, open for streaming.
private struct ListSource {
    let name: String
    let fileDescriptor: Int32
    let baseDirectory: String
    let path: String?

    init(argument: String, workingDirectory: String) throws {
        if argument == "-" {
            name = "standard input"
            fileDescriptor = STDIN_FILENO
            baseDirectory = workingDirectory
            path = nil
            return
        }
        let absolute = Photo(resolving: argument, against: workingDirectory).path
        var info = stat()
        if stat(absolute, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            Console.error("\(absolute): is a folder, not a list")
            throw ExitCode.failure
        }
        let fd = open(absolute, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            Console.error("cannot read the list \(absolute): \(String(cString: strerror(errno)))")
            throw ExitCode.failure
        }
        name = absolute
        fileDescriptor = fd
        baseDirectory = (absolute as NSString).deletingLastPathComponent
        path = absolute
    }

    /// The number of collages, for the progress bar: a quick first pass over
    /// a regular file; unknown (nil) for standard input, which reads once.
    /// So is a pipe given by name (`collage batch <(find ...)`, a FIFO,
    /// /dev/stdin): a first pass over it would consume the list, and the
    /// run proper would find it empty and make nothing.
    func countGroups() -> Int? {
        guard let path else { return nil }
        var info = stat()
        guard fstat(fileDescriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var reader = BatchListReader(fileDescriptor: fd, baseDirectory: baseDirectory)
        var count = 0
        while reader.next() != nil { count += 1 }
        return count
    }

    func close() {
        if path != nil { Glibc.close(fileDescriptor) }
    }
}
