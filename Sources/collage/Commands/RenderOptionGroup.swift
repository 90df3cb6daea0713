import ArgumentParser
import CollageKit

/// The drawing options `save` and `batch` share.
struct RenderOptionGroup: ParsableArguments {
    @Option(help: ArgumentHelp("Canvas size in pixels.", valueName: "WxH"),
            transform: { try CanvasSize(parsing: $0) })
    var size: CanvasSize = .default

    @Option(help: ArgumentHelp("JPEG quality, 1-100.", valueName: "1-100"))
    var quality: Int = CollageRenderOptions.defaultQuality

    @Option(help: ArgumentHelp("Colour of empty cells, gaps and transparency: a name or #RRGGBB.", valueName: "color"),
            transform: { try RGBColor(parsing: $0) })
    var background: RGBColor = .white

    // Unconditional: "-1" is the value (refused below with the reason), not an option.
    @Option(parsing: .unconditional, help: ArgumentHelp("Space between cells, in pixels.", valueName: "px"))
    var gap: Int = 0

    func validate() throws {
        if !(1...100).contains(quality) { throw ValidationError("--quality must be 1 to 100, not \(quality)") }
        if gap < 0 { throw ValidationError("--gap must not be negative") }
    }

    func renderOptions() throws -> CollageRenderOptions {
        try CollageRenderOptions(size: size, background: background, gap: gap, quality: quality)
    }
}
