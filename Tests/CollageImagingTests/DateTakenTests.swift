import CollageImaging
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

    @Test func aWebPsEXIFChunkIsRead() throws {
        // cwebp keeps the JPEG's EXIF in the WebP's EXIF chunk (without "Exif\0\0").
        let (path, folder) = try Self.jpeg(app1: EXIFBlock.dateTaken("2001:02:03 04:05:06"))
        defer { try? FileManager.default.removeItem(at: folder) }
        let webp = folder.appendingPathComponent("dated.webp").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/cwebp")
        process.arguments = ["-quiet", "-metadata", "exif", path, "-o", webp]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "cwebp (webp) failed")
        #expect(try Self.dateTaken(webp) == "2001:02:03 04:05:06")
    }
}
