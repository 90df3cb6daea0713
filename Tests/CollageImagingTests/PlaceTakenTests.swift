import CollageImaging
import CollageTestSupport
import Foundation
import Testing

/// EXIF's GPS position, read by the probe into `ci_photo_info.position`
/// (where `suggest --events` and the book name the place).
@Suite struct PlaceTakenTests {
    static func position(_ path: String) throws -> ci_position {
        var info = ci_photo_info()
        var error = ci_error()
        try #require(ci_probe_file(path, &info, &error) == CI_OK)
        return info.position
    }

    static func position(ofJPEGWith gps: [EXIFBlock.Entry]) throws -> ci_position {
        let (path, folder) = try DateTakenTests.jpeg(app1: EXIFBlock.block(ifd0: [], gps: gps))
        defer { try? FileManager.default.removeItem(at: folder) }
        return try position(path)
    }

    @Test("a JPEG's GPS position, in every quarter of the Earth", arguments: [
        (43.46311, 11.87831),    // Arezzo: north and east
        (-33.85678, 151.21530),  // Sydney: south and east
        (61.5, -150.0),          // Alaska: north and west
        (-22.95192, -43.21049),  // Rio de Janeiro: south and west
    ])
    func aJPEGsPosition(_ latitude: Double, _ longitude: Double) throws {
        let position = try Self.position(ofJPEGWith: EXIFBlock.gps(latitude: latitude, longitude: longitude))
        #expect(position.known == 1)
        // Seconds in thousandths: about 3 cm.
        #expect(abs(position.latitude - latitude) < 1e-6 && abs(position.longitude - longitude) < 1e-6,
                "\(position.latitude), \(position.longitude)")
    }

    @Test func whatIsNoPositionIsUnknown() throws {
        let good = EXIFBlock.gps(latitude: 43.46311, longitude: 11.87831)
        let cases: [(String, [EXIFBlock.Entry])] = [
            ("no GPS at all", []),
            ("no latitude reference", good.filter { $0.tag != 0x0001 }),
            ("no longitude", good.filter { $0.tag != 0x0004 }),
            ("a zero denominator", [good[0], .rationals(0x0002, [(43, 1), (27, 0), (0, 1)]), good[2], good[3]]),
            ("two parts, not three", [good[0], .rationals(0x0002, [(43, 1), (27, 1)]), good[2], good[3]]),
            ("a latitude past the pole", [good[0], .rationals(0x0002, [(95, 1), (0, 1), (0, 1)]), good[2], good[3]]),
            ("a longitude past the antimeridian", [good[0], good[1], good[2], .rationals(0x0004, [(181, 1), (0, 1), (0, 1)])]),
            ("text where numbers go", [good[0], .ascii(0x0002, "43.46311"), good[2], good[3]]),
        ]
        for (what, gps) in cases {
            let position = try Self.position(ofJPEGWith: gps)
            #expect(position.known == 0 && position.latitude == 0 && position.longitude == 0, "\(what)")
        }
    }

    /// Phones' HEICs and a camera's AVIF keep GPS in their Exif item.
    @Test("a HEIF's and an AVIF's position", arguments: [
        ("heif/pillow-heif", "xiaomi.heic", 47.2272889, 39.6999922),
        ("heif/pillow-heif", "pug.heic", 44.8504778, 34.9766472),
        ("heif/libavif", "seine_sdr_gainmap_srgb_icc.avif", 48.8220833, 2.3984717),
    ])
    func heifPositions(_ set: String, _ name: String, _ latitude: Double, _ longitude: Double) throws {
        guard let folder = TestData.folder(set) else { return TestData.reportAbsent(set) }
        let position = try Self.position(folder.appendingPathComponent(name).path)
        #expect(position.known == 1)
        #expect(abs(position.latitude - latitude) < 1e-6 && abs(position.longitude - longitude) < 1e-6,
                "\(position.latitude), \(position.longitude)")
    }
}
