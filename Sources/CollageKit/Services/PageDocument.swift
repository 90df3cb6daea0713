import CollageImaging
import Foundation

/// A document of pages (a PDF, the writers' table's page writer) written as
/// it is made, through `ci_document_open`, `ci_document_add` and
/// `ci_document_close`: open it, add pages one at a time, close it. Each
/// page's bytes go to the sink as the page is added, and the engine lets go
/// of its photos then, so what a document holds does not grow with its
/// pages (issue #43's photo book). A one-page PDF is a document of one page
/// (`ImageEngine.encode(_:options:)`).
///
/// Each photo is its cell of the page's canvas (the photo at the print
/// resolution: the canvas is the page at `options.resolution`), encoded by
/// the writer as a JPEG at the options' quality and embedded once as it
/// is; the title and captions are set as text, their bands and the
/// background as rectangles. A page is `options.page` when given, else its
/// canvas at the print resolution (300 dpi unless asked).
public final class PageDocument {
    /// Takes the document's next bytes; false when they could not be written
    /// (the page or the close then fails).
    public typealias Sink = (UnsafeRawBufferPointer) -> Bool

    private var document = ci_document()
    private let sink: Sink
    private let options: SaveOptions
    private var isOpen = false

    /// Opens a document of `format` (a writer of pages: `ImageFormat.isPage`)
    /// titled `title` (nil: none), its bytes going to `sink`; its photos'
    /// JPEGs are encoded with at most `threads` threads.
    public init(format: ImageFormat = .pdf, options: SaveOptions, title: String?, threads: Int = 1,
                sink: @escaping Sink) throws {
        self.sink = sink
        self.options = options
        var engineOptions = options.engineOptions
        engineOptions.threads = Int32(max(1, threads))
        document.format = format.format
        document.options = engineOptions
        document.write = { closure, bytes, size in
            let document = Unmanaged<PageDocument>.fromOpaque(closure!).takeUnretainedValue()
            return document.sink(UnsafeRawBufferPointer(start: bytes, count: size)) ? 1 : 0
        }
        // The engine keeps the pointer, not a reference: `self` outlives the document (deinit closes it).
        document.closure = Unmanaged.passUnretained(self).toOpaque()
        var error = ci_error()
        // The strings are copied by the engine.
        let status = (title ?? "").withCString { title in
            "collage".withCString { creator in
                document.title = title
                document.creator = creator
                defer { document.title = nil; document.creator = nil }
                return ci_document_open(&document, &error)
            }
        }
        guard status == CI_OK else { throw ImageEngineError(error) }
        isOpen = true
    }

    /// A document whose bytes are written to the open file `descriptor` as
    /// they come (never closed here), e.g. an `AtomicFile`'s.
    public convenience init(format: ImageFormat = .pdf, options: SaveOptions, title: String?, threads: Int = 1,
                            writingTo descriptor: Int32) throws {
        try self.init(format: format, options: options, title: title, threads: threads) { bytes in
            AtomicFile.writeEvery(bytes, to: descriptor)
        }
    }

    deinit {
        if isOpen {
            var error = ci_error()
            _ = ci_document_close(&document, &error)
        }
    }

    /// Draws `page` and writes it out. After a failure the document takes
    /// no more pages.
    public func add(_ page: CollagePage) throws {
        guard isOpen else { throw ImageEngineError(kind: .invalidArgument, message: "pdf: the document is closed") }
        let image = page.image
        let points = options.pagePoints(canvasWidth: image.width, height: image.height)
        var strings: [UnsafeMutablePointer<CChar>] = []
        defer { strings.forEach { free($0) } }
        // C copies of the page's strings, alive until the page is written.
        func kept(_ text: String) throws -> UnsafePointer<CChar> {
            guard let copy = strdup(text) else { throw ImageEngineError(kind: .noMemory, message: "pdf: out of memory") }
            strings.append(copy)
            return UnsafePointer(copy)
        }
        let texts = try page.texts.map { text in
            ci_page_text(box: ci_rect(text.box),
                         run: ci_text_run(text: try kept(text.text), font: try kept(text.font), pixels: text.fontPixels,
                                          width: text.box.width, height: text.box.height, lines: Int32(text.lines),
                                          colour: text.colour))
        }
        let shades = page.shades.map { ci_page_shade(box: ci_rect($0.box), colour: ci_color($0.colour), alpha: $0.opacity) }
        let cells = page.cells.map(ci_rect.init)
        var error = ci_error()
        // The writer only reads the pixels, so they are borrowed in place.
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            cells.withUnsafeBufferPointer { cellList in
                shades.withUnsafeBufferPointer { shadeList in
                    texts.withUnsafeBufferPointer { textList in
                        var written = ci_page(
                            width_points: points.width, height_points: points.height,
                            canvas: ci_image(pixels: UnsafeMutablePointer(mutating: pixels.baseAddress),
                                             width: UInt32(image.width), height: UInt32(image.height),
                                             stride: image.width * 3, channels: 3),
                            background: ci_color(page.background),
                            photos: cellList.baseAddress, photo_count: cellList.count,
                            shades: shadeList.baseAddress, shade_count: shadeList.count,
                            texts: textList.baseAddress, text_count: textList.count)
                        return ci_document_add(&document, &written, &error)
                    }
                }
            }
        }
        guard status == CI_OK else { throw ImageEngineError(error) }
    }

    /// Writes the document's end. A document closed without a page, or
    /// after a page failed, is refused (what was written is not a file).
    public func close() throws {
        guard isOpen else { return }
        isOpen = false
        var error = ci_error()
        guard ci_document_close(&document, &error) == CI_OK else { throw ImageEngineError(error) }
    }
}

extension ImageFormat {
    /// The writers' table's page format: what a `CollagePage` is written as.
    /// (The table always has it: writers.c lists the PDF writer.)
    public static let pdf: ImageFormat = writable.first(where: \.isPage)!
}

extension ImageEngine {
    /// The page as a one-page PDF (issue #34): a `PageDocument` of one page,
    /// in memory, its photos encoded with the engine's threads.
    public func encode(_ page: CollagePage, options: SaveOptions) throws -> [UInt8] {
        var bytes: [UInt8] = []
        let document = try PageDocument(options: options, title: page.title, threads: decodeThreads) { chunk in
            bytes.append(contentsOf: chunk)
            return true
        }
        try document.add(page)
        try document.close()
        return bytes
    }
}
