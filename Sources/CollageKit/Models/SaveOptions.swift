import CollageImaging

/// How a collage is written, whatever its format: the engine's
/// `ci_save_options` as the views give it. An option only one format uses is
/// a field here (and in `ci_save_options`), given by its flag, and read by
/// that format's saver alone.
public struct SaveOptions: Equatable, Sendable {
    /// 1-100, for the formats that have a quality (`ImageFormat.hasQuality`).
    public private(set) var quality: Int
    /// The print resolution the file says (issue #34): JPEG's JFIF density,
    /// PNG's pHYs, EXIF's XResolution and YResolution. nil: none, the file
    /// as before.
    public private(set) var resolution: PrintResolution?
    /// The size on paper asked for (`--size A4`), drawn at `resolution`:
    /// the page a PDF is; nil for a size in pixels.
    public private(set) var page: PrintSize?

    /// The engine's default (`ci_save_options_default`): 90.
    public static let defaultQuality = Int(ci_save_options_default().quality)

    /// The engine's defaults. (They pass every check, so this cannot fail.)
    public static let defaults: SaveOptions = try! SaveOptions()

    public init(quality: Int = SaveOptions.defaultQuality, resolution: PrintResolution? = nil, page: PrintSize? = nil) throws {
        guard (1...100).contains(quality) else { throw RenderValueError.qualityOutOfRange(quality) }
        self.quality = quality
        self.resolution = resolution
        self.page = page
    }

    /// A page's size in points (1/72 inch) for a canvas of `width` x
    /// `height` pixels: the paper when given, else the canvas at the print
    /// resolution (300 dpi unless given: 2480x3508 pixels are 595.2 x
    /// 841.92 points).
    public func pagePoints(canvasWidth width: Int, height: Int) -> (width: Double, height: Double) {
        if let page { return page.points }
        let dotsPerInch = Double((resolution ?? .default).dotsPerInch)
        return (Double(width) * 72 / dotsPerInch, Double(height) * 72 / dotsPerInch)
    }

    /// These options for a size asked for: the one place the size resets
    /// what follows from it, and only that. A size in pixels is no paper
    /// (the page goes) and says the resolution `dpi` asks, none when not
    /// asked; a size on paper is that page at `resolution`. Every other
    /// field is carried over as it is (a copy of these options), so a
    /// field added later is kept without being named here.
    func sized(to request: SizeRequest, resolution: PrintResolution?) -> SaveOptions {
        var sized = self
        switch request {
        case .pixels: sized.page = nil
        case let .paper(paper): sized.page = paper
        }
        sized.resolution = resolution
        return sized
    }
}

/// The save options a format's writer reads (`ImageFormat.reads`), as the
/// engine's writers' table says (`ci_writer_info.options`).
public struct SaveOptionKinds: OptionSet, Equatable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// `quality`: a lossy encoder's (a page's: its photos').
    public static let quality = SaveOptionKinds(rawValue: CI_OPTION_QUALITY)
    /// `resolution`: the print size the file says.
    public static let resolution = SaveOptionKinds(rawValue: CI_OPTION_DPI)
}
