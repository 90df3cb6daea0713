import CollageImaging
import Foundation
import Testing

// The evaluation of issue #13: how many faces each crop rule keeps whole.
//
// The set is built here: the astronaut's head and shoulders (SampleImages/,
// NASA, public domain; her face's box hand-labelled) placed on scenery at
// known positions, in photos of five shapes, at two sizes, each drawn into
// the collage's cell shapes; half of the backgrounds busy with saturated,
// striped blobs (as the W6 photos are); plus the original photo. A face "fits" a cell
// when it is no longer than the window on the axis the crop moves along;
// only those count. Smart must keep at least 95% of them whole.
//
// With COLLAGE_EVAL_OUT=DIR the photos and a labels file are written there
// and the table to DIR/table.md, for docs/quality.md and for
// scripts/eval/vips_attention.py (which measures vips on the same photos).

struct EvaluationCase {
    let name: String
    let path: String
    let face: ci_box
}

enum CropEvaluation {
    static let shapes = [(1600, 1200), (1200, 1600), (1400, 1400), (2400, 1000), (1000, 1800)]
    /// Face height as a share of the photo's short side.
    static let sizes = [0.14, 0.26]
    /// Where the face's centre goes, in fractions of the photo.
    static let positions = [(0.5, 0.12), (0.12, 0.5), (0.88, 0.5), (0.5, 0.88), (0.2, 0.2), (0.8, 0.75)]
    /// The collage's cells for 6, 4 and 2 photos on 1920 x 1080, and a tall one.
    static let cells: [(UInt32, UInt32)] = [(640, 540), (960, 540), (960, 1080), (400, 800)]

    static func build(in folder: URL) throws -> [EvaluationCase] {
        let astronaut = try Astronaut.pixels()
        var cases: [EvaluationCase] = []
        var seed = 10.0
        for (width, height) in shapes {
            for size in sizes {
                for (cx, cy) in positions {
                    seed += 1
                    let scale = size * Double(min(width, height)) / Double(Astronaut.face.height)
                    let face = Astronaut.face, cut = Astronaut.cut
                    // The cut placed so the face's centre lands at (cx, cy).
                    let faceCentreX = (Double(face.x - cut.x) + Double(face.width) / 2) * scale
                    let faceCentreY = (Double(face.y - cut.y) + Double(face.height) / 2) * scale
                    let left = Int(cx * Double(width) - faceCentreX), top = Int(cy * Double(height) - faceCentreY)
                    // Every other photo on a busy background (saturated, striped blobs).
                    let (pixels, box) = portrait(width: width, height: height, left: left, top: top, scale: scale,
                                                 astronaut: astronaut, seed: seed, busy: Int(seed) % 2 == 0)
                    // A face reaching past the photo is not whole in it to begin with.
                    guard box.x >= 0, box.y >= 0, box.x + box.width <= 1, box.y + box.height <= 1 else { continue }
                    let name = "face-\(width)x\(height)-\(Int(size * 100))-\(Int(cx * 100))-\(Int(cy * 100)).jpg"
                    let data = try PNGTestSupport.encodeJPEG(pixels, width: width, height: height, quality: 90)
                    let file = folder.appendingPathComponent(name)
                    try data.write(to: file)
                    cases.append(EvaluationCase(name: name, path: file.path, face: box))
                }
            }
        }
        // The real photos, their faces as labelled by hand: the astronaut
        // (frontal), and the cameraman of SampleImages/ (in profile, looking
        // through his camera; forehead to chin, ear to nose, of 512 x 512).
        let original = Astronaut.face
        cases.append(EvaluationCase(
            name: "astronaut-eileen-collins.jpg", path: Astronaut.path,
            face: ci_box(x: Double(original.x) / 341, y: Double(original.y) / 512,
                         width: Double(original.width) / 341, height: Double(original.height) / 512)))
        cases.append(EvaluationCase(
            name: "cameraman-grayscale.jpg",
            path: TestData.packageRoot.appendingPathComponent("SampleImages/cameraman-grayscale.jpg").path,
            face: ci_box(x: 180.0 / 512, y: 120.0 / 512, width: 77.0 / 512, height: 75.0 / 512)))
        return cases
    }

    /// Whether `face` can be whole in the window a photo shown `shape` gets in `cell`.
    static func fits(_ face: ci_box, photo: ci_box) -> Bool {
        face.width <= photo.width + 1e-9 && face.height <= photo.height + 1e-9
    }

    static func keeps(_ shown: ci_box, _ face: ci_box) -> Bool {
        let slack = 0.002
        return face.x >= shown.x - slack && face.y >= shown.y - slack &&
            face.x + face.width <= shown.x + shown.width + slack &&
            face.y + face.height <= shown.y + shown.height + slack
    }

    static func place(_ path: String, cell: (UInt32, UInt32), crop: ci_crop) throws -> ci_placement {
        var pixels = [UInt8](repeating: 0, count: Int(cell.0) * Int(cell.1) * 3)
        var placement = ci_placement()
        var options = ci_draw_options()
        options.crop = crop
        var error = ci_error()
        let status = pixels.withUnsafeMutableBufferPointer { buffer -> ci_status in
            var canvas = ci_image(pixels: buffer.baseAddress, width: cell.0, height: cell.1,
                                  stride: Int(cell.0) * 3, channels: 3)
            return ci_draw_photo_placed(path, &canvas, ci_rect(x: 0, y: 0, width: cell.0, height: cell.1),
                                        &options, &placement, &error)
        }
        try #require(status == CI_OK, "\(PNGTestSupport.message(error))")
        return placement
    }
}

@Suite("Crop evaluation: faces kept whole")
struct CropEvaluationTests {
    @Test func smartKeepsAtLeast95PercentOfTheFacesThatFit() throws {
        let out = ProcessInfo.processInfo.environment["COLLAGE_EVAL_OUT"].map { URL(fileURLWithPath: $0) }
        let folder = try out ?? PNGTestSupport.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { if out == nil { try? FileManager.default.removeItem(at: folder) } }
        let cases = try CropEvaluation.build(in: folder)

        let modes: [(String, ci_crop)] = [("centre", CI_CROP_CENTRE), ("attention", CI_CROP_ATTENTION), ("smart", CI_CROP_SMART)]
        var kept = [String: Int](), fitting = 0, missedBySmart: [String] = []
        var labels: [[String: Any]] = []
        for item in cases {
            for cell in CropEvaluation.cells {
                // The window's size does not depend on the mode: take centre's.
                let centre = try CropEvaluation.place(item.path, cell: cell, crop: CI_CROP_CENTRE)
                guard CropEvaluation.fits(item.face, photo: centre.shown) else { continue }
                fitting += 1
                for (name, mode) in modes {
                    let placement = mode == CI_CROP_CENTRE ? centre : try CropEvaluation.place(item.path, cell: cell, crop: mode)
                    if CropEvaluation.keeps(placement.shown, item.face) {
                        kept[name, default: 0] += 1
                    } else if mode == CI_CROP_SMART {
                        missedBySmart.append("\(item.name) in \(cell.0)x\(cell.1): face \(item.face), shown \(placement.shown), \(placement.face_count) faces found")
                    }
                }
                labels.append(["photo": item.name, "cell": [cell.0, cell.1],
                               "face": [item.face.x, item.face.y, item.face.width, item.face.height]])
            }
        }
        func share(_ name: String) -> Double { Double(kept[name, default: 0]) / Double(max(1, fitting)) }
        var table = "| crop | faces kept whole | share |\n| --- | ---: | ---: |\n"
        for (name, _) in modes {
            table += "| \(name) | \(kept[name, default: 0]) / \(fitting) | \(String(format: "%.1f%%", 100 * share(name))) |\n"
        }
        print("Crop evaluation: \(cases.count) photos, \(fitting) photo-cell pairs whose face fits\n" + table)
        for miss in missedBySmart { print("smart missed: \(miss)") }
        if let out {
            try table.write(to: out.appendingPathComponent("table.md"), atomically: true, encoding: .utf8)
            let data = try JSONSerialization.data(withJSONObject: labels, options: [.prettyPrinted, .sortedKeys])
            try data.write(to: out.appendingPathComponent("labels.json"))
        }
        #expect(fitting >= 150, "the set should have plenty of faces that fit: \(fitting)")
        #expect(share("smart") >= 0.95, "smart kept \(kept["smart", default: 0]) of \(fitting)")
        // The set is worth having only if centre actually fails on it.
        #expect(share("centre") < 0.8)
    }
}
