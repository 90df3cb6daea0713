import ArgumentParser
import CollageKit

/// Where photos are cropped and whether they fit whole: the options `save`,
/// `batch`, `preview` and `pick` share.
struct PlacementOptionGroup: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Where photos are cropped to fill their cells: smart (the focus set with `collage focus`, else the faces in the photo, else the camera's subject, else the centre), centre (always the middle), or attention (the busiest, most colourful part). Default: smart.",
        valueName: "smart|centre|attention"),
            transform: { try CropMode(parsing: $0) })
    var crop: CropMode = .smart

    @Option(help: ArgumentHelp(
        "cover fills each cell, cropping what overflows; contain shows each photo whole, the rest of its cell in the background colour (for panoramas and documents). Default: cover.",
        valueName: "cover|contain"),
            transform: { try FitMode(parsing: $0) })
    var fit: FitMode = .cover
}
