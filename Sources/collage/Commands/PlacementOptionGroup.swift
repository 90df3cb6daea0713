import ArgumentParser
import CollageKit

/// Where photos are cropped and whether they fit whole: the options `save`,
/// `batch`, `preview` and `pick` share.
struct PlacementOptionGroup: ParsableArguments {
    // The values, what each does and the default: from CropMode and FitMode (ModelArguments.swift).
    @Option(help: "Where photos are cropped to fill their cells.")
    var crop: CropMode = .smart

    @Option(help: "How each photo fills its cell.")
    var fit: FitMode = .cover
}
