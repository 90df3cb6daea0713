/// What a file in a folder is to the photos screen: a photo collage reads,
/// a file that looks like an image but is not one it reads (listed dimmed
/// with the reason, so a folder of them is never silently empty), or
/// anything else (not listed).
public enum FileClass: Equatable, Sendable {
    case photo
    case unreadable(reason: String)
    case other

    /// A file the engine did not recognise by its bytes, judged by its
    /// name's extension and its first bytes: `unreadable` for the image
    /// formats people keep (a Photoshop document, an SVG drawing, ...) and
    /// for a name that promises a format collage reads over bytes that are
    /// not that format; `other` for the rest. `readExtensions` are those of
    /// the formats the engine reads (the table's).
    public static func unrecognised(name: String, firstBytes: [UInt8], readExtensions: [String]) -> FileClass {
        let ext = name.split(separator: ".", omittingEmptySubsequences: false).count > 1
            ? String(name.split(separator: ".", omittingEmptySubsequences: false).last!).lowercased() : ""
        func starts(_ magic: String) -> Bool { firstBytes.starts(with: Array(magic.utf8)) }
        if starts("8BPS") || ["psd", "psb"].contains(ext) {
            return .unreadable(reason: "a Photoshop document: export it as JPEG, PNG or TIFF")
        }
        if let kind = lookalikes[ext] { return .unreadable(reason: "\(kind): not a format collage reads") }
        if starts("BM") && ext == "bmp" { return .unreadable(reason: "a BMP image: not a format collage reads") }
        if readExtensions.contains(ext) {
            return .unreadable(reason: "named .\(ext), but its bytes are not that format (or any collage reads)")
        }
        return .other
    }

    /// Image formats by extension that collage does not read, as people call them.
    static let lookalikes: [String: String] = [
        "svg": "an SVG drawing", "svgz": "an SVG drawing", "bmp": "a BMP image", "ico": "an icon",
        "tga": "a TGA image", "xcf": "a GIMP image", "kra": "a Krita image", "ora": "an OpenRaster image",
        "eps": "an EPS drawing", "ai": "an Illustrator drawing", "exr": "an OpenEXR image", "hdr": "a Radiance HDR image",
        "jp2": "a JPEG 2000 image", "j2k": "a JPEG 2000 image", "jpx": "a JPEG 2000 image", "dds": "a DDS texture",
        "pcx": "a PCX image", "ppm": "a PPM image", "pgm": "a PGM image", "pbm": "a PBM image", "pnm": "a PNM image",
        "qoi": "a QOI image", "pdf": "a PDF document",
    ]
}
