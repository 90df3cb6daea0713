import ArgumentParser
import CollageKit

/// `--max-pixels`, shared by `add`, `save` and `batch`: the most pixels one
/// decoded photo may have. Decompression bombs (a small file whose header
/// claims, say, 100000 x 100000 pixels) are refused by it before anything is
/// allocated for them; see docs/reliability.md for the memory it bounds.
struct LimitOptionGroup: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The most pixels one photo may decode to: a number, or with K, M or G (e.g. 250M). JPEGs count at their shrink-on-load size.",
        valueName: "n"))
    var maxPixels: PixelLimit = .default
}
