import ArgumentParser
import CollageKit
import Foundation

struct Save: ParsableCommand {
    static let configuration = CommandConfiguration(
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

    @Option(help: ArgumentHelp("Canvas size in pixels.", valueName: "WxH"),
            transform: { try CanvasSize(parsing: $0) })
    var size: CanvasSize = .default

    @Option(help: ArgumentHelp("JPEG quality, 1-100.", valueName: "1-100"))
    var quality: Int = CollageRenderOptions.defaultQuality

    @Option(help: ArgumentHelp("Colour of empty cells, gaps and transparency: a name or #RRGGBB.", valueName: "color"),
            transform: { try RGBColor(parsing: $0) })
    var background: RGBColor = .white

    @Option(help: ArgumentHelp("Space between cells, in pixels.", valueName: "px"))
    var gap: Int = 0

    @Flag(help: "Replace the output file if it exists.")
    var force = false

    func validate() throws {
        if !(1...100).contains(quality) { throw ValidationError("--quality must be 1 to 100, not \(quality)") }
        if gap < 0 { throw ValidationError("--gap must not be negative") }
        if let output { _ = try ImageFormat(path: output) }
    }

    func run() throws {
        let options = try CollageRenderOptions(size: size, background: background, gap: gap, quality: quality)
        let destination = URL(fileURLWithPath: Photo(resolving: output ?? Self.defaultFileName()).path)
        let viewModel = try makeCollageViewModel()
        switch viewModel.save(to: destination, options: options, overwrite: force).waitForCompletion() {
        case .success:
            print("Saved \(destination.path)")
        case let .failure(error):
            Console.error("\(error)")
            throw ExitCode.failure
        }
    }

    static func defaultFileName(now: Date = Date()) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return "collage-\(formatter.string(from: now)).jpg"
    }
}
