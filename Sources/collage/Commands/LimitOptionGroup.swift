import ArgumentParser
import CollageKit

/// `--max-pixels`, shared by `add`, `save` and `batch`: the most pixels one
/// decoded photo may have. Decompression bombs (a small file whose header
/// claims, say, 100000 x 100000 pixels) are refused by it before anything is
/// allocated for them; see docs/reliability.md for the memory it bounds.
struct LimitOptionGroup: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The most pixels one photo may decode to: a number, or with K, M or G (e.g. 250M). JPEGs count at their shrink-on-load size. (default: 100M)",
        valueName: "n"),
            transform: { try Self.parse($0) })
    var maxPixels: UInt64 = ImageEngine.defaultMaxDecodedPixels

    /// "100000000", "100M", "100MP", "1.5G" (decimal multiples).
    static func parse(_ text: String) throws -> UInt64 {
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
            throw ValidationError("--max-pixels '\(text)' is not a pixel count such as 100000000 or 100M")
        }
        let pixels = (value * multiplier).rounded()
        // 2^48: far past any image a decoder accepts (JPEG stops at 65500 per side).
        guard pixels >= 1, pixels <= 281_474_976_710_656 else {
            throw ValidationError("--max-pixels '\(text)' is out of range")
        }
        return UInt64(pixels)
    }
}
