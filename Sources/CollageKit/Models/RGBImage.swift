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
