import ArgumentParser
import CollageKit
import Foundation

struct Save: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "save",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Render the collage to a JPEG, PNG or WebP file, then empty the selection.",
        discussion: """
            Needs a non-zero, even number of photos. The format follows the
            output's extension (.jpg, .jpeg, .png or .webp). An existing file is never
            replaced without --force. If saving fails, the selection is kept.

            --gap puts background-coloured space between neighbouring cells (not
            around the edge): with n columns each cell is
            round((width - (n - 1) * gap) / n) wide, and likewise for rows.
            """)

    @Option(name: [.short, .customLong("output")],
            help: ArgumentHelp("The file to write, or a folder to write the default name in (default: collage-YYYYMMDD-HHMMSS.jpg here; -2, -3... when taken).", valueName: "path"),
            completion: .file(extensions: photoExtensions))
    var output: String?

    @OptionGroup var render: RenderOptionGroup

    @OptionGroup var limits: LimitOptionGroup

    @Flag(help: "Replace the output file if it exists.")
    var force = false

    func validate() throws {
        if let output {
            // A wrong extension is a usage error (exit 64), said in the model's
            // words; a folder gets the default name (.jpg).
            var isFolder: ObjCBool = false
            let namesFolder = output.hasSuffix("/")
                || (FileManager.default.fileExists(atPath: output, isDirectory: &isFolder) && isFolder.boolValue)
            if !namesFolder {
                do { _ = try ImageFormat(path: output) } catch { throw ValidationError("\(error)") }
            }
            // The writer names files by String: bytes that are not UTF-8 would
            // silently become U+FFFD, a different name from the one typed.
            if RawArguments.isLossy(output) {
                throw ValidationError("the output name \(output) is not valid UTF-8: choose a UTF-8 name")
            }
        }
    }

    func run() throws {
        let options = try render.renderOptions()
        let target = SaveDestination(output: output, workingDirectory: FileManager.default.currentDirectoryPath) {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0, isDirectory: &isFolder) && isFolder.boolValue
        }
        let viewModel = try makeCollageViewModel(maxDecodedPixels: limits.maxPixels)
        // Refused saves (odd count, missing photo) say so before any folder is made.
        if let refusal = viewModel.saveRefusal {
            Console.error(refusal.description)
            throw ExitCode.failure
        }
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
            switch viewModel.save(to: destination, options: options, overwrite: force).waitForCompletion() {
            case .success:
                print("Saved \(destination.path)")
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
