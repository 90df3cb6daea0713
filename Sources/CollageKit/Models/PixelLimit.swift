/// The most pixels one decoded photo may have (`--max-pixels`, the engine's
/// `ci_limits`): a count, written as a number or with K, M or G (decimal
/// multiples; "100M", "100MP", "1.5G").
public struct PixelLimit: Equatable, Sendable, CustomStringConvertible {
    public let pixels: UInt64

    /// 100 megapixels (`CI_DEFAULT_MAX_PIXELS`).
    public static let `default` = PixelLimit(pixels: ImageEngine.defaultMaxDecodedPixels)

    /// 2^48: far past any image a decoder accepts (JPEG stops at 65500 per side).
    static let largest: UInt64 = 281_474_976_710_656

    public init(pixels: UInt64) { self.pixels = min(max(1, pixels), Self.largest) }

    public init(parsing text: String) throws {
        var digits = Substring(text.uppercased())
        if digits.hasSuffix("P") { digits = digits.dropLast() }
        var multiplier = 1.0
        switch digits.last {
        case "K": multiplier = 1e3
        case "M": multiplier = 1e6
        case "G": multiplier = 1e9
        default: break
        }
        if multiplier != 1 { digits = digits.dropLast() }
        guard let value = Double(digits), value.isFinite, value >= 1,
              digits.allSatisfy({ $0.isNumber || $0 == "." }) else {
            throw ValueError("'\(text)' is not a pixel count such as 100000000 or 100M")
        }
        let pixels = (value * multiplier).rounded()
        guard pixels >= 1, pixels <= Double(Self.largest) else {
            throw ValueError("'\(text)' is out of range: 1 to \(Self.largest) pixels")
        }
        self.pixels = UInt64(pixels)
    }

    /// The limit to give to let `pixels` through, rounded up to whole
    /// megapixels (or kilopixels, or pixels, for small counts) so that it
    /// reads as a person would type it: 200000001 pixels need "201M".
    public static func admitting(_ pixels: UInt64) -> PixelLimit {
        for unit: UInt64 in [1_000_000, 1_000] where pixels >= unit {
            return PixelLimit(pixels: (pixels + unit - 1) / unit * unit)
        }
        return PixelLimit(pixels: pixels)
    }

    /// As it would be typed: "100M", "1500K", "123456".
    public var description: String {
        for (suffix, unit) in [("G", 1_000_000_000 as UInt64), ("M", 1_000_000), ("K", 1_000)] where pixels % unit == 0 {
            return "\(pixels / unit)\(suffix)"
        }
        return "\(pixels)"
    }
}
