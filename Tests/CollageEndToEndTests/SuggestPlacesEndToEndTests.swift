import CollageKit
import CollageTestSupport
import Foundation
import Testing

/// `collage suggest --events` names where each event was taken, from the
/// photos' GPS, with no network (issue #43's places): a folder of two days
/// in Tuscany, made for the test beside `SuggestEndToEndTests`' trip.
extension SuggestEndToEndTests {
    /// Four photos at Arezzo on Oct 22, 2008, two in Florence three days
    /// later, one of them without GPS (a camera without a receiver).
    func makeTuscany() throws -> URL {
        let folder = cli.workingDirectory.appendingPathComponent("Tuscany")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let engine = ImageEngine()
        let arezzo = (43.46311, 11.87831), florence = (43.76956, 11.25581)
        let shots: [(String, String, String, (Double, Double)?)] = [
            ("astronaut-eileen-collins.jpg", "a1.jpg", "2008:10:22 10:00:00", arezzo),
            ("cameraman-grayscale.jpg", "a2.jpg", "2008:10:22 10:30:00", arezzo),
            ("chelsea-the-cat.jpg", "a3.jpg", "2008:10:22 11:00:00", arezzo),
            ("coffee-cup.jpg", "a4.jpg", "2008:10:22 11:30:00", arezzo),
            ("rocket-exif-orientation-6.jpg", "f1.jpg", "2008:10:25 09:00:00", florence),
            ("astronaut-eileen-collins.jpg", "f2.jpg", "2008:10:25 09:40:00", nil),
        ]
        for (sample, name, date, position) in shots {
            var picture = try engine.picture(of: Photo(path: CLI.samples.appendingPathComponent(sample).path), fitting: 640, height: 640)
            if name == "f2.jpg" { picture = SuggestPhotos.mirrored(picture) }
            let jpeg = try engine.encode(picture, as: .standard, options: SaveOptions(quality: 90))
            let exif = EXIFBlock.block(ifd0: [], exif: [.ascii(0x9003, date)],
                                       gps: position.map { EXIFBlock.gps(latitude: $0.0, longitude: $0.1) } ?? [])
            try Data(EXIFBlock.inserted(exif, into: jpeg)).write(to: folder.appendingPathComponent(name))
        }
        return folder
    }

    @Test func eventsAreTitledByTheirPlaceAndDate() throws {
        _ = try makeTuscany()
        let run = try suggest("Tuscany", "--events")
        #expect(run.succeeded, "\(run)")
        let titles = run.stdout.split(separator: "\n").filter { $0.hasPrefix("#title ") }
        #expect(titles == ["#title Arezzo · Oct 22, 2008", "#title Florence · Oct 25, 2008"], "\(run)")

        let json = try self.json(try suggest("Tuscany", "--events", "--json"))
        #expect(json.entry("a1.jpg")["place"] as? String == "Arezzo")
        let position = try #require(json.entry("a1.jpg")["position"] as? [String: Double])
        #expect(abs((position["latitude"] ?? 0) - 43.46311) < 1e-5 && abs((position["longitude"] ?? 0) - 11.87831) < 1e-5)
        #expect(json.entry("f2.jpg")["place"] == nil && json.entry("f2.jpg")["position"] == nil, "no GPS: no place")
    }
}
