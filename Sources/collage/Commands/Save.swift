import ArgumentParser
import CollageKit
import Foundation

struct Save: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "save",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Render the collage to a JPEG or PNG file, then empty the selection.",
        discussion: """
            Needs a non-zero, even number of photos. The format follows the
            output's extension (.jpg, .jpeg or .png). An existing file is never
            replaced without --force. If saving fails, the selection is kept.

            --gap puts background-coloured space between neighbouring cells (not
            around the edge): with n columns each cell is
            round((width - (n - 1) * gap) / n) wide, and likewise for rows.
            """)

    @Option(name: [.short, .customLong("output")],
            help: ArgumentHelp("Where to write (default: collage-YYYYMMDD-HHMMSS.jpg here).", valueName: "path"))
    var output: String?

    @OptionGroup var render: RenderOptionGroup

    @OptionGroup var limits: LimitOptionGroup

    @Flag(help: "Replace the output file if it exists.")
    var force = false

    func validate() throws {
        if let output {
            _ = try ImageFormat(path: output)
            // The writer names files by String: bytes that are not UTF-8 would
            // silently become U+FFFD, a different name from the one typed.
            if RawArguments.isLossy(output) {
                throw ValidationError("the output name \(output) is not valid UTF-8: choose a UTF-8 name")
            }
        }
    }

    func run() throws {
        let options = try render.renderOptions()
        let destination = URL(fileURLWithPath: Photo(resolving: output ?? defaultCollageFileName()).path)
        let viewModel = try makeCollageViewModel(maxDecodedPixels: limits.maxPixels)
        switch viewModel.save(to: destination, options: options, overwrite: force).waitForCompletion() {
        case .success:
            print("Saved \(destination.path)")
        case let .failure(error):
            Console.error((error as? CollageActionError)?.failure?.commandLineMessage ?? "\(error)")
            throw ExitCode.failure
        }
    }
}
