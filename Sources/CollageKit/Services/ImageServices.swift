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

/// Turns an image, or a page, into file bytes.
public protocol ImageEncoding: Sendable {
    func encode(_ image: RGBImage, as format: ImageFormat, options: SaveOptions) throws -> [UInt8]
    /// A PDF of one page (`ImageFormat.pdf`, a `PageDocument` of one page).
    func encode(_ page: CollagePage, options: SaveOptions) throws -> [UInt8]
}

/// Lays out text and says how tall it is, without drawing it: what the
/// planner asks to size a title's band and a caption's.
public protocol TextMeasuring: Sendable {
    /// The height in pixels of `text`'s lines, laid out in `font` (a Pango
    /// description) at `pixels`, wrapped to `width` (nil: one line, however
    /// long) in at most `lines` lines, the last ellipsised; nil when no
    /// font is installed to draw it.
    func lineHeight(of text: String, font: String, pixels: Double, width: Int?, lines: Int) throws(ImageEngineError) -> Int?
}
