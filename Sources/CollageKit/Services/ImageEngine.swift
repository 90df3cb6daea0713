import CollageImaging
import Dispatch
import Foundation

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
            return (String(engineText: text), String(engineText: limit))
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
        try drawNoting(photos, plan: try planner.plan(photos, options: options), options: options, text: text)
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
        // The plan's fit (rows and columns decide it), read by every worker.
        let drawing = { var drawing = options; drawing.fit = plan.fit; return drawing }()
        let drawnCaptions = Locked([DrawnCaption?](repeating: nil, count: photos.count))
        let dates = Locked([String?](repeating: nil, count: photos.count))
        let notices = Locked([[PhotoNotice]](repeating: [], count: photos.count))
        let planner = self.planner
        let captionPixels = CaptionBand.fontPixels(
            base: plan.title?.fontPixels ?? TitleRequest.fontPixels(for: RequestedSize(plan.canvas), font: options.font),
            cells: cells)

        image.pixels.withUnsafeMutableBufferPointer { buffer in
            let shared = SharedCanvas(image: ci_image(
                pixels: buffer.baseAddress, width: UInt32(image.width), height: UInt32(image.height),
                stride: image.width * 3, channels: 3))
            let queue = WorkQueue(count: photos.count)
            DispatchQueue.concurrentPerform(iterations: min(decodeThreads, photos.count)) { _ in
                var canvas = shared.image  // each worker's own description of the one canvas
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
                            let placed = try planner.placeCaption(caption, in: cell, fontPixels: captionPixels, options: options,
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
        return String(engineText: text)
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

extension ci_rect {
    init(_ rect: CellRect) {
        self.init(x: Int32(rect.x), y: Int32(rect.y), width: UInt32(rect.width), height: UInt32(rect.height))
    }
}

extension ci_color {
    init(_ colour: RGBColor) { self.init(r: colour.red, g: colour.green, b: colour.blue) }
}

/// The canvas the workers draw into at once. The C engine writes through
/// `ci_image`'s raw pointer, which Swift cannot check (a C library's
/// pointer, hence unchecked): each worker writes only its own cell's
/// pixels (its caption's band lies inside the cell), so no two write the
/// same bytes, and the canvas outlives `concurrentPerform`.
private struct SharedCanvas: @unchecked Sendable {
    let image: ci_image
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
        // Measured from its thumbnail, a photo `add` would refuse (a 200
        // megapixel HEIF) was suggested, and failed the book it was chosen for.
        try checkLimit(measures.info, photo)
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

// MARK: - The models' values from the engine's

extension PhotoInfo {
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

extension String {
    /// The text the engine wrote into `buffer`, up to its first NUL.
    init(engineText buffer: [CChar]) {
        self = buffer.withUnsafeBytes { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

extension ImageEngineError {
    /// The engine's refusal, in its words (they name the file).
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
}

extension PhotoNotice {
    /// What a draw found wrong with the file, if anything: a cut says how
    /// much was drawn (what a person wants to know of a download that
    /// stopped); other damage is corrupt data.
    static func damage(of placement: ci_placement, photo: Photo) -> PhotoNotice? {
        switch placement.cut_short {
        case CI_CUT_ROWS: return .cutShort(photo, drawn: placement.drawn_share)
        case CI_CUT_ROWS_EMPTY: return .cutShort(photo, drawn: placement.drawn_share, restEmpty: true)
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

extension SaveOptions {
    /// The engine's value, but for what the engine adds itself (its
    /// threads, the collage's date).
    var engineOptions: ci_save_options {
        var options = ci_save_options_default()
        options.quality = Int32(quality)
        options.dots_per_inch = Int32(resolution?.dotsPerInch ?? 0)
        return options
    }
}
