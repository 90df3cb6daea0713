import Foundation

/// An sRGB colour, parsed from a CSS colour name or #RRGGBB / #RGB.
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

    /// Every CSS colour name (CSS Color Module Level 4: the 147 of CSS 3
    /// and rebeccapurple), as CSS defines them. Written out here because
    /// Pango's parser, the one at hand, reads X11's names, four of which
    /// differ from CSS's (X11 gray is #bebebe, green #00ff00, maroon
    /// #b03060, purple #a020f0) and which has no rebeccapurple.
    public static let names: [String: RGBColor] = cssNames.mapValues {
        RGBColor(red: UInt8($0 >> 16 & 0xFF), green: UInt8($0 >> 8 & 0xFF), blue: UInt8($0 & 0xFF))
    }

    private static let cssNames: [String: UInt32] = [
        "aliceblue": 0xf0f8ff,
        "antiquewhite": 0xfaebd7,
        "aqua": 0x00ffff,
        "aquamarine": 0x7fffd4,
        "azure": 0xf0ffff,
        "beige": 0xf5f5dc,
        "bisque": 0xffe4c4,
        "black": 0x000000,
        "blanchedalmond": 0xffebcd,
        "blue": 0x0000ff,
        "blueviolet": 0x8a2be2,
        "brown": 0xa52a2a,
        "burlywood": 0xdeb887,
        "cadetblue": 0x5f9ea0,
        "chartreuse": 0x7fff00,
        "chocolate": 0xd2691e,
        "coral": 0xff7f50,
        "cornflowerblue": 0x6495ed,
        "cornsilk": 0xfff8dc,
        "crimson": 0xdc143c,
        "cyan": 0x00ffff,
        "darkblue": 0x00008b,
        "darkcyan": 0x008b8b,
        "darkgoldenrod": 0xb8860b,
        "darkgray": 0xa9a9a9,
        "darkgreen": 0x006400,
        "darkgrey": 0xa9a9a9,
        "darkkhaki": 0xbdb76b,
        "darkmagenta": 0x8b008b,
        "darkolivegreen": 0x556b2f,
        "darkorange": 0xff8c00,
        "darkorchid": 0x9932cc,
        "darkred": 0x8b0000,
        "darksalmon": 0xe9967a,
        "darkseagreen": 0x8fbc8f,
        "darkslateblue": 0x483d8b,
        "darkslategray": 0x2f4f4f,
        "darkslategrey": 0x2f4f4f,
        "darkturquoise": 0x00ced1,
        "darkviolet": 0x9400d3,
        "deeppink": 0xff1493,
        "deepskyblue": 0x00bfff,
        "dimgray": 0x696969,
        "dimgrey": 0x696969,
        "dodgerblue": 0x1e90ff,
        "firebrick": 0xb22222,
        "floralwhite": 0xfffaf0,
        "forestgreen": 0x228b22,
        "fuchsia": 0xff00ff,
        "gainsboro": 0xdcdcdc,
        "ghostwhite": 0xf8f8ff,
        "gold": 0xffd700,
        "goldenrod": 0xdaa520,
        "gray": 0x808080,
        "green": 0x008000,
        "greenyellow": 0xadff2f,
        "grey": 0x808080,
        "honeydew": 0xf0fff0,
        "hotpink": 0xff69b4,
        "indianred": 0xcd5c5c,
        "indigo": 0x4b0082,
        "ivory": 0xfffff0,
        "khaki": 0xf0e68c,
        "lavender": 0xe6e6fa,
        "lavenderblush": 0xfff0f5,
        "lawngreen": 0x7cfc00,
        "lemonchiffon": 0xfffacd,
        "lightblue": 0xadd8e6,
        "lightcoral": 0xf08080,
        "lightcyan": 0xe0ffff,
        "lightgoldenrodyellow": 0xfafad2,
        "lightgray": 0xd3d3d3,
        "lightgreen": 0x90ee90,
        "lightgrey": 0xd3d3d3,
        "lightpink": 0xffb6c1,
        "lightsalmon": 0xffa07a,
        "lightseagreen": 0x20b2aa,
        "lightskyblue": 0x87cefa,
        "lightslategray": 0x778899,
        "lightslategrey": 0x778899,
        "lightsteelblue": 0xb0c4de,
        "lightyellow": 0xffffe0,
        "lime": 0x00ff00,
        "limegreen": 0x32cd32,
        "linen": 0xfaf0e6,
        "magenta": 0xff00ff,
        "maroon": 0x800000,
        "mediumaquamarine": 0x66cdaa,
        "mediumblue": 0x0000cd,
        "mediumorchid": 0xba55d3,
        "mediumpurple": 0x9370db,
        "mediumseagreen": 0x3cb371,
        "mediumslateblue": 0x7b68ee,
        "mediumspringgreen": 0x00fa9a,
        "mediumturquoise": 0x48d1cc,
        "mediumvioletred": 0xc71585,
        "midnightblue": 0x191970,
        "mintcream": 0xf5fffa,
        "mistyrose": 0xffe4e1,
        "moccasin": 0xffe4b5,
        "navajowhite": 0xffdead,
        "navy": 0x000080,
        "oldlace": 0xfdf5e6,
        "olive": 0x808000,
        "olivedrab": 0x6b8e23,
        "orange": 0xffa500,
        "orangered": 0xff4500,
        "orchid": 0xda70d6,
        "palegoldenrod": 0xeee8aa,
        "palegreen": 0x98fb98,
        "paleturquoise": 0xafeeee,
        "palevioletred": 0xdb7093,
        "papayawhip": 0xffefd5,
        "peachpuff": 0xffdab9,
        "peru": 0xcd853f,
        "pink": 0xffc0cb,
        "plum": 0xdda0dd,
        "powderblue": 0xb0e0e6,
        "purple": 0x800080,
        "rebeccapurple": 0x663399,
        "red": 0xff0000,
        "rosybrown": 0xbc8f8f,
        "royalblue": 0x4169e1,
        "saddlebrown": 0x8b4513,
        "salmon": 0xfa8072,
        "sandybrown": 0xf4a460,
        "seagreen": 0x2e8b57,
        "seashell": 0xfff5ee,
        "sienna": 0xa0522d,
        "silver": 0xc0c0c0,
        "skyblue": 0x87ceeb,
        "slateblue": 0x6a5acd,
        "slategray": 0x708090,
        "slategrey": 0x708090,
        "snow": 0xfffafa,
        "springgreen": 0x00ff7f,
        "steelblue": 0x4682b4,
        "tan": 0xd2b48c,
        "teal": 0x008080,
        "thistle": 0xd8bfd8,
        "tomato": 0xff6347,
        "turquoise": 0x40e0d0,
        "violet": 0xee82ee,
        "wheat": 0xf5deb3,
        "white": 0xffffff,
        "whitesmoke": 0xf5f5f5,
        "yellow": 0xffff00,
        "yellowgreen": 0x9acd32,
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
            throw ValueError("colour '\(text)' is not #RRGGBB, #RGB or a CSS colour name (white, teal, rebeccapurple...)")
        }
        self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }

    public var description: String { String(format: "#%02x%02x%02x", red, green, blue) }
}

/// Where a photo is cropped when its shape differs from its cell's.
public enum CropMode: String, Equatable, Sendable, OptionChoice {
    /// The focus the person set, else the faces, else the camera's subject, else the centre.
    case smart
    /// Centred: the original app's aspect-fill.
    case centre
    /// The most salient part (edges, saturated colour, skin).
    case attention

    public static let optionName = "crop"
    public static let aliases: [String: CropMode] = ["center": .centre]
}

/// Whether a photo fills its cell (cropped) or shows whole inside it.
public enum FitMode: String, Equatable, Sendable, OptionChoice {
    case cover
    case contain

    public static let optionName = "fit"
}

/// A value of the drawing or the saving out of its range, as values: the
/// view that read it words it with its own name for it.
public enum RenderValueError: Error, Equatable, Sendable, CustomStringConvertible {
    case negativeGap(Int)
    case negativeMargin(Int)
    case qualityOutOfRange(Int)

    public var description: String {
        switch self {
        case let .negativeGap(gap): "a gap of \(gap) px is negative: use 0 or more pixels"
        case let .negativeMargin(margin): "a margin of \(margin) px is negative: use 0 or more pixels"
        case let .qualityOutOfRange(quality): "quality \(quality) is out of range: use 1 to 100"
        }
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
    /// How the collage is written, whatever its format.
    public var save: SaveOptions
    public var crop: CropMode
    public var fit: FitMode
    /// A title across the top of the canvas (`--title`), or none.
    public var title: CollageTitle?
    /// The caption of a photo without its own (`--caption`).
    public var caption: CaptionSource
    /// The font of the title and captions (`--font`); nil for the defaults.
    public var font: CollageFont?
    /// The colour of the title and captions (`--text-colour`); nil: black
    /// or white for contrast (the title), white on a dark band (captions).
    public var textColour: RGBColor?

    /// 1920x1080, the `auto` layout, white, no gap or margin, quality 90, smart
    /// crops that cover their cells. (The defaults pass every check, so this
    /// cannot fail.)
    public static let defaults: CollageRenderOptions = try! CollageRenderOptions()

    public init(size: RequestedSize = .default, layout: LayoutMode = .default, background: RGBColor = .white,
                gap: Int = 0, margin: Int = 0,
                save: SaveOptions = .defaults, crop: CropMode = .smart,
                fit: FitMode = .cover, title: CollageTitle? = nil, caption: CaptionSource = .none,
                font: CollageFont? = nil, textColour: RGBColor? = nil) throws {
        guard gap >= 0 else { throw RenderValueError.negativeGap(gap) }
        guard margin >= 0 else { throw RenderValueError.negativeMargin(margin) }
        self.size = size
        self.layout = layout
        self.background = background
        self.gap = gap
        self.margin = margin
        self.save = save
        self.crop = crop
        self.fit = fit
        self.title = title
        self.caption = caption
        self.font = font
        self.textColour = textColour
    }

    /// These options with the selection's own title (`collage title`) where
    /// they give none: `--title` overrides it for one save.
    public func titled(_ stored: CollageTitle?) -> CollageRenderOptions {
        var options = self
        if options.title == nil { options.title = stored }
        return options
    }

    /// These options drawn at the size `request` asks for, `dpi` the print
    /// resolution asked (`--dpi`; nil when not asked): the one place a size
    /// on paper becomes pixels. A size on paper is drawn at `dpi` (300 when
    /// not asked), and the file says that resolution (`save.resolution`) and
    /// the page (`save.page`), so a print dialog prints it at its size
    /// unasked. A size in pixels is drawn as it is, and its file says `dpi`
    /// only when asked: without it, what it always wrote.
    public mutating func resize(to request: SizeRequest, dpi: PrintResolution?) throws {
        switch request {
        case let .pixels(pixels):
            size = pixels
            save = save.sized(to: request, resolution: dpi)
        case let .paper(paper):
            let resolution = dpi ?? .default
            size = RequestedSize(try paper.canvas(at: resolution))
            save = save.sized(to: request, resolution: resolution)
        }
    }
}
