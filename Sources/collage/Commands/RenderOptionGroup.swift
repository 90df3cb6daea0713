import ArgumentParser
import CollageKit

/// The drawing options `save` and `batch` share (with `--crop` and `--fit`).
struct RenderOptionGroup: ParsableArguments {
    // Defaults of parsed values are written in the help: ArgumentParser shows
    // only those of types it parses itself.
    @Option(help: ArgumentHelp("Canvas size in pixels (default: \(CanvasSize.default.width)x\(CanvasSize.default.height)).",
                               valueName: "WxH"),
            transform: { try CanvasSize(parsing: $0) })
    var size: CanvasSize = .default

    // Optional, so that a quality given for a PNG can be pointed out.
    @Option(help: ArgumentHelp("JPEG quality, 1-100 (default: \(CollageRenderOptions.defaultQuality)).", valueName: "1-100"))
    var quality: Int?

    @Option(help: ArgumentHelp("Colour of empty cells, gaps and transparency: a name or #RRGGBB (default: white).",
                               valueName: "color"),
            transform: { try RGBColor(parsing: $0) })
    var background: RGBColor = .white

    // Unconditional: "-1" is the value (refused below with the reason), not an option.
    @Option(parsing: .unconditional, help: ArgumentHelp("Space between cells, in pixels.", valueName: "px"))
    var gap: Int = 0

    @OptionGroup var placement: PlacementOptionGroup

    func validate() throws {
        if let quality, !(1...100).contains(quality) { throw ValidationError("--quality must be 1 to 100, not \(quality)") }
        if gap < 0 { throw ValidationError("--gap must not be negative") }
    }

    func renderOptions() throws -> CollageRenderOptions {
        try CollageRenderOptions(size: size, background: background, gap: gap,
                                 quality: quality ?? CollageRenderOptions.defaultQuality, crop: placement.crop, fit: placement.fit)
    }

    /// Says so when --quality was given for a format it does not apply to.
    func warnIfQualityIsIgnored(for format: ImageFormat) {
        if quality != nil && !format.hasQuality {
            Console.warning("--quality applies to JPEG and WebP only: PNG is lossless, so it is ignored")
        }
    }
}
