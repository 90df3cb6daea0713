import Foundation

/// The canvas size of a collage, parsed from "WxH".
public struct CanvasSize: Equatable, Sendable, CustomStringConvertible {
    /// The largest side we render. Far above any screen or print need, and it
    /// keeps a typo ("19200x10800") from allocating gigabytes.
    public static let maximumSide = 16384

    public let width: Int
    public let height: Int

    public static let `default` = CanvasSize(uncheckedWidth: 1920, height: 1080)

    private init(uncheckedWidth width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public init(width: Int, height: Int) throws {
        guard (1...Self.maximumSide).contains(width), (1...Self.maximumSide).contains(height) else {
            throw OptionError("size \(width)x\(height) is out of range: each side must be 1 to \(Self.maximumSide) pixels")
        }
        self.width = width
        self.height = height
    }

    public init(parsing text: String) throws {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else {
            throw OptionError("size '\(text)' is not WIDTHxHEIGHT, e.g. 1920x1080")
        }
        try self.init(width: width, height: height)
    }

    public var description: String { "\(width)x\(height)" }
}

/// The canvas size a person asked for (`--size`): both sides, or one side
/// only ("1920x", "x1080"), the other to follow from the photos (for the
/// `rows` and `columns` layouts).
public struct RequestedSize: Equatable, Sendable, CustomStringConvertible {
    public let width: Int?
    public let height: Int?

    public static let `default` = RequestedSize(CanvasSize.default)

    public init(_ canvas: CanvasSize) {
        width = canvas.width
        height = canvas.height
    }

    public init(width: Int?, height: Int?) throws {
        guard width != nil || height != nil else {
            throw OptionError("size 'x' gives neither side: write WIDTHxHEIGHT, WIDTHx or xHEIGHT, e.g. 1920x1080")
        }
        for side in [width, height].compactMap({ $0 }) where !(1...CanvasSize.maximumSide).contains(side) {
            throw OptionError("size \(Self.text(width, height)) is out of range: each side must be 1 to \(CanvasSize.maximumSide) pixels")
        }
        self.width = width
        self.height = height
    }

    public init(parsing text: String) throws {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        // Each side: a number, or empty for "follows from the photos".
        var sides: [Int?] = []
        for part in parts where parts.count == 2 {
            if part.isEmpty {
                sides.append(nil)
            } else if let side = Int(part) {
                sides.append(side)
            }
        }
        guard sides.count == 2 else {
            throw OptionError("size '\(text)' is not WIDTHxHEIGHT (e.g. 1920x1080), WIDTHx or xHEIGHT")
        }
        try self.init(width: sides[0], height: sides[1])
    }

    /// Why `layout` cannot draw a canvas of this size, or nil: a side left
    /// to the photos is worked out only by rows (the height) and columns
    /// (the width).
    public func refusal(for layout: LayoutMode) -> String? {
        if height == nil && layout != .rows { return "--size \(self) leaves the height to the photos, which only rows does" }
        if width == nil && layout != .columns { return "--size \(self) leaves the width to the photos, which only columns does" }
        return nil
    }

    /// The canvas, when both sides are given.
    public var canvas: CanvasSize? {
        guard let width, let height else { return nil }
        return try? CanvasSize(width: width, height: height)
    }

    private static func text(_ width: Int?, _ height: Int?) -> String {
        "\(width.map(String.init) ?? "")x\(height.map(String.init) ?? "")"
    }

    public var description: String { Self.text(width, height) }
}

/// An sRGB colour, parsed from a name or #RRGGBB / #RGB.
public struct RGBColor: Equatable, Sendable, CustomStringConvertible {
    public let red: UInt8
    public let green: UInt8
    public let blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public static let white = RGBColor(red: 255, green: 255, blue: 255)
    public static let black = RGBColor(red: 0, green: 0, blue: 0)

    public static let names: [String: RGBColor] = [
        "white": .white, "black": .black,
        "gray": RGBColor(red: 128, green: 128, blue: 128), "grey": RGBColor(red: 128, green: 128, blue: 128),
        "red": RGBColor(red: 255, green: 0, blue: 0), "green": RGBColor(red: 0, green: 128, blue: 0),
        "blue": RGBColor(red: 0, green: 0, blue: 255), "yellow": RGBColor(red: 255, green: 255, blue: 0),
    ]

    public init(parsing text: String) throws {
        let lowered = text.lowercased()
        if let named = Self.names[lowered] {
            self = named
            return
        }
        var hex = Substring(lowered)
        if hex.hasPrefix("#") { hex = hex.dropFirst() }
        if hex.count == 3 { hex = Substring(hex.map { "\($0)\($0)" }.joined()) }
        guard hex.count == 6, hex.allSatisfy(\.isHexDigit), let value = UInt32(hex, radix: 16) else {
            let known = Self.names.keys.sorted().joined(separator: ", ")
            throw OptionError("colour '\(text)' is not #RRGGBB, #RGB or one of \(known)")
        }
        self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }

    public var description: String { String(format: "#%02x%02x%02x", red, green, blue) }
}

/// The file formats a collage is saved in, chosen by the file's extension.
public enum ImageFormat: String, Equatable, Sendable, CaseIterable {
    case jpeg
    case png
    case webp

    public init(extension ext: String) throws {
        switch ext.lowercased() {
        case "jpg", "jpeg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "": throw OptionError("the output file needs an extension: .jpg, .jpeg, .png or .webp")
        default: throw OptionError("cannot save as '.\(ext)': use .jpg, .jpeg, .png or .webp")
        }
    }

    public init(path: String) throws {
        try self.init(extension: URL(fileURLWithPath: path).pathExtension)
    }

    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        }
    }

    /// Whether --quality means something for it (PNG is lossless).
    public var hasQuality: Bool { self != .png }
}

/// Where a photo is cropped when its shape differs from its cell's.
public enum CropMode: String, Equatable, Sendable, CaseIterable {
    /// The focus the person set, else the faces, else the camera's subject, else the centre.
    case smart
    /// Centred: the original app's aspect-fill.
    case centre
    /// The most salient part (edges, saturated colour, skin).
    case attention

    public init(parsing text: String) throws {
        switch text.lowercased() {
        case "smart": self = .smart
        case "centre", "center": self = .centre
        case "attention": self = .attention
        default: throw OptionError("crop '\(text)' is not smart, centre or attention")
        }
    }
}

/// Whether a photo fills its cell (cropped) or shows whole inside it.
public enum FitMode: String, Equatable, Sendable, CaseIterable {
    case cover
    case contain

    public init(parsing text: String) throws {
        guard let mode = FitMode(rawValue: text.lowercased()) else {
            throw OptionError("fit '\(text)' is not cover or contain")
        }
        self = mode
    }
}

/// How a collage is drawn and encoded.
public struct CollageRenderOptions: Equatable, Sendable {
    public var size: RequestedSize
    public var layout: LayoutMode
    public var background: RGBColor
    public var gap: Int
    /// Background-coloured space around the edge of the canvas.
    public var margin: Int
    public var quality: Int
    public var crop: CropMode
    public var fit: FitMode

    public static let defaultQuality = 90

    /// 1920x1080, the grid, white, no gap or margin, quality 90, smart
    /// crops that cover their cells. (The defaults pass every check, so this
    /// cannot fail.)
    public static let defaults: CollageRenderOptions = try! CollageRenderOptions()

    public init(size: RequestedSize = .default, layout: LayoutMode = .grid, background: RGBColor = .white,
                gap: Int = 0, margin: Int = 0,
                quality: Int = CollageRenderOptions.defaultQuality, crop: CropMode = .smart,
                fit: FitMode = .cover) throws {
        guard (1...100).contains(quality) else {
            throw OptionError("quality \(quality) is out of range: use 1 to 100")
        }
        guard gap >= 0 else { throw OptionError("gap \(gap) is negative") }
        guard margin >= 0 else { throw OptionError("margin \(margin) is negative") }
        self.size = size
        self.layout = layout
        self.background = background
        self.gap = gap
        self.margin = margin
        self.quality = quality
        self.crop = crop
        self.fit = fit
    }
}

/// A bad option value, with a message for the person who typed it.
public struct OptionError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
