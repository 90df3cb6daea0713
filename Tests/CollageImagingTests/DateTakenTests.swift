import CollageImaging
import CollageKit
import CollageTestSupport
import Foundation
import Testing

/// EXIF DateTimeOriginal, read by the probe into `ci_photo_info.date_taken`
/// (what `--caption date` draws).
@Suite struct DateTakenTests {
    /// A small grey JPEG carrying `app1` after its SOI marker, in a folder of its own.
    static func jpeg(app1: [UInt8]?) throws -> (path: String, folder: URL) {
        let folder = try PNGTestSupport.temporaryFolder()
        var data = try PNGTestSupport.encodeJPEG([UInt8](repeating: 128, count: 16 * 8 * 3), width: 16, height: 8, quality: 90)
        if let app1 { data = Data(EXIFBlock.inserted(app1, into: Array(data))) }
        let path = folder.appendingPathComponent("dated.jpg").path
        try data.write(to: URL(fileURLWithPath: path))
        return (path, folder)
    }

    static func dateTaken(_ path: String) throws -> String {
        var info = ci_photo_info()
        var error = ci_error()
        try #require(ci_probe_file(path, &info, &error) == CI_OK)
        return withUnsafeBytes(of: info.date_taken) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    @Test func aJPEGsDateTimeOriginalIsRead() throws {
        let (path, folder) = try Self.jpeg(app1: EXIFBlock.dateTaken("2019:07:04 18:30:00"))
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try Self.dateTaken(path) == "2019:07:04 18:30:00")
    }

    @Test("what is not a date is no date", arguments: [
        "    :  :     :  :  ",   // a clock never set
        "0000:00:00 00:00:00",
        "2019:13:04 18:30:00",   // month 13
        "2019-07-04 18:30:00",   // not EXIF's colons
        "2019:07:04",            // cut short
    ])
    func notADate(_ text: String) throws {
        let (path, folder) = try Self.jpeg(app1: EXIFBlock.dateTaken(text))
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try Self.dateTaken(path) == "")
    }

    @Test func aJPEGWithoutEXIFHasNoDate() throws {
        let (path, folder) = try Self.jpeg(app1: nil)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try Self.dateTaken(path) == "")
    }

    /// Phone HEICs keep EXIF in an Exif item; the Xiaomi's is 192,182 bytes
    /// (its thumbnail inside), three times what a JPEG's APP1 can hold.
    @Test("a HEIF's Exif item is read, however large", arguments: [
        ("pug.heic", "2023:02:21 14:33:08+03:00"),  // with its offset from UTC
        ("xiaomi.heic", "2023:04:27 19:44:18"),
    ])
    func heifDates(_ name: String, _ date: String) throws {
        guard let folder = TestData.folder("heif/pillow-heif") else { return TestData.reportAbsent("heif/pillow-heif") }
        #expect(try Self.dateTaken(folder.appendingPathComponent(name).path) == date)
    }

    /// A JPEG dated `date`, turned into another format by `tool` (its
    /// arguments given the JPEG's path and the output's), and the date its
    /// probe reads.
    static func dateAfter(_ tool: String, package: String, to name: String, date: String,
                          _ arguments: (String, String) -> [String]) throws -> String {
        let (path, folder) = try jpeg(app1: EXIFBlock.dateTaken(date))
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent(name).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
        process.arguments = arguments(path, output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(tool) (\(package)) failed")
        return try dateTaken(output)
    }

    @Test func aWebPsEXIFChunkIsRead() throws {
        // cwebp keeps the JPEG's EXIF in the WebP's EXIF chunk (without "Exif\0\0").
        #expect(try Self.dateAfter("cwebp", package: "webp", to: "dated.webp", date: "2001:02:03 04:05:06") {
            ["-quiet", "-metadata", "exif", $0, "-o", $1]
        } == "2001:02:03 04:05:06")
    }

    /// A JPEG XL's `Exif` box (issue #41): cjxl keeps the JPEG's EXIF in one
    /// (brotli-compressed).
    @Test func aJPEGXLsExifBoxIsRead() throws {
        #expect(try Self.dateAfter("cjxl", package: "libjxl-tools", to: "dated.jxl", date: "2002:03:04 05:06:07") {
            [$0, $1, "--quiet"]
        } == "2002:03:04 05:06:07")
    }

    /// The capture date (issue #41): DateTimeOriginal, else
    /// DateTimeDigitized, else DateTime, each with its offset, else the GPS's
    /// UTC date and time; none when the file says none.
    @Test func eachDateTagInTurnAndNoneIsNone() throws {
        typealias Entry = EXIFBlock.Entry
        let original = Entry.ascii(0x9003, "2022:05:06 07:08:09"), digitized = Entry.ascii(0x9004, "2021:03:04 05:06:07")
        let digitizedOffset = Entry.ascii(0x9012, "+05:30"), dateTime = Entry.ascii(0x0132, "2020:01:02 03:04:05")
        let blank = Entry.ascii(0x9003, "    :  :     :  :  ")
        let gps = [Entry.ascii(0x001D, "2019:12:31"), .rationals(0x0007, [23, 59, 30])]
        let cases: [(String, [UInt8], String)] = [
            ("original first", EXIFBlock.block(ifd0: [dateTime], exif: [original, digitized], gps: gps), "2022:05:06 07:08:09"),
            ("digitized, with its offset", EXIFBlock.block(ifd0: [dateTime], exif: [digitized, digitizedOffset], gps: gps),
             "2021:03:04 05:06:07+05:30"),
            ("DateTime", EXIFBlock.block(ifd0: [dateTime], gps: gps), "2020:01:02 03:04:05"),
            ("a blank original is none", EXIFBlock.block(ifd0: [dateTime], exif: [blank]), "2020:01:02 03:04:05"),
            ("GPS, in UTC", EXIFBlock.block(ifd0: [], exif: [blank], gps: gps), "2019:12:31 23:59:30+00:00"),
            ("none", EXIFBlock.block(ifd0: [Entry.ascii(0x010F, "Camera maker")]), ""),
        ]
        for (name, block, expected) in cases {
            let (path, folder) = try Self.jpeg(app1: block)
            defer { try? FileManager.default.removeItem(at: folder) }
            #expect(try Self.dateTaken(path) == expected, "\(name)")
        }
    }

    /// PNG (eXIf), WebP and AVIF carry EXIF too (issue #41): the date the
    /// engine writes into each is the date its probe reads back.
    @Test func theDateWrittenIntoAPNGWebPOrAVIFIsRead() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let engine = ImageEngine()
        var picture = RGBImage(width: 16, height: 8, filledWith: RGBColor(red: 90, green: 120, blue: 150))
        picture.dateTaken = "2024:02:29 12:34:56"
        for ext in ["png", "webp", "avif"] {
            guard let format = ImageFormat.writable.first(where: { $0.extensions.contains(ext) }) else {
                Issue.record("no writer for \(ext)")
                continue
            }
            let file = folder.appendingPathComponent("dated.\(ext)")
            try Data(try engine.encode(picture, as: format, options: .defaults)).write(to: file)
            #expect(try Self.dateTaken(file.path).hasPrefix("2024:02:29 12:34:56"), "\(ext)")
        }
    }
}
