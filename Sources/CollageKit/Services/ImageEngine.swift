import CollageImaging
import Dispatch
import Foundation

/// A format the engine reads or writes, as its tables describe it (the
/// loaders' and the writers', apart): what a photo is, judged by its bytes,
/// and what a collage is saved in, chosen by the file's extension (`writable`).
public struct ImageFormat: Equatable, Sendable {
    let format: ci_format
    /// As messages name it: "JPEG", "HEIF".
    public let name: String
    /// The names people know it by, for help texts: "HEIC/HEIF/AVIF".
    public let title: String
    /// The extensions its files go by, lower case, the usual first.
    public let extensions: [String]
    /// Those a collage saved in it is given (HEIF: only "avif"), the usual first.
    public let saveExtensions: [String]
    public let canSave: Bool
    /// The save options its writer reads (none: it is not written); the
    /// others it ignores, which the views say when they are given.
    public let reads: SaveOptionKinds
    /// Its writer writes pages (PDF: the title and captions set as text
    /// over the photos), not pixels that have them drawn in.
    public let isPage: Bool
    /// The smallest scale, in eighths, a photo is decoded at (8: full size only).
    public let smallestScale: Int

    /// Its writer has a quality (a lossy encoder; a page's photos).
    public var hasQuality: Bool { reads.contains(.quality) }

    /// The engine's writers, in its order.
    private static let writers: [ci_writer_info] = (0..<ci_writers(0, nil)).map { index in
        var info = ci_writer_info()
        _ = ci_writers(index, &info)
        return info
    }

    private init(_ format: ci_format, name: String, title: String, extensions: [String], writer: ci_writer_info?,
                 smallestScale: Int) {
        self.format = format
        self.name = name
        self.title = title
        self.extensions = extensions
        saveExtensions = writer.map { String(cString: $0.extensions).split(separator: " ").map(String.init) } ?? extensions
        canSave = writer != nil
        reads = writer.map { SaveOptionKinds(rawValue: $0.options) } ?? []
        isPage = writer?.writes == CI_WRITES_PAGES
        self.smallestScale = smallestScale
    }

    /// Every format read, in the engine's order, with its writer if it has one.
    public static let all: [ImageFormat] = (0..<ci_formats(0, nil)).map { index in
        var info = ci_format_info()
        _ = ci_formats(index, &info)
        return ImageFormat(info.format, name: String(cString: info.name), title: String(cString: info.title),
                           extensions: String(cString: info.extensions).split(separator: " ").map(String.init),
                           writer: writers.first { $0.format == info.format }, smallestScale: Int(info.smallest_scale))
    }

    /// The formats a collage can be saved in, in the writers' order: those
    /// read too as `all` has them, those written only (PDF) from their writer.
    public static let writable: [ImageFormat] = writers.map { writer in
        all.first { $0.format == writer.format } ?? {
            let name = String(cString: writer.name)
            return ImageFormat(writer.format, name: name, title: name,
                               extensions: String(cString: writer.extensions).split(separator: " ").map(String.init),
                               writer: writer, smallestScale: 8)
        }()
    }

    /// The format of an engine's code, nil for one it does not know.
    static func of(_ format: ci_format) -> ImageFormat? { all.first { $0.format == format } }

    /// The format a file's first bytes (up to `sniffedBytes` of them) say it
    /// is, as the engine judges photos; nil for anything else.
    static func of(firstBytes bytes: [UInt8]) -> ImageFormat? {
        of(bytes.withUnsafeBufferPointer { ci_sniff_format($0.baseAddress, $0.count) })
    }

    /// How many first bytes tell a format.
    static let sniffedBytes = Int(CI_SNIFF_BYTES)

    /// The format written for a file extension, nil when none is.
    static func saving(extension ext: String) -> ImageFormat? {
        writable.first { $0.saveExtensions.contains(ext.lowercased()) }
    }
}

extension ImageFormat {
    /// The table's first writable format (JPEG): what a batch writes unless told.
    public static var standard: ImageFormat { writable[0] }

    /// The extension a collage saved in this format is given: its usual one.
    public var fileExtension: String { saveExtensions[0] }

    /// The format written for a file extension (any of a format's, any case).
    public init(extension ext: String) throws(SaveFormatError) {
        guard !ext.isEmpty else { throw .noExtension }
        guard let format = Self.saving(extension: ext) else { throw .unknownExtension(ext) }
        self = format
    }

    /// The format written for a file's name, by its extension.
    public init(path: String) throws(SaveFormatError) {
        try self.init(extension: URL(fileURLWithPath: path).pathExtension)
    }
}

/// Why a collage cannot be saved under a name, whose extension chooses the format.
public enum SaveFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The name has none.
    case noExtension
    /// No format the engine writes goes by it.
    case unknownExtension(String)

    public var description: String {
        switch self {
        case .noExtension: "the output file needs an extension: \(ImageFormat.savedExtensions)"
        case let .unknownExtension(ext): "cannot save as '.\(ext)': use \(ImageFormat.savedExtensions)"
        }
    }
}

/// The formats as help texts list them, from the engine's table.
extension ImageFormat {
    /// Every format read, by title: "A, B or C".
    public static var readTitles: String { listed(all.map(\.title), "or") }
    /// Every format written, by title.
    public static var savedTitles: String { listed(writable.map(\.saveTitle), "or") }
    /// The extensions of the formats written: ".a, .b or .c".
    public static var savedExtensions: String { listed(writable.flatMap(\.saveExtensions).map { "." + $0 }, "or") }
    /// The formats written with a quality: "A and B".
    public static var qualityTitles: String { listed(writable.filter(\.hasQuality).map(\.saveTitle), "and") }
    /// The formats written without one.
    public static var losslessTitles: String { listed(writable.filter { !$0.hasQuality }.map(\.saveTitle), "and") }

    /// What a saved file of this format is called: its title, or where it
    /// is written as only some of what it reads (HEIF as AVIF) that kind.
    public var saveTitle: String { saveExtensions == extensions ? title : saveExtensions[0].uppercased() }

    /// "a, b or c".
    private static func listed(_ items: [String], _ conjunction: String) -> String {
        guard let last = items.last else { return "" }
        guard items.count > 1 else { return last }
        return items.dropLast().joined(separator: ", ") + " \(conjunction) " + last
    }
}

/// What a photo file is, read from its header.
public struct PhotoInfo: Equatable, Sendable {
    public let format: ImageFormat
    public let width: Int
    public let height: Int
    public let orientation: Int
    public let displayWidth: Int
    public let displayHeight: Int
    public let hasAlpha: Bool
    /// When it was taken, as EXIF writes it ("2019:07:04 18:30:00"); nil when
    /// the file says nothing (or nothing that is a date).
    public let dateTaken: String?

    /// What the engine's probe found; refused when the format is none the
    /// engine lists (never taken for a JPEG).
    public init(_ info: ci_photo_info) throws {
        guard let known = ImageFormat.of(info.format) else {
            throw ImageEngineError(kind: .notImage, message: "format \(info.format.rawValue) is none the engine reads")
        }
        format = known
        width = Int(info.width)
        height = Int(info.height)
        orientation = Int(info.orientation)
        displayWidth = Int(info.display_width)
        displayHeight = Int(info.display_height)
        hasAlpha = info.has_alpha != 0
        dateTaken = Self.text(of: info.date_taken)
    }

    /// A date the engine read (`date_taken`, a C array of CI_DATE_TAKEN_BYTES),
    /// or nil for "".
    static func text<CArray>(of date: CArray) -> String? {
        let text = withUnsafeBytes(of: date) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return text.isEmpty ? nil : text
    }
}

/// An image the engine refused or failed on; `message` names the file.
public struct ImageEngineError: Error, Equatable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        case open, notImage, unsupported, corrupt, tooLarge, noMemory, invalidArgument, encode
    }

    public let kind: Kind
    public let message: String
    /// For a photo refused for its size (`tooLarge`, where the probe tells):
    /// the fewest pixels it decodes to, which a limit must allow to admit it.
    public let pixelsNeeded: UInt64?
    public var description: String { message }

    init(_ error: ci_error) {
        switch error.status {
        case CI_ERR_OPEN: kind = .open
        case CI_ERR_NOT_IMAGE: kind = .notImage
        case CI_ERR_UNSUPPORTED: kind = .unsupported
        case CI_ERR_CORRUPT: kind = .corrupt
        case CI_ERR_TOO_LARGE: kind = .tooLarge
        case CI_ERR_NO_MEMORY: kind = .noMemory
        case CI_ERR_ENCODE: kind = .encode
        default: kind = .invalidArgument
        }
        message = withUnsafeBytes(of: error.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        pixelsNeeded = nil
    }

    public init(kind: Kind, message: String, pixelsNeeded: UInt64? = nil) {
        self.kind = kind
        self.message = message
        self.pixelsNeeded = pixelsNeeded
    }

    /// A path with a NUL byte (possible in a batch list) names no file; as a
    /// C string it would name a different one, cut at the NUL.
    static func unopenable(_ photo: Photo) -> ImageEngineError {
        ImageEngineError(kind: .open, message: "\(photo.path.debugDescription.dropFirst().dropLast()): not a valid file name (it contains a NUL byte)")
    }
}

/// An 8-bit RGB image: what a collage is before it is encoded.
public struct RGBImage: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]
    /// When the earliest photo it shows was taken (EXIF, "YYYY:MM:DD
    /// HH:MM:SS"), which a saved file carries; nil when none says.
    public var dateTaken: String?

    public init(width: Int, height: Int, filledWith color: RGBColor) {
        self.width = width
        self.height = height
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        pixels.withUnsafeMutableBufferPointer { buffer in
            var index = 0
            while index < buffer.count {
                buffer[index] = color.red
                buffer[index + 1] = color.green
                buffer[index + 2] = color.blue
                index += 3
            }
        }
        self.pixels = pixels
    }

    /// A canvas whose pixels outside `cells` are `color`, and whose pixels
    /// inside them are left for the caller to write, every one of them:
    /// `ImageEngine.render` draws every visible pixel of every cell (or
    /// throws the image away). Filling 6 MB only to overwrite it took 2 ms
    /// before the decoding could start, and the first touch of those pages
    /// now happens in the parallel drawing instead.
    init(width: Int, height: Int, filledWith color: RGBColor, except cells: [CellRect]) {
        self.width = width
        self.height = height
        let rowBytes = width * 3
        let background = [UInt8]((0..<width).flatMap { _ in [color.red, color.green, color.blue] })
        let byX = cells.sorted { $0.x < $1.x }
        pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, count in
            background.withUnsafeBufferPointer { row in
                func fill(_ y: Int, _ from: Int, _ to: Int) {
                    guard from < to else { return }
                    (buffer.baseAddress! + y * rowBytes + from * 3)
                        .initialize(from: row.baseAddress! + from * 3, count: (to - from) * 3)
                }
                for y in 0..<height {
                    var x = 0
                    for cell in byX where y >= cell.y && y < cell.y + cell.height {
                        let left = min(max(cell.x, 0), width), right = min(max(cell.x + cell.width, 0), width)
                        fill(y, x, left)
                        x = max(x, right)
                    }
                    fill(y, x, width)
                }
            }
            count = rowBytes * height
        }
    }

    public func pixel(x: Int, y: Int) -> RGBColor {
        let offset = (y * width + x) * 3
        return RGBColor(red: pixels[offset], green: pixels[offset + 1], blue: pixels[offset + 2])
    }
}

/// Tells whether a file is a photo we can use, by its content.
public protocol PhotoInspecting: Sendable {
    /// What the photo's header says (format, size, orientation), read
    /// without decoding: for whatever only wants its shape (a layout's plan,
    /// a preview). A file cut short after its header passes.
    func inspect(_ photo: Photo) throws -> PhotoInfo
    /// `inspect`, and the file refused when it is not whole (a copy cut
    /// short) or cannot be drawn: what `add` asks before it accepts a photo,
    /// with what a person should be told of it (corrupt data its decoder
    /// reads past). Dearer: it reads the whole file, a GIF (and a JPEG whose
    /// structure is not plainly whole) is drawn small, and a JPEG XL's first
    /// frame is decoded (0.5 s for 12 megapixels).
    func admit(_ photo: Photo) throws -> Admission
    /// `admit` for a caller that draws the photo next (a batch's collage):
    /// what only a draw can tell (corrupt data a decoder reads past, a JPEG
    /// cut short) is left to that draw, which says it, so that no photo is
    /// decoded twice (issue #42); the walk to the file's end still refuses a
    /// PNG, GIF, TIFF or JPEG XL cut short.
    func admitForDrawing(_ photo: Photo) throws -> Admission
    /// Why the photo's file cannot be read now (gone, or refused), nil
    /// when it can: checked on every reload, so it must be cheap (no decoding).
    func absence(of photo: Photo) -> PhotoAbsence?
}

extension PhotoInspecting {
    public func absence(of photo: Photo) -> PhotoAbsence? { photo.absence }
    /// For inspectors whose `inspect` reads all there is (fakes).
    public func admit(_ photo: Photo) throws -> Admission { Admission(info: try inspect(photo)) }
    public func admitForDrawing(_ photo: Photo) throws -> Admission { try admit(photo) }
}

/// A photo `add` may record: its header, and what a person should be told
/// of it though it is accepted.
public struct Admission: Equatable, Sendable {
    public let info: PhotoInfo
    public let notices: [PhotoNotice]

    public init(info: PhotoInfo, notices: [PhotoNotice] = []) {
        self.info = info
        self.notices = notices
    }
}

/// Draws a collage of photos.
public protocol CollageRendering: Sendable {
    /// The collage, its plan, and what each cell shows of its photo.
    func render(_ photos: [Photo], options: CollageRenderOptions) throws -> RenderedCollage
    /// `render`, with what a person should be told of the photos drawn, and
    /// the title and captions drawn into the pixels or left for a page.
    func renderNoting(_ photos: [Photo], options: CollageRenderOptions, text: TextDrawing) throws -> NotedCollage
}

extension CollageRendering {
    /// For renderers with nothing to tell (fakes).
    public func renderNoting(_ photos: [Photo], options: CollageRenderOptions, text: TextDrawing) throws -> NotedCollage {
        NotedCollage(collage: try render(photos, options: options), notices: [])
    }
}

/// Where a collage's title and captions go: into its pixels (a raster
/// file), or apart, measured and placed but not drawn, for a page that sets
/// them as text over the photos (PDF: `CollagePage`).
public enum TextDrawing: Sendable {
    case onPixels
    case apart

    /// What `format` needs.
    public init(for format: ImageFormat) { self = format.isPage ? .apart : .onPixels }
}

/// A collage drawn, and what a person should be told of its photos.
public struct NotedCollage: Sendable {
    public let collage: RenderedCollage
    public let notices: [PhotoNotice]
}

/// Something about a photo that does not stop its collage but that a
/// person should know: the result may not look as they expect.
public enum PhotoNotice: Equatable, Sendable {
    /// The decoder read past broken data `count` times and drew on (a
    /// damaged file): parts may be garbled (shifted colours, grey or repeated blocks).
    case corruptData(Photo, count: Int)
    /// The file ends before its picture does (a download that stopped):
    /// drawn as far as its data goes, the top `drawn` of its rows and the
    /// rest grey; `drawn` nil for a progressive JPEG whose later scans are
    /// missing, every row there but coarse.
    case cutShort(Photo, drawn: Double?)
    /// Scaled up by `factor` to fill its cell: it will look soft.
    case enlarged(Photo, factor: Double)
    /// Printed at the print resolution asked, its cell has `dotsPerInch` of
    /// the photo's pixels to the inch, fewer than `softPrintResolution`: the print
    /// will look soft. Said instead of `enlarged` when a print resolution is
    /// in play (a size on paper, or `--dpi`): what matters then is the
    /// paper, not the pixels (at 300 dpi both say the same; at 600 a photo
    /// enlarged 2x still prints at 300 dpi).
    case softPrint(Photo, dotsPerInch: Int)

    /// Beyond this a photo enlarged to fill its cell looks soft.
    public static let softEnlargement = 2.0
    /// Below this many of a photo's pixels to the inch, a print looks soft.
    public static let softPrintResolution = 150

    public var message: String {
        switch self {
        case let .corruptData(photo, _):
            return "\(photo.path): the file has corrupt data: it is drawn as far as it decodes, and parts may be garbled"
        case let .cutShort(photo, nil):
            return "\(photo.path): cut short: it is drawn coarse because its later scans are missing"
        case let .cutShort(photo, drawn?):
            // Down, so that "100%" never says a grey row is drawn; a sliver is 1%, not 0.
            let percent = min(99, Int((drawn * 100).rounded(.down)))
            if drawn <= 0 { return "\(photo.path): cut short: none of it could be drawn (it is grey)" }
            return "\(photo.path): cut short: the top \(max(1, percent))% of it could be drawn (the rest is grey)"
        case let .enlarged(photo, factor):
            return "\(photo.path) is enlarged \(String(format: "%.1f", factor))x to fill its cell: it will look soft"
        case let .softPrint(photo, dotsPerInch):
            return "\(photo.path) prints at \(dotsPerInch) dpi in its cell (below \(Self.softPrintResolution)): it will look soft"
        }
    }

    /// What a draw found wrong with the file, if anything: a cut says how
    /// much was drawn (what a person wants to know of a download that
    /// stopped); other damage is corrupt data.
    static func damage(of placement: ci_placement, photo: Photo) -> PhotoNotice? {
        switch placement.cut_short {
        case CI_CUT_ROWS: return .cutShort(photo, drawn: placement.drawn_share)
        case CI_CUT_SCANS: return .cutShort(photo, drawn: nil)
        default: return placement.corrupt_data > 0 ? .corruptData(photo, count: Int(placement.corrupt_data)) : nil
        }
    }

    /// What a draw's placement says of its photo (`cell`: the cell it was
    /// drawn in; `resolution`: the print resolution in play, if any).
    static func notices(of placement: ci_placement, photo: Photo, cell: CellRect,
                        resolution: PrintResolution?) -> [PhotoNotice] {
        var notices = damage(of: placement, photo: photo).map { [$0] } ?? []
        // The part shown, in the photo's pixels, against the cell: the
        // smaller ratio is the scale for contain (the whole photo) and cover alike.
        let shownWidth = placement.shown.width * Double(placement.display_width)
        let shownHeight = placement.shown.height * Double(placement.display_height)
        if shownWidth > 0, shownHeight > 0 {
            let factor = min(Double(cell.width) / shownWidth, Double(cell.height) / shownHeight)
            if let resolution {
                // The photo's pixels across the part shown over the cell's
                // inches: the canvas's dpi shrunk by the enlargement.
                let effective = Int(Double(resolution.dotsPerInch) / factor)
                if effective < softPrintResolution { notices.append(.softPrint(photo, dotsPerInch: effective)) }
            } else if factor > softEnlargement {
                notices.append(.enlarged(photo, factor: factor))
            }
        }
        return notices
    }
}

extension Array where Element == PhotoNotice {
    /// Appends `notice` unless one that reads the same is there: a damaged
    /// file is told at add and again at save, and said once.
    public mutating func appendOnce(_ notice: PhotoNotice) {
        if !contains(where: { $0.message == notice.message }) { append(notice) }
    }
}

extension PhotoShape {
    /// The photo as it is seen: after its EXIF orientation.
    public init(_ info: PhotoInfo) { self.init(width: info.displayWidth, height: info.displayHeight) }
}

/// Turns an image, or a page, into file bytes.
public protocol ImageEncoding: Sendable {
    func encode(_ image: RGBImage, as format: ImageFormat, options: SaveOptions) throws -> [UInt8]
    /// A PDF of one page (`ImageFormat.pdf`, a `PageDocument` of one page).
    func encode(_ page: CollagePage, options: SaveOptions) throws -> [UInt8]
}

/// The C engine (`CollageImaging`) behind Swift protocols.
public struct ImageEngine: PhotoInspecting, CollageRendering, ImageEncoding {
    /// The most pixels one decoded photo may have (see `ci_limits`).
    public var maxDecodedPixels: UInt64
    /// How many photos of one collage are decoded at once (and whether its
    /// JPEG's two halves are encoded at once). All cores by default; batch
    /// mode, which makes several collages at once, gives each its share so
    /// the cores are not oversubscribed.
    public var decodeThreads: Int

    /// The default of `maxDecodedPixels`, 100 megapixels (`--max-pixels`).
    public static let defaultMaxDecodedPixels = UInt64(CI_DEFAULT_MAX_PIXELS)

    public init(maxDecodedPixels: UInt64 = ImageEngine.defaultMaxDecodedPixels,
                decodeThreads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.maxDecodedPixels = maxDecodedPixels
        self.decodeThreads = max(1, decodeThreads)
    }

    public func inspect(_ photo: Photo) throws -> PhotoInfo {
        var info = ci_photo_info()
        try call(photo) { ci_probe_file($0, &info, &$1) }
        try checkLimit(info, photo)
        return try PhotoInfo(info)
    }

    /// The header, then the whole file (ci_check_complete): a photo over the
    /// limit is refused before the walk. A GIF, and a JPEG whose structure
    /// is not plainly whole, is drawn small too, which is the only way to
    /// tell corrupt data its decoder reads past (issue #32); a plainly whole
    /// JPEG is not decoded here (issue #42: that was a third of W6's time),
    /// and corrupt data inside its scan is said by the draw at `save`.
    public func admit(_ photo: Photo) throws -> Admission {
        let info = try inspect(photo)
        var limits = ci_limits(max_pixels: maxDecodedPixels)
        var placed = ci_placement()
        try call(photo) { ci_check_complete($0, &limits, &placed, &$1) }
        return Admission(info: info, notices: PhotoNotice.damage(of: placed, photo: photo).map { [$0] } ?? [])
    }

    /// The header and the walk to the file's end, without the small draw
    /// (ci_check_complete with no placement).
    public func admitForDrawing(_ photo: Photo) throws -> Admission {
        let info = try inspect(photo)
        var limits = ci_limits(max_pixels: maxDecodedPixels)
        try call(photo) { ci_check_complete($0, &limits, nil, &$1) }
        return Admission(info: info, notices: [])
    }

    /// Calls the engine on the photo's path; its refusal thrown.
    private func call(_ photo: Photo, _ body: (UnsafePointer<CChar>, inout ci_error) -> ci_status) throws {
        var error = ci_error()
        guard let status = photo.withFileSystemPath({ body($0, &error) }) else { throw ImageEngineError.unopenable(photo) }
        guard status == CI_OK else { throw ImageEngineError(error) }
    }

    /// Refuses, when it is added, a photo that could never be decoded within
    /// `maxDecodedPixels`, even at the smallest scale its format decodes at
    /// (a JPEG's 1/8, which shrink-on-load can reach; full size for the
    /// others). A header claiming 100000 x 100000 pixels is thus refused at
    /// once, by name.
    private func checkLimit(_ info: ci_photo_info, _ photo: Photo) throws {
        let scale = ImageFormat.of(info.format)?.smallestScale ?? 8
        let width = UInt64(ci_scaled_size(info.width, UInt32(scale)))
        let height = UInt64(ci_scaled_size(info.height, UInt32(scale)))
        guard width * height > maxDecodedPixels else { return }
        // The engine's wording of pixel counts, so both limits read alike.
        func describe(_ pixels: UInt64) -> (pixels: String, limit: String) {
            var text = [CChar](repeating: 0, count: 48), limit = [CChar](repeating: 0, count: 48)
            ci_describe_pixels(pixels, maxDecodedPixels, &text, &limit, 48)
            return (String(cString: text), String(cString: limit))
        }
        let full = describe(UInt64(info.width) * UInt64(info.height))
        let smallest = scale < 8 ? " (\(describe(width * height).pixels) at \(scale)/8 scale)" : ""
        throw ImageEngineError(
            kind: .tooLarge,
            message: "\(photo.path): \(info.width)x\(info.height) is \(full.pixels)\(smallest), over the limit of \(full.limit)",
            pixelsNeeded: width * height)
    }

    /// A photo over the limit, refused as it was drawn (the grid reads no
    /// header first), as `checkLimit` refuses it, with the pixels a limit
    /// must allow; any other error as it is. Only on failure.
    private func explained(_ error: ImageEngineError, _ photo: Photo) -> ImageEngineError {
        guard error.kind == .tooLarge else { return error }
        do {
            _ = try inspect(photo)
        } catch let refusal as ImageEngineError where refusal.kind == .tooLarge {
            return refusal
        } catch {}
        return error
    }

    /// Draws every photo into its cell of the collage's plan. The photos
    /// are decoded in parallel on `decodeThreads` workers: each writes only
    /// its own cell of the canvas, so the result does not depend on the order
    /// they finish. Layouts other than the grid read the photos' headers
    /// first, for their shapes.
    public func render(_ photos: [Photo], options: CollageRenderOptions) throws -> RenderedCollage {
        try renderNoting(photos, options: options, text: .onPixels).collage
    }

    public func renderNoting(_ photos: [Photo], options: CollageRenderOptions, text: TextDrawing) throws -> NotedCollage {
        try drawNoting(photos, plan: try plan(photos, options: options), options: options, text: text)
    }

    /// Where each photo goes (`CollageLayout`), reading the photos' shapes
    /// from their headers when the layout needs them (the grid does not).
    public func plan(_ photos: [Photo], options: CollageRenderOptions) throws -> LayoutPlan {
        var request = LayoutRequest(options)
        if let title = options.title { request.title = try measure(title, options, width: options.size.width) }
        let shapes = request.needsPhotoShapes
            ? try photos.map { PhotoShape(try inspect($0)) }
            : photos.map { _ in PhotoShape(width: 1, height: 1) }
        let plan = try CollageLayout.plan(shapes, request)
        // A width left to the photos: the band kept room for two lines; if
        // the title fits on one at the width the photos gave, plan again with
        // a band of one line (the photos then get more height, and so more
        // width), and keep that plan if the title still fits it as measured.
        guard options.size.width == nil, let title = options.title, let reserved = request.title,
              let fitted = try measure(title, options, width: plan.canvas.width),
              fitted.textHeight < reserved.textHeight else { return plan }
        request.title = fitted
        let tighter = try CollageLayout.plan(shapes, request)
        guard try measure(title, options, width: tighter.canvas.width) == fitted else { return plan }
        return tighter
    }

    /// Whether fontconfig finds any font: without one no text is drawn.
    public static var fontsAvailable: Bool { ci_text_fonts_available() != 0 }

    /// A font description (`--font`) checked by the text engine, with the
    /// size it gives in pixels (Pango's points are 96/72 pixels).
    public static func font(parsing description: String) throws -> CollageFont {
        var pixels = 0.0
        var error = ci_error()
        guard ci_text_font_pixels(description, &pixels, &error) == CI_OK else { throw ImageEngineError(error) }
        return CollageFont(description: description, pixels: pixels)
    }

    /// The family drawn instead of the one `font` asks for when fontconfig
    /// has no font of that name (it then gives its default, silently); nil
    /// when it has one, and for the generic families (Sans, Serif,
    /// Monospace...), which fontconfig maps to an installed one by design.
    public static func substitute(for font: CollageFont) -> (asked: String, used: String)? {
        var asked = [CChar](repeating: 0, count: 256)
        var used = [CChar](repeating: 0, count: 256)
        var error = ci_error()
        guard ci_text_font_family(font.description, &asked, &used, asked.count, &error) == CI_OK else { return nil }
        let askedFamily = String(decoding: asked.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let usedFamily = String(decoding: used.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // A description may list families ("Noto Sans,DejaVu Sans"): any one found is the one asked for.
        let families = askedFamily.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let generic: Set<String> = ["sans", "sans-serif", "serif", "monospace", "mono", "system-ui", "cursive", "fantasy",
                                    "emoji", "math"]
        if families.isEmpty || families.contains(usedFamily.lowercased()) || families.contains(where: generic.contains) {
            return nil
        }
        return (askedFamily, usedFamily)
    }

    /// How many characters of `text` no installed font has (Pango draws
    /// them as boxes with their code), in the title's font at one line's
    /// width; 0 without any font.
    public static func missingGlyphs(in text: String, font: CollageFont? = nil) -> Int {
        var metrics = ci_text_metrics()
        var error = ci_error()
        let status = withTextRun(text, font: font?.description ?? CollageFont.titleDefault, pixels: 20,
                                 width: Int(CI_TEXT_MAX_SIDE), height: 1, lines: 1) {
            ci_text_measure(&$0, &metrics, &error)
        }
        return status == CI_OK ? Int(metrics.missing_glyphs) : 0
    }

    /// A text run (one line of text as `TextLine` makes it), centred, for the length of `body`.
    private static func withTextRun(_ text: String, font: String, pixels: Double, width: Int, height: Int, lines: Int32,
                                    colour: RGBColor = .black, _ body: (inout ci_text_run) -> ci_status) -> ci_status {
        text.withCString { text in
            font.withCString { font in
                var run = ci_text_run(text: text, font: font, pixels: pixels, width: width, height: height, lines: lines,
                                      colour: colour)
                return body(&run)
            }
        }
    }

    /// The title laid out by the text engine for the canvas of `options`:
    /// how tall its lines are at the width they will be drawn at (wrapped to
    /// two lines at most). Without a width (`--layout columns`, `--size
    /// xHEIGHT`, before the photos give it), room for two lines is kept.
    /// Nil when there is no font to draw it with: then the photos fill the
    /// whole canvas. A band that passes `TitleRequest.bandLimit` (a title
    /// on two lines, or a font whose lines are taller than estimated) is
    /// laid out in the largest smaller font whose band fits, unless `--font`
    /// gave the size.
    func measure(_ title: CollageTitle, _ options: CollageRenderOptions, width canvasWidth: Int?) throws -> TitleRequest? {
        let pixels = TitleRequest.fontPixels(for: options.size, font: options.font)
        let limit = TitleRequest.bandLimit(for: options.size)
        guard let measured = try measure(title, options, width: canvasWidth, pixels: pixels) else { return nil }
        guard options.font?.pixels == nil, measured.bandHeight > limit, pixels > TitleRequest.minimumPixels else {
            return measured
        }
        // The band grows with the font (taller lines, more of them): the
        // largest whole size that fits, halving the sizes between the
        // smallest and this one (six layouts for 43 px, each under 0.1 ms).
        var (fits, passes) = (TitleRequest.minimumPixels, pixels)
        var fitting: TitleRequest?
        while passes - fits > 1 {
            let middle = ((fits + passes) / 2).rounded(.down)
            guard let laidOut = try measure(title, options, width: canvasWidth, pixels: middle) else { return nil }
            if laidOut.bandHeight <= limit { (fits, fitting) = (middle, laidOut) } else { passes = middle }
        }
        if let fitting { return fitting }
        return try measure(title, options, width: canvasWidth, pixels: fits)
    }

    /// The title laid out in a font of `pixels`.
    private func measure(_ title: CollageTitle, _ options: CollageRenderOptions, width canvasWidth: Int?,
                         pixels: Double) throws -> TitleRequest? {
        var lines = Int32(TitleRequest.maximumLines), reserve = 1
        var width = Int(CI_TEXT_MAX_SIDE)
        if let canvasWidth {
            let band = TitleBand(text: title.text, rect: CellRect(x: 0, y: 0, width: max(1, canvasWidth - 2 * options.margin), height: 1),
                                 fontPixels: pixels)
            width = band.textBox.width
        } else {
            (lines, reserve) = (1, TitleRequest.maximumLines)
        }
        var metrics = ci_text_metrics()
        var error = ci_error()
        let status = Self.withTextRun(title.text, font: options.font?.description ?? CollageFont.titleDefault,
                                      pixels: pixels, width: width, height: 1, lines: lines) {
            ci_text_measure(&$0, &metrics, &error)
        }
        guard status == CI_OK else { throw ImageEngineError(error) }
        guard metrics.has_fonts != 0 else { return nil }
        // A font's lines are 1-1.5 em; a broken font cannot make the band take the canvas.
        let lineHeight = min(Int(metrics.height), Int((pixels * 3).rounded()) * Int(lines))
        return TitleRequest(text: title.text, fontPixels: pixels, textHeight: lineHeight * reserve)
    }

    /// Composites `text` (a title's lines, a caption's line) into `canvas`.
    func draw(_ text: CollageText, on canvas: inout ci_image) throws(ImageEngineError) {
        var error = ci_error()
        let status = Self.withTextRun(text.text, font: text.font, pixels: text.fontPixels, width: text.box.width,
                                      height: text.box.height, lines: Int32(text.lines), colour: text.colour) {
            ci_draw_text(&canvas, ci_rect(text.box), &$0, nil, &error)
        }
        guard status == CI_OK else { throw ImageEngineError(error) }
    }

    /// Where `text` goes as a caption of `cell`: a band across its bottom
    /// (`CaptionBand`) as tall as the line the text engine lays out; nil
    /// when no font can draw it (nothing is drawn then).
    func placeCaption(_ text: String, in cell: CellRect, fontPixels: Double, options: CollageRenderOptions,
                      clearOf heads: [CellRect] = []) throws(ImageEngineError) -> DrawnCaption? {
        var metrics = ci_text_metrics()
        var error = ci_error()
        let width = CaptionBand.textBox(in: cell, fontPixels: fontPixels).width
        let measured = Self.withTextRun(text, font: options.font?.description ?? CollageFont.captionDefault,
                                        pixels: fontPixels, width: width, height: 1, lines: 1) {
            ci_text_measure(&$0, &metrics, &error)
        }
        guard measured == CI_OK else { throw ImageEngineError(error) }
        guard metrics.has_fonts != 0 else { return nil }
        // A broken font's line cannot make the band take the cell.
        let lineHeight = min(Int(metrics.height), Int((fontPixels * 3).rounded()))
        return DrawnCaption(text: text, band: CaptionBand.rect(in: cell, lineHeight: lineHeight, fontPixels: fontPixels,
                                                               clearOf: heads),
                            fontPixels: fontPixels)
    }

    /// The heads of the faces a draw found (`ci_head_of`), where the cell
    /// shows them, in canvas pixels (within the cell): what a caption's band keeps clear of.
    static func heads(_ placement: ci_placement, in cell: CellRect) -> [CellRect] {
        let shown = placement.shown, drawn = placement.drawn
        guard shown.width > 0, shown.height > 0, drawn.width > 0, drawn.height > 0 else { return [] }
        let count = min(Int(placement.face_count), Int(CI_MAX_FACES))
        return withUnsafeBytes(of: placement.faces) { raw in
            raw.bindMemory(to: ci_box.self).prefix(count).compactMap { face in
                let head = ci_head_of(face)
                func across(_ value: Double) -> Int {
                    Int(drawn.x) + Int(((value - shown.x) / shown.width * Double(drawn.width)).rounded())
                }
                func down(_ value: Double) -> Int {
                    Int(drawn.y) + Int(((value - shown.y) / shown.height * Double(drawn.height)).rounded())
                }
                let left = max(cell.x, across(head.x)), right = min(cell.x + cell.width, across(head.x + head.width))
                let top = max(cell.y, down(head.y)), bottom = min(cell.y + cell.height, down(head.y + head.height))
                guard right > left, bottom > top else { return nil }
                return CellRect(x: left, y: top, width: right - left, height: bottom - top)
            }
        }
    }

    /// Composites a caption into `canvas`: its translucent band over the
    /// photo already drawn there, then its line.
    func draw(_ caption: DrawnCaption, on canvas: inout ci_image, options: CollageRenderOptions) throws(ImageEngineError) {
        let (shade, line) = CollageText.caption(caption, options: options)
        ci_shade_box(&canvas, ci_rect(shade.box), ci_color(shade.colour), shade.opacity)
        try draw(line, on: &canvas)
    }

    /// Draws the photos into the cells of `plan` (one per photo), on its canvas.
    public func draw(_ photos: [Photo], plan: LayoutPlan, options: CollageRenderOptions) throws -> RenderedCollage {
        try drawNoting(photos, plan: plan, options: options, text: .onPixels).collage
    }

    /// `draw`, with what a person should be told of the photos (in their
    /// order); the title and captions placed either way, drawn `.onPixels` only.
    func drawNoting(_ photos: [Photo], plan: LayoutPlan, options: CollageRenderOptions, text: TextDrawing) throws -> NotedCollage {
        precondition(plan.cells.count == photos.count, "a plan has one cell per photo")
        let cells = plan.cells
        var image = RGBImage(width: plan.canvas.width, height: plan.canvas.height, filledWith: options.background,
                             except: cells)
        let failures = FailureList(count: photos.count)
        let shown = Locked([ci_box](repeating: ci_box(x: 0, y: 0, width: 1, height: 1), count: photos.count))
        var drawing = options
        drawing.fit = plan.fit
        let drawnCaptions = Locked([DrawnCaption?](repeating: nil, count: photos.count))
        let dates = Locked([String?](repeating: nil, count: photos.count))
        let notices = Locked([[PhotoNotice]](repeating: [], count: photos.count))
        let captionPixels = CaptionBand.fontPixels(
            base: plan.title?.fontPixels ?? TitleRequest.fontPixels(for: RequestedSize(plan.canvas), font: options.font),
            cells: cells)

        image.pixels.withUnsafeMutableBufferPointer { buffer in
            var canvas = ci_image(
                pixels: buffer.baseAddress, width: UInt32(image.width), height: UInt32(image.height),
                stride: image.width * 3, channels: 3)
            let queue = WorkQueue(count: photos.count)
            DispatchQueue.concurrentPerform(iterations: min(decodeThreads, photos.count)) { _ in
                while let index = queue.take() {
                    let cell = cells[index]
                    var error = ci_error()
                    let rect = ci_rect(cell)
                    var drawOptions = drawOptions(for: photos[index], drawing)
                    // A caption is placed clear of the faces: smart finds them whatever the crop.
                    let captioned = options.caption != .none || photos[index].caption != nil
                    drawOptions.faces_wanted = captioned ? 1 : 0
                    var placement = ci_placement()
                    let status = photos[index].withFileSystemPath {
                        ci_draw_photo_placed($0, &canvas, rect, &drawOptions, &placement, &error)
                    }
                    // The date the draw read from the photo's header: for the file's EXIF
                    // and `--caption date` (no second read of the header).
                    let date = status == CI_OK ? PhotoInfo.text(of: placement.date_taken) : nil
                    if status == CI_OK {
                        shown.withLock { $0[index] = placement.shown }
                        dates.withLock { $0[index] = date }
                        let noted = PhotoNotice.notices(of: placement, photo: photos[index], cell: cell,
                                                        resolution: options.save.resolution)
                        notices.withLock { $0[index] = noted }
                    }
                    // Each caption in its own cell, so the workers never write the same pixels.
                    if status == CI_OK, let caption = options.caption.caption(for: photos[index], dateTaken: date) {
                        do throws(ImageEngineError) {
                            let placed = try placeCaption(caption, in: cell, fontPixels: captionPixels, options: options,
                                                          clearOf: Self.heads(placement, in: cell))
                            if let placed, text == .onPixels { try draw(placed, on: &canvas, options: options) }
                            drawnCaptions.withLock { $0[index] = placed }
                        } catch {
                            failures.record(error, at: index)
                        }
                    }
                    if status == nil {
                        failures.record(.unopenable(photos[index]), at: index)
                    } else if status != CI_OK {
                        failures.record(explained(ImageEngineError(error), photos[index]), at: index)
                    }
                }
            }
        }
        // Report the first failing photo in the order they were added, so the
        // message does not depend on which thread finished first.
        if let failure = failures.first { throw failure }
        if let title = plan.title, text == .onPixels {
            try image.pixels.withUnsafeMutableBufferPointer { buffer in
                var canvas = ci_image(
                    pixels: buffer.baseAddress, width: UInt32(image.width), height: UInt32(image.height),
                    stride: image.width * 3, channels: 3)
                try draw(CollageText.title(title, options: options), on: &canvas)
            }
        }
        let regions = shown.withLock { $0 }.map { PhotoRegion(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
        // The file says when its earliest photo was taken ("YYYY:MM:DD HH:MM:SS" sorts as it reads).
        image.dateTaken = dates.withLock { $0 }.compactMap { $0 }.min()
        return NotedCollage(collage: RenderedCollage(image: image, plan: plan, shown: regions, captions: drawnCaptions.withLock { $0 }),
                            notices: notices.withLock { $0 }.flatMap { $0 })
    }

    /// What the engine is told about one photo of a collage: the options'
    /// background, crop rule and fit, the limit, and the photo's own focus.
    func drawOptions(for photo: Photo, _ options: CollageRenderOptions) -> ci_draw_options {
        var draw = ci_draw_options()
        draw.background = ci_color(options.background)
        draw.limits = ci_limits(max_pixels: maxDecodedPixels)
        switch options.crop {
        case .smart: draw.crop = CI_CROP_SMART
        case .centre: draw.crop = CI_CROP_CENTRE
        case .attention: draw.crop = CI_CROP_ATTENTION
        }
        draw.fit = options.fit == .contain ? CI_FIT_CONTAIN : CI_FIT_COVER
        if let focus = photo.focus {
            draw.has_focus = 1
            draw.focus_x = focus.x
            draw.focus_y = focus.y
        }
        return draw
    }

    /// One photo, upright and whole, at the size it takes in a `width` x
    /// `height` box (its aspect kept, never larger than the photo), drawn as
    /// a collage's cells are (the same driver), transparency over
    /// `background`: for previews, which then show what `save` draws. The
    /// picture is the photo's own shape rounded to whole pixels, so it is
    /// drawn centred to cover (at most a pixel's fraction cut) rather than
    /// contained, which would leave slivers of background where the rounding
    /// narrowed it.
    public func picture(of photo: Photo, fitting width: Int, height: Int, background: RGBColor = .white) throws -> RGBImage {
        let info = try inspect(photo)
        let scale = min(1, Double(max(1, width)) / Double(info.displayWidth),
                        Double(max(1, height)) / Double(info.displayHeight))
        let pictureWidth = max(1, Int((Double(info.displayWidth) * scale).rounded()))
        let pictureHeight = max(1, Int((Double(info.displayHeight) * scale).rounded()))
        var image = RGBImage(width: pictureWidth, height: pictureHeight, filledWith: background)
        var options = CollageRenderOptions.defaults
        options.background = background
        options.crop = .centre
        options.fit = .cover
        var draw = drawOptions(for: photo, options)
        draw.draft = 1  // a terminal's picture cannot show the filter's headroom; it would cost half again
        var error = ci_error()
        let status = image.pixels.withUnsafeMutableBufferPointer { buffer in
            var canvas = ci_image(pixels: buffer.baseAddress, width: UInt32(pictureWidth), height: UInt32(pictureHeight),
                                  stride: pictureWidth * 3, channels: 3)
            let cell = ci_rect(x: 0, y: 0, width: UInt32(pictureWidth), height: UInt32(pictureHeight))
            return photo.withFileSystemPath { ci_draw_photo_placed($0, &canvas, cell, &draw, nil, &error) }
        }
        guard let status else { throw ImageEngineError.unopenable(photo) }
        guard status == CI_OK else { throw ImageEngineError(error) }
        return image
    }

    /// The image libraries the engine was built with, with their versions.
    /// Loads the libraries the engine otherwise loads on first use (a few
    /// milliseconds): for `--version` only.
    public static var libraryVersions: String {
        let length = ci_library_versions(nil, 0)
        var text = [CChar](repeating: 0, count: length + 1)
        _ = ci_library_versions(&text, text.count)
        return String(cString: text)
    }

    public func encode(_ image: RGBImage, as format: ImageFormat, options: SaveOptions) throws -> [UInt8] {
        // The encoders only read the pixels, so borrow them: a mutable buffer
        // of a shared array would be a copy (6 MB for 1920x1080).
        return try image.pixels.withUnsafeBufferPointer { buffer in
            var source = ci_image(
                pixels: UnsafeMutablePointer(mutating: buffer.baseAddress), width: UInt32(image.width),
                height: UInt32(image.height), stride: image.width * 3, channels: 3)
            var output: UnsafeMutablePointer<UInt8>?
            var size = 0
            var error = ci_error()
            var engineOptions = options.engineOptions
            engineOptions.threads = Int32(decodeThreads)
            func encode(dated date: UnsafePointer<CChar>?) -> ci_status {
                engineOptions.date_taken = date
                return ci_encode(format.format, &source, &engineOptions, &output, &size, &error)
            }
            let status = image.dateTaken.map { $0.withCString(encode(dated:)) } ?? encode(dated: nil)
            guard status == CI_OK, let output else { throw ImageEngineError(error) }
            defer { ci_buffer_free(output) }
            return Array(UnsafeBufferPointer(start: output, count: size))
        }
    }
}

extension ci_text_run {
    /// A run centred in a `width` x `height` box, of strings the caller
    /// keeps alive for as long as the run.
    init(text: UnsafePointer<CChar>, font: UnsafePointer<CChar>, pixels: Double, width: Int, height: Int, lines: Int32,
         colour: RGBColor) {
        self.init(text: text, font: font, pixel_size: pixels, colour: ci_color(colour), width: UInt32(max(1, width)),
                  height: UInt32(max(1, height)), max_lines: lines, align: CI_TEXT_CENTRE)
    }
}

extension ci_rect {
    init(_ rect: CellRect) {
        self.init(x: Int32(rect.x), y: Int32(rect.y), width: UInt32(rect.width), height: UInt32(rect.height))
    }
}

extension ci_color {
    init(_ colour: RGBColor) { self.init(r: colour.red, g: colour.green, b: colour.blue) }
}

/// Hands out the indices 0..<count to parallel workers, each once.
private struct WorkQueue: Sendable {
    private let next = Locked(0)
    private let count: Int

    init(count: Int) { self.count = count }

    func take() -> Int? {
        next.withLock { next in
            guard next < count else { return nil }
            next += 1
            return next - 1
        }
    }
}

/// Errors collected from parallel workers, one slot per photo.
private struct FailureList: Sendable {
    private let errors: Locked<[ImageEngineError?]>

    init(count: Int) { errors = Locked(Array(repeating: nil, count: count)) }

    func record(_ error: ImageEngineError, at index: Int) {
        errors.withLock { $0[index] = error }
    }

    var first: ImageEngineError? { errors.current.compactMap { $0 }.first }
}

// MARK: - Measures for `collage suggest` (issue #33)

extension ImageEngine: PhotoMeasuring {
    /// `ci_measure_photo`: the file's thumbnail (EXIF's, a HEIF's) where usable, else the
    /// smallest decode. A photo whose file gives no capture date has none.
    public func measure(_ photo: Photo) throws -> PhotoMeasures {
        var options = ci_measure_options()
        options.limits.max_pixels = maxDecodedPixels
        options.use_thumbnail = 1
        var measures = ci_measures()
        try call(photo) { ci_measure_photo($0, &options, &measures, &$1) }
        return PhotoMeasures(width: Int(measures.info.display_width), height: Int(measures.info.display_height),
                             taken: PhotoTime(exif: PhotoInfo.text(of: measures.info.date_taken)),
                             hash: measures.hash, gradientHash: measures.gradient_hash, sharpness: measures.sharpness,
                             darkShare: measures.dark_share, brightShare: measures.bright_share,
                             meanLevel: measures.mean_level, fromThumbnail: measures.from_thumbnail != 0,
                             corruptData: Int(measures.corrupt_data), position: measures.info.position.known != 0
                                 ? GeoPosition(latitude: measures.info.position.latitude,
                                               longitude: measures.info.position.longitude) : nil)
    }

    /// `ci_count_faces`: the smart crop's search over the whole photo.
    public func countFaces(_ photo: Photo) throws -> Int {
        var limits = ci_limits(max_pixels: maxDecodedPixels)
        var faces: Int32 = 0
        try call(photo) { ci_count_faces($0, &limits, &faces, &$1) }
        return Int(faces)
    }
}
