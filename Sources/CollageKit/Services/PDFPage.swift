import CollageImaging
import Foundation

extension ImageEngine {
    /// The page as a PDF (issue #34), through `ci_pdf_write`: each photo's
    /// cell of the canvas encoded as a JPEG at the quality asked (the cell's
    /// pixels are the photo at the print resolution: the canvas is the page
    /// at `options.resolution`), embedded once as it is; the title and
    /// captions set as text, their bands and the background as rectangles.
    /// The page is `options.page` when given, else the canvas at the print
    /// resolution (300 dpi unless asked).
    public func encode(_ page: CollagePage, options: SaveOptions) throws -> [UInt8] {
        let image = page.image
        let canvas = CellRect(x: 0, y: 0, width: image.width, height: image.height)
        let cells = page.cells.compactMap { $0.clipped(to: canvas) }
        let points = options.pagePoints(canvasWidth: image.width, height: image.height)
        var photoOptions = options.engineOptions
        photoOptions.dots_per_inch = 0  // the page says its size; the photos inside it need not
        photoOptions.threads = Int32(decodeThreads)
        var jpegs: [UnsafeMutablePointer<UInt8>] = []
        var strings: [UnsafeMutablePointer<CChar>] = []
        defer {
            jpegs.forEach { ci_buffer_free($0) }
            strings.forEach { free($0) }
        }
        // C copies of the page's strings, alive until the page is written.
        func kept(_ text: String) throws -> UnsafePointer<CChar> {
            guard let copy = strdup(text) else { throw ImageEngineError(kind: .noMemory, message: "pdf: out of memory") }
            strings.append(copy)
            return UnsafePointer(copy)
        }
        let texts = try page.texts.map { text in
            ci_pdf_text(box: ci_rect(text.box),
                        run: ci_text_run(text: try kept(text.text), font: try kept(text.font), pixels: text.fontPixels,
                                         width: text.box.width, height: text.box.height, lines: Int32(text.lines),
                                         colour: text.colour))
        }
        let shades = page.shades.map { ci_pdf_shade(box: ci_rect($0.box), colour: ci_color($0.colour), alpha: $0.opacity) }
        let title = try page.title.map(kept)
        let creator = try kept("collage")
        // The encoders and the page only read the pixels, so they are
        // borrowed in place: each photo is its cell of the canvas.
        return try image.pixels.withUnsafeBufferPointer { buffer in
            let rowBytes = image.width * 3
            var photos: [ci_pdf_photo] = []
            for cell in cells {
                var pixels = ci_image(pixels: UnsafeMutablePointer(mutating: buffer.baseAddress! + cell.y * rowBytes + cell.x * 3),
                                      width: UInt32(cell.width), height: UInt32(cell.height), stride: rowBytes, channels: 3)
                var jpeg: UnsafeMutablePointer<UInt8>?
                var size = 0
                var error = ci_error()
                guard ci_encode(CI_FORMAT_JPEG, &pixels, &photoOptions, &jpeg, &size, &error) == CI_OK, let jpeg else {
                    throw ImageEngineError(error)
                }
                jpegs.append(jpeg)
                photos.append(ci_pdf_photo(where: ci_rect(cell), pixels: pixels, jpeg: jpeg, jpeg_size: size))
            }
            var output: UnsafeMutablePointer<UInt8>?
            var size = 0
            var error = ci_error()
            let status = photos.withUnsafeBufferPointer { photoList in
                shades.withUnsafeBufferPointer { shadeList in
                    texts.withUnsafeBufferPointer { textList in
                        var written = ci_pdf_page(
                            width_points: points.width, height_points: points.height,
                            canvas_width: UInt32(image.width), canvas_height: UInt32(image.height),
                            background: ci_color(page.background),
                            photos: photoList.baseAddress, photo_count: photoList.count,
                            shades: shadeList.baseAddress, shade_count: shadeList.count,
                            texts: textList.baseAddress, text_count: textList.count,
                            title: title, creator: creator, creation_date: nil)
                        return ci_pdf_write(&written, &output, &size, &error)
                    }
                }
            }
            guard status == CI_OK, let output else { throw ImageEngineError(error) }
            defer { ci_buffer_free(output) }
            return Array(UnsafeBufferPointer(start: output, count: size))
        }
    }
}

private extension CellRect {
    /// The part of the rectangle inside `bounds`, nil when none is.
    func clipped(to bounds: CellRect) -> CellRect? {
        let left = max(x, bounds.x), top = max(y, bounds.y)
        let right = min(x + width, bounds.x + bounds.width), bottom = min(y + height, bounds.y + bounds.height)
        guard right > left, bottom > top else { return nil }
        return CellRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}
