/// EXIF blocks for tests, as a JPEG's APP1 payload carries them ("Exif\0\0"
/// and a little-endian TIFF structure): IFD0, then the Exif sub-IFD, then
/// the values that do not fit in an entry.
public enum EXIFBlock {
    public static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    public static func le32(_ v: UInt32) -> [UInt8] { le16(UInt16(v & 0xFFFF)) + le16(UInt16(v >> 16)) }

    /// One IFD entry; `value` is the value itself (up to 4 bytes) or the offset of it.
    public static func entry(_ tag: UInt16, _ type: UInt16, _ count: UInt32, _ value: [UInt8]) -> [UInt8] {
        le16(tag) + le16(type) + le32(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
    }

    /// IFD0 with `ifd0` entries and a pointer to an Exif IFD of one entry,
    /// `exif(dataOffset)`, whose out-of-line value `data` follows it.
    public static func block(ifd0: [[UInt8]], exif: (UInt32) -> [UInt8], data: [UInt8]) -> [UInt8] {
        let exifOffset = UInt32(8 + 2 + 12 * (ifd0.count + 1) + 4)
        let dataOffset = exifOffset + 18
        var tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le32(8)
        tiff += le16(UInt16(ifd0.count + 1)) + ifd0.joined() + entry(0x8769, 4, 1, le32(exifOffset)) + le32(0)
        tiff += le16(1) + exif(dataOffset) + le32(0)
        tiff += data
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    /// DateTimeOriginal = `date` (ASCII, padded or cut to 19 characters, and its NUL).
    public static func dateTaken(_ date: String) -> [UInt8] {
        let text = Array(date.utf8.prefix(19)) + [UInt8](repeating: 0x20, count: max(0, 19 - date.utf8.count)) + [0]
        return block(ifd0: [], exif: { entry(0x9003, 2, UInt32(text.count), le32($0)) }, data: text)
    }

    /// DateTimeOriginal = `date` and OffsetTimeOriginal = `offset` ("+02:00"),
    /// each with its NUL.
    public static func dateTaken(_ date: String, offset: String) -> [UInt8] {
        let dateText = Array(date.utf8) + [0], offsetText = Array(offset.utf8) + [0]
        let exifOffset = UInt32(8 + 2 + 12 + 4)     // after IFD0, which holds only the pointer
        let dataOffset = exifOffset + 2 + 2 * 12 + 4
        var tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le32(8)
        tiff += le16(1) + entry(0x8769, 4, 1, le32(exifOffset)) + le32(0)
        tiff += le16(2) + entry(0x9003, 2, UInt32(dateText.count), le32(dataOffset))
        tiff += entry(0x9011, 2, UInt32(offsetText.count), le32(dataOffset + UInt32(dateText.count))) + le32(0)
        tiff += dateText + offsetText
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    /// A camera's thumbnail (the JPEG `thumbnail`) in IFD1, as
    /// JPEGInterchangeFormat and its length, after an IFD0 with no entries.
    public static func thumbnail(_ thumbnail: [UInt8]) -> [UInt8] {
        let ifd1Offset = UInt32(8 + 2 + 4)
        let dataOffset = ifd1Offset + 2 + 2 * 12 + 4
        var tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le32(8)
        tiff += le16(0) + le32(ifd1Offset)
        tiff += le16(2) + entry(0x0201, 4, 1, le32(dataOffset)) + entry(0x0202, 4, 1, le32(UInt32(thumbnail.count))) + le32(0)
        tiff += thumbnail
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    /// An entry of `tiff(ifd0:exif:gps:)`: its tag, type, count and value's bytes.
    public struct Entry: Sendable {
        public let tag: UInt16, type: UInt16, count: UInt32, bytes: [UInt8]

        public static func ascii(_ tag: UInt16, _ text: String) -> Entry {
            let bytes = Array(text.utf8) + [0]
            return Entry(tag: tag, type: 2, count: UInt32(bytes.count), bytes: bytes)
        }

        /// RATIONALs of the whole numbers `values` (each over 1).
        public static func rationals(_ tag: UInt16, _ values: [UInt32]) -> Entry {
            Entry(tag: tag, type: 5, count: UInt32(values.count), bytes: values.flatMap { le32($0) + le32(1) })
        }

        public static func long(_ tag: UInt16, _ value: UInt32) -> Entry { Entry(tag: tag, type: 4, count: 1, bytes: le32(value)) }
    }

    /// Any EXIF block of IFD0, the Exif IFD and the GPS IFD (each when it
    /// holds anything, its pointer added to IFD0), each IFD followed by its
    /// values that do not fit in an entry.
    public static func block(ifd0: [Entry], exif: [Entry] = [], gps: [Entry] = []) -> [UInt8] {
        var first = ifd0
        if !exif.isEmpty { first.append(.long(0x8769, 0)) }
        if !gps.isEmpty { first.append(.long(0x8825, 0)) }
        var ifds = [first] + [exif, gps].filter { !$0.isEmpty }
        func size(_ ifd: [Entry]) -> Int {
            6 + 12 * ifd.count + ifd.reduce(0) { $0 + ($1.bytes.count > 4 ? ($1.bytes.count + 1) & ~1 : 0) }
        }
        var offsets = [8]
        for ifd in ifds.dropLast() { offsets.append(offsets.last! + size(ifd)) }
        var next = 1
        for (i, entry) in ifds[0].enumerated() where entry.tag == 0x8769 || entry.tag == 0x8825 {
            ifds[0][i] = .long(entry.tag, UInt32(offsets[next]))
            next += 1
        }
        var tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le32(8)
        for (n, ifd) in ifds.enumerated() {
            let sorted = ifd.sorted { $0.tag < $1.tag }
            let dataStart = offsets[n] + 6 + 12 * sorted.count
            var data: [UInt8] = []
            tiff += le16(UInt16(sorted.count))
            for e in sorted {
                if e.bytes.count <= 4 {
                    tiff += entry(e.tag, e.type, e.count, e.bytes)
                } else {
                    tiff += entry(e.tag, e.type, e.count, le32(UInt32(dataStart + data.count)))
                    data += e.bytes + (e.bytes.count % 2 == 1 ? [0] : [])
                }
            }
            tiff += le32(0) + data
        }
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    /// `jpeg` with `app1` as its first segment after SOI.
    public static func inserted(_ app1: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        let length = app1.count + 2
        return Array(jpeg[0..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + app1 + jpeg[2...]
    }
}
