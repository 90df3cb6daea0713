import Foundation

/// A canvas given by its size on paper (issue #34): "6x4in", "15x10cm",
/// "210x297mm", or a paper's name ("A4", "letter", "A4-landscape"). The
/// pixel canvas follows from it at a print resolution (`PrintResolution`).
///
/// Kept in micrometres, the unit every paper size here is an integer of
/// (ISO sizes are whole millimetres, US sizes quarter inches = 6350 µm), so
/// A4 is exactly 210x297 mm and its points (595.28 x 841.89) come out as a
/// PDF reader prints them.
public struct PrintSize: Equatable, Sendable, CustomStringConvertible {
    public let widthMicrometres: Int
    public let heightMicrometres: Int
    /// As typed, normalised: "A4", "A4-landscape", "6x4in".
    public let name: String

    /// The sizes a print shop and a home printer know, portrait (short side
    /// first); `-landscape` turns them.
    public static let papers: [(name: String, width: Int, height: Int)] = [
        ("A3", 297_000, 420_000),
        ("A4", 210_000, 297_000),
        ("A5", 148_000, 210_000),
        ("A6", 105_000, 148_000),
        ("letter", 215_900, 279_400),
        ("legal", 215_900, 355_600),
    ]

    /// Micrometres in one unit a size may be written in.
    static let units: [(suffix: String, micrometres: Double)] = [
        ("mm", 1_000), ("cm", 10_000), ("in", 25_400),
    ]

    private static let landscapeSuffix = "-landscape"

    /// The paper size `text` names, or nil when it is not one (a pixel size
    /// such as "1920x1080" is not: the caller reads those as it always did).
    /// Throws when `text` is plainly meant as a physical size but is wrong.
    public init?(parsing text: String) throws {
        let lowered = text.lowercased()
        let landscape = lowered.hasSuffix(Self.landscapeSuffix)
        let paperName = landscape ? String(lowered.dropLast(Self.landscapeSuffix.count)) : lowered
        if let paper = Self.papers.first(where: { $0.name.lowercased() == paperName }) {
            widthMicrometres = landscape ? paper.height : paper.width
            heightMicrometres = landscape ? paper.width : paper.height
            name = paper.name + (landscape ? Self.landscapeSuffix : "")
            return
        }
        guard let unit = Self.units.first(where: { lowered.hasSuffix($0.suffix) }) else { return nil }
        let sides = lowered.dropLast(unit.suffix.count).split(separator: "x", omittingEmptySubsequences: false)
        guard sides.count == 2, let width = Self.length(sides[0]), let height = Self.length(sides[1]) else {
            throw ValueError("size '\(text)' is not WIDTHxHEIGHT\(unit.suffix), e.g. 6x4in, 15x10cm or 210x297mm")
        }
        widthMicrometres = Int((width * unit.micrometres).rounded())
        heightMicrometres = Int((height * unit.micrometres).rounded())
        guard widthMicrometres > 0, heightMicrometres > 0 else {
            throw ValueError("size '\(text)' has a side of zero")
        }
        name = "\(Self.trimmed(width))x\(Self.trimmed(height))\(unit.suffix)"
    }

    /// A positive decimal such as "6", "10.5"; nothing else (no exponents,
    /// no signs), as a person types a length.
    private static func length(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              let value = Double(text), value.isFinite, value > 0 else { return nil }
        return value
    }

    private static func trimmed(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// The sides in millimetres (exact to the micrometre: 6x4in is 152.4x101.6).
    public var widthMillimetres: Double { Double(widthMicrometres) / 1_000 }
    public var heightMillimetres: Double { Double(heightMicrometres) / 1_000 }

    /// The page in PostScript points (1/72 inch), as a PDF's MediaBox says it.
    public var points: (width: Double, height: Double) {
        (Double(widthMicrometres) * 72 / 25_400, Double(heightMicrometres) * 72 / 25_400)
    }

    /// The pixel canvas at `resolution`: each side rounded to the nearest
    /// pixel (A4 at 300 dpi is 2480x3508, as printers and ImageMagick say).
    public func canvas(at resolution: PrintResolution) throws -> CanvasSize {
        let width = Int((Double(widthMicrometres) * Double(resolution.dotsPerInch) / 25_400).rounded())
        let height = Int((Double(heightMicrometres) * Double(resolution.dotsPerInch) / 25_400).rounded())
        guard (1...CanvasSize.maximumSide).contains(width), (1...CanvasSize.maximumSide).contains(height) else {
            throw ValueError("size \(name) at \(resolution) is \(width)x\(height) pixels: each side must be 1 to \(CanvasSize.maximumSide) pixels")
        }
        return try CanvasSize(width: width, height: height)
    }

    public var description: String { name }
}

/// The print resolution in dots (pixels) per inch: 300 unless asked.
public struct PrintResolution: Equatable, Sendable, CustomStringConvertible {
    public static let allowed = 72...1200
    public static let `default` = PrintResolution(unchecked: 300)

    public let dotsPerInch: Int

    private init(unchecked dotsPerInch: Int) { self.dotsPerInch = dotsPerInch }

    public init(parsing text: String) throws {
        guard let value = Int(text), Self.allowed.contains(value) else {
            throw ValueError("resolution '\(text)' is not a whole number of dpi from \(Self.allowed.lowerBound) to \(Self.allowed.upperBound)")
        }
        dotsPerInch = value
    }

    public var description: String { "\(dotsPerInch) dpi" }
}

/// The canvas `--size` (or a batch list's `#size`) asks for: pixels
/// (`RequestedSize`), or a size on paper (`PrintSize`), which is pixels only
/// at a print resolution. `CollageRenderOptions.resize(to:dpi:)` is where it
/// becomes the pixels drawn; what draws a collage sees only those.
public enum SizeRequest: Equatable, Sendable, CustomStringConvertible {
    case pixels(RequestedSize)
    case paper(PrintSize)

    public static let `default` = SizeRequest.pixels(.default)

    /// A paper size ("A4", "6x4in") when the text is one, else pixels ("1920x1080", "1920x").
    public init(parsing text: String) throws {
        if let paper = try PrintSize(parsing: text) {
            self = .paper(paper)
        } else {
            self = .pixels(try RequestedSize(parsing: text))
        }
    }

    /// Width over height, when both sides are given: the shape the photos should fit (`suggest`).
    public var aspectRatio: Double? {
        switch self {
        case let .pixels(size):
            guard let width = size.width, let height = size.height else { return nil }
            return Double(width) / Double(height)
        case let .paper(paper):
            return Double(paper.widthMicrometres) / Double(paper.heightMicrometres)
        }
    }

    /// The canvas's pixels when both sides are given (a size on paper at
    /// the default print resolution, as `save` draws it without --dpi): how
    /// much a cell would enlarge a photo (`suggest`).
    public var pixelArea: Double? {
        switch self {
        case let .pixels(size):
            guard let width = size.width, let height = size.height else { return nil }
            return Double(width) * Double(height)
        case let .paper(paper):
            return (try? paper.canvas(at: .default)).map { Double($0.width) * Double($0.height) }
        }
    }

    public var description: String {
        switch self {
        case let .pixels(size): size.description
        case let .paper(paper): paper.description
        }
    }
}
