import CollageImaging
import Foundation
import Testing

// The evaluation of issues #13 and #23: how many faces each crop rule keeps whole.
//
// The set is built here, in three groups:
// - frontal: the astronaut's head and shoulders (SampleImages/, NASA, public
//   domain; her face's box hand-labelled) placed on scenery at known
//   positions, in photos of five shapes, at two sizes; plus her original photo.
// - profile: the cameraman's head, camera and shoulders (SampleImages/, CC0;
//   his face in profile hand-labelled) placed the same way, facing right as
//   photographed and mirrored, facing left; plus his original photo.
// - turned: the astronaut's head turned in the picture's plane by 15, 30 or
//   45 degrees either way (one angle a photo, in turn), labelled with the box
//   around her turned face.
// - small (issue #31): the astronaut's head and shoulders placed the same
//   way with her face 5, 7, 9 or 12% of the photo's short side: a person
//   standing full length to one seen from the waist up, whose face dlib's
//   80-pixel window cannot see in the engine's 480-pixel search.
// Half of the backgrounds are busy with saturated, striped blobs (as the W6
// photos are). Each photo is drawn into the collage's cell shapes. A face
// "fits" a cell when it is no longer than the window on the axis the crop
// moves along; only those count. Smart must keep at least 95% of them whole
// over issue #23's three groups (its bar), and each group at least what it
// keeps now (see the floors below).
//
// With COLLAGE_EVAL_OUT=DIR the photos and a labels file are written there
// and the table to DIR/table.md, for docs/quality.md and for
// scripts/eval/vips_attention.py (which measures vips on the same photos).

enum EvaluationGroup: String, CaseIterable {
    case frontal, profile, turned, small
}

struct EvaluationCase {
    let name: String
    let path: String
    let face: ci_box
    let group: EvaluationGroup
}

/// A head to paste into made photos: a photo decoded, the cut around the
/// head (and shoulders) and the face's hand-labelled box in it, in pixels.
struct Head {
    typealias Box = (x: Int, y: Int, width: Int, height: Int)
    let pixels: [UInt8], width: Int, height: Int
    let cut: Box, face: Box

    static func astronaut() throws -> Head {
        let (pixels, width, height) = try Astronaut.pixels()
        return Head(pixels: pixels, width: width, height: height, cut: Astronaut.cut, face: Astronaut.face)
    }

    static func cameraman() throws -> Head {
        let (pixels, width, height) = try decodedRGB(Cameraman.path)
        return Head(pixels: pixels, width: width, height: height, cut: Cameraman.cut, face: Cameraman.face)
    }

    /// The same head mirrored left-right: facing the other way.
    func mirrored() -> Head {
        var flipped = pixels
        for y in 0..<height {
            for x in 0..<width {
                let from = (y * width + x) * 3, to = (y * width + width - 1 - x) * 3
                flipped[to] = pixels[from]
                flipped[to + 1] = pixels[from + 1]
                flipped[to + 2] = pixels[from + 2]
            }
        }
        func flip(_ box: Box) -> Box { (x: width - box.x - box.width, y: box.y, width: box.width, height: box.height) }
        return Head(pixels: flipped, width: width, height: height, cut: flip(cut), face: flip(face))
    }

    /// Pastes the cut into `photo` (`width` x `height`, RGB) scaled by
    /// `scale` and turned `degrees` clockwise about the face's centre, which
    /// lands at `centre` (in pixels); bilinear. Returns the box around the
    /// (turned) face, in fractions of the photo.
    func paste(into photo: inout [UInt8], width photoWidth: Int, height photoHeight: Int,
               centre: (x: Double, y: Double), scale: Double, degrees: Double) -> ci_box {
        let angle = degrees * Double.pi / 180, c = cos(angle), s = sin(angle)
        let faceX = Double(face.x) + Double(face.width) / 2, faceY = Double(face.y) + Double(face.height) / 2
        // Where a point of the source photo lands in the made one.
        func forward(_ x: Double, _ y: Double) -> (Double, Double) {
            let dx = (x - faceX) * scale, dy = (y - faceY) * scale
            return (centre.x + dx * c - dy * s, centre.y + dx * s + dy * c)
        }
        func bounds(_ box: Box) -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
            let corners = [(box.x, box.y), (box.x + box.width, box.y), (box.x, box.y + box.height),
                           (box.x + box.width, box.y + box.height)].map { forward(Double($0.0), Double($0.1)) }
            return (corners.map(\.0).min()!, corners.map(\.1).min()!, corners.map(\.0).max()!, corners.map(\.1).max()!)
        }
        let area = bounds(cut)
        let x0 = max(0, Int(area.minX.rounded(.down))), x1 = min(photoWidth, Int(area.maxX.rounded(.up)))
        let y0 = max(0, Int(area.minY.rounded(.down))), y1 = min(photoHeight, Int(area.maxY.rounded(.up)))
        let cutLeft = Double(cut.x), cutTop = Double(cut.y)
        let cutRight = Double(cut.x + cut.width), cutBottom = Double(cut.y + cut.height)
        let lastX = cut.x + cut.width - 2, lastY = cut.y + cut.height - 2, row = width * 3
        // No min or max (generic calls) and raw pointers in the loop: it runs
        // over millions of pixels in a debug build.
        let stepX = c / scale, stepY = -s / scale
        pixels.withUnsafeBufferPointer { source in
            photo.withUnsafeMutableBufferPointer { out in
                let source = source.baseAddress!, out = out.baseAddress!
                for y in y0..<max(y0, y1) {
                    // The pixel's centre, back in the source photo; it moves
                    // by (stepX, stepY) a pixel to the right.
                    let px = Double(x0) + 0.5 - centre.x, py = Double(y) + 0.5 - centre.y
                    var sx = (px * c + py * s) / scale + faceX, sy = (-px * s + py * c) / scale + faceY
                    var to = (y * photoWidth + x0) * 3
                    for _ in x0..<max(x0, x1) {
                        if sx >= cutLeft, sy >= cutTop, sx < cutRight, sy < cutBottom {
                            // Bilinear between the four source pixels around it, inside the cut.
                            let fx = sx - 0.5 < cutLeft ? cutLeft : sx - 0.5, fy = sy - 0.5 < cutTop ? cutTop : sy - 0.5
                            let ix = Int(fx) > lastX ? lastX : Int(fx), iy = Int(fy) > lastY ? lastY : Int(fy)
                            let wx = fx - Double(ix) > 1 ? 1 : fx - Double(ix), wy = fy - Double(iy) > 1 ? 1 : fy - Double(iy)
                            let w00 = (1 - wx) * (1 - wy), w01 = wx * (1 - wy), w10 = (1 - wx) * wy, w11 = wx * wy
                            var a = (iy * width + ix) * 3
                            for channel in 0..<3 {
                                out[to + channel] = UInt8(Double(source[a]) * w00 + Double(source[a + 3]) * w01
                                    + Double(source[a + row]) * w10 + Double(source[a + row + 3]) * w11 + 0.5)
                                a += 1
                            }
                        }
                        sx += stepX
                        sy += stepY
                        to += 3
                    }
                }
            }
        }
        let box = bounds(face)
        return ci_box(x: box.minX / Double(photoWidth), y: box.minY / Double(photoHeight),
                      width: (box.maxX - box.minX) / Double(photoWidth), height: (box.maxY - box.minY) / Double(photoHeight))
    }
}

enum CropEvaluation {
    static let shapes = [(1600, 1200), (1200, 1600), (1400, 1400), (2400, 1000), (1000, 1800)]
    /// Face height as a share of the photo's short side.
    static let sizes = [0.14, 0.26]
    /// Where the face's centre goes, in fractions of the photo.
    static let positions = [(0.5, 0.12), (0.12, 0.5), (0.88, 0.5), (0.5, 0.88), (0.2, 0.2), (0.8, 0.75)]
    /// The collage's cells for 6, 4 and 2 photos on 1920 x 1080, and a tall one.
    static let cells: [(UInt32, UInt32)] = [(640, 540), (960, 540), (960, 1080), (400, 800)]

    /// The turned group's angles, clockwise: one a photo, in turn.
    static let angles = [15.0, -15.0, 30.0, -30.0, 45.0, -45.0]

    /// The small group's face heights, as shares of the photo's short side.
    static let smallSizes = [0.05, 0.07, 0.09, 0.12]

    static func build(in folder: URL) throws -> [EvaluationCase] {
        let astronaut = try Head.astronaut(), cameraman = try Head.cameraman()
        var cases: [EvaluationCase] = []
        // Writes a made photo unless its face reaches past it (then it is not
        // whole in the photo to begin with).
        func add(_ name: String, _ pixels: [UInt8], _ width: Int, _ height: Int, _ box: ci_box, _ group: EvaluationGroup) throws {
            guard box.x >= 0, box.y >= 0, box.x + box.width <= 1, box.y + box.height <= 1 else { return }
            let data = try PNGTestSupport.encodeJPEG(pixels, width: width, height: height, quality: 90)
            let file = folder.appendingPathComponent(name)
            try data.write(to: file)
            cases.append(EvaluationCase(name: name, path: file.path, face: box, group: group))
        }
        let facings = [("right", cameraman), ("left", cameraman.mirrored())]
        var seed = 10.0, turn = 0, smallSeed = 100.0
        for (width, height) in shapes {
            for size in sizes {
                for (cx, cy) in positions {
                    seed += 1
                    let place = "\(width)x\(height)-\(Int(size * 100))-\(Int(cx * 100))-\(Int(cy * 100))"
                    // Every other place on a busy background (saturated,
                    // striped blobs): the same one for each group.
                    let busy = Int(seed) % 2 == 0
                    let scale = size * Double(min(width, height)) / Double(Astronaut.face.height)
                    let face = Astronaut.face, cut = Astronaut.cut
                    // The cut placed so the face's centre lands at (cx, cy).
                    let faceCentreX = (Double(face.x - cut.x) + Double(face.width) / 2) * scale
                    let faceCentreY = (Double(face.y - cut.y) + Double(face.height) / 2) * scale
                    let left = Int(cx * Double(width) - faceCentreX), top = Int(cy * Double(height) - faceCentreY)
                    let (pixels, box) = portrait(width: width, height: height, left: left, top: top, scale: scale,
                                                 astronaut: (astronaut.pixels, astronaut.width, astronaut.height),
                                                 seed: seed, busy: busy)
                    try add("face-\(place).jpg", pixels, width, height, box, .frontal)

                    // The profile and turned groups: bilinear, the face's centre at (cx, cy).
                    let background = scenery(width: width, height: height, seed: seed, busy: busy)
                    func made(_ head: Head, degrees: Double) -> ([UInt8], ci_box) {
                        var pixels = background
                        let box = head.paste(into: &pixels, width: width, height: height,
                                             centre: (cx * Double(width), cy * Double(height)),
                                             scale: size * Double(min(width, height)) / Double(head.face.height),
                                             degrees: degrees)
                        return (pixels, box)
                    }
                    for (facing, head) in facings {
                        let (pixels, box) = made(head, degrees: 0)
                        try add("profile-\(place)-\(facing).jpg", pixels, width, height, box, .profile)
                    }
                    // Each position gets the next angle in the next shape and size.
                    let degrees = angles[(turn + turn / positions.count) % angles.count]
                    turn += 1
                    let (turned, turnedBox) = made(astronaut, degrees: degrees)
                    try add("turned-\(place)-\(degrees > 0 ? "cw" : "ccw")\(Int(abs(degrees))).jpg",
                            turned, width, height, turnedBox, .turned)
                }
            }
            // The small group: its own places and backgrounds (a seed of its
            // own, so the other groups' photos stay the same bytes), every
            // other one busy.
            for size in smallSizes {
                for (cx, cy) in positions {
                    smallSeed += 1
                    let place = "\(width)x\(height)-\(Int(size * 100))-\(Int(cx * 100))-\(Int(cy * 100))"
                    let (pixels, box) = smallPhoto(astronaut, width: width, height: height, size: size,
                                                   centre: (cx, cy), seed: smallSeed)
                    try add("small-\(place).jpg", pixels, width, height, box, .small)
                }
            }
        }
        // The real photos, their faces as labelled by hand: the astronaut
        // (frontal), and the cameraman (in profile, looking through his
        // camera; forehead to chin, ear to nose, of 512 x 512).
        let original = Astronaut.face, profile = Cameraman.face
        cases.append(EvaluationCase(
            name: "astronaut-eileen-collins.jpg", path: Astronaut.path,
            face: ci_box(x: Double(original.x) / 341, y: Double(original.y) / 512,
                         width: Double(original.width) / 341, height: Double(original.height) / 512),
            group: .frontal))
        cases.append(EvaluationCase(
            name: "cameraman-grayscale.jpg", path: Cameraman.path,
            face: ci_box(x: Double(profile.x) / 512, y: Double(profile.y) / 512,
                         width: Double(profile.width) / 512, height: Double(profile.height) / 512),
            group: .profile))
        return cases
    }

    /// One photo of the small group: the astronaut's head and shoulders on
    /// scenery of its own seed (busy when the seed is even), her face `size`
    /// of the short side with its centre at `centre` (fractions); and her
    /// face's box.
    static func smallPhoto(_ astronaut: Head, width: Int, height: Int, size: Double, centre: (Double, Double),
                           seed: Double) -> ([UInt8], ci_box) {
        var pixels = scenery(width: width, height: height, seed: seed, busy: Int(seed) % 2 == 0)
        let box = astronaut.paste(into: &pixels, width: width, height: height,
                                  centre: (centre.0 * Double(width), centre.1 * Double(height)),
                                  scale: size * Double(min(width, height)) / Double(astronaut.face.height), degrees: 0)
        return (pixels, box)
    }

    /// The seed build gives the small group's photo of this shape, size and
    /// position (its seeds count up through shapes, sizes, positions).
    static func smallSeed(shape: Int, size: Int, position: Int) -> Double {
        100 + Double((shape * smallSizes.count + size) * positions.count + position + 1)
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

/// Faces kept whole and faces that fit, counted per crop mode and group.
struct EvaluationTally {
    var kept = [String: [EvaluationGroup: Int]](), fitting = [EvaluationGroup: Int]()

    func kept(_ mode: String, _ group: EvaluationGroup? = nil) -> Int {
        group.map { kept[mode]?[$0] ?? 0 } ?? kept[mode, default: [:]].values.reduce(0, +)
    }

    func fitting(_ group: EvaluationGroup? = nil) -> Int {
        group.map { fitting[$0] ?? 0 } ?? fitting.values.reduce(0, +)
    }

    func share(_ mode: String, _ group: EvaluationGroup? = nil) -> Double {
        Double(kept(mode, group)) / Double(max(1, fitting(group)))
    }

    /// The share kept over several groups together.
    func share(_ mode: String, of groups: [EvaluationGroup]) -> Double {
        Double(groups.map { kept(mode, $0) }.reduce(0, +)) / Double(max(1, groups.map { fitting($0) }.reduce(0, +)))
    }

    /// "kept / fitting (share)" for one group, or all of them.
    func cell(_ mode: String, _ group: EvaluationGroup? = nil) -> String {
        "\(kept(mode, group)) / \(fitting(group)) (\(String(format: "%.1f%%", 100 * share(mode, group))))"
    }

    /// One row of docs/quality.md's table: a crop mode, its groups, then all.
    func row(_ mode: String) -> String {
        "| \(mode) | " + (EvaluationGroup.allCases.map { cell(mode, $0) } + [cell(mode)]).joined(separator: " | ") + " |\n"
    }

    static let header = "| crop | " + EvaluationGroup.allCases.map(\.rawValue).joined(separator: " | ") + " | all |\n"
        + "| --- |" + String(repeating: " ---: |", count: EvaluationGroup.allCases.count + 1) + "\n"
}

@Suite("Crop evaluation: faces kept whole")
struct CropEvaluationTests {
    @Test func smartKeepsTheFacesThatFit() throws {
        let out = ProcessInfo.processInfo.environment["COLLAGE_EVAL_OUT"].map { URL(fileURLWithPath: $0) }
        let folder = try out ?? PNGTestSupport.temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { if out == nil { try? FileManager.default.removeItem(at: folder) } }
        let started = Date()
        let cases = try CropEvaluation.build(in: folder)
        let built = Date()

        let modes: [(String, ci_crop)] = [("centre", CI_CROP_CENTRE), ("attention", CI_CROP_ATTENTION), ("smart", CI_CROP_SMART)]
        var tally = EvaluationTally(), missedBySmart: [String] = []
        var labels: [[String: Any]] = []
        for item in cases {
            for cell in CropEvaluation.cells {
                // The window's size does not depend on the mode: take centre's.
                let centre = try CropEvaluation.place(item.path, cell: cell, crop: CI_CROP_CENTRE)
                guard CropEvaluation.fits(item.face, photo: centre.shown) else { continue }
                tally.fitting[item.group, default: 0] += 1
                var kept = [String: Bool]()
                for (name, mode) in modes {
                    let placement = mode == CI_CROP_CENTRE ? centre : try CropEvaluation.place(item.path, cell: cell, crop: mode)
                    kept[name] = CropEvaluation.keeps(placement.shown, item.face)
                    if kept[name]! {
                        tally.kept[name, default: [:]][item.group, default: 0] += 1
                    } else if mode == CI_CROP_SMART {
                        missedBySmart.append("\(item.group) \(item.name) in \(cell.0)x\(cell.1): face \(item.face), shown \(placement.shown), \(placement.face_count) faces found")
                    }
                }
                labels.append(["photo": item.name, "group": item.group.rawValue, "cell": [cell.0, cell.1],
                               "face": [item.face.x, item.face.y, item.face.width, item.face.height], "kept": kept])
            }
        }
        let table = EvaluationTally.header + modes.map { tally.row($0.0) }.joined()
        let photos = EvaluationGroup.allCases.map { group in "\(cases.filter { $0.group == group }.count) \(group)" }
        // Said only when an expectation below fails (issue #42: the misses
        // smart is allowed read like failures in a passing run's output),
        // and written with the table where COLLAGE_EVAL_OUT asks.
        let report = "Crop evaluation: \(cases.count) photos (\(photos.joined(separator: ", "))), "
            + "\(tally.fitting()) photo-cell pairs whose face fits; built in "
            + String(format: "%.1f s, measured in %.1f s\n", built.timeIntervalSince(started), Date().timeIntervalSince(built)) + table
            + missedBySmart.map { "smart missed: \($0)\n" }.joined()
        if let out {
            try report.write(to: out.appendingPathComponent("report.txt"), atomically: true, encoding: .utf8)
            try table.write(to: out.appendingPathComponent("table.md"), atomically: true, encoding: .utf8)
            let data = try JSONSerialization.data(withJSONObject: labels, options: [.prettyPrinted, .sortedKeys])
            try data.write(to: out.appendingPathComponent("labels.json"))
        }
        for group in EvaluationGroup.allCases {
            #expect(tally.fitting(group) >= 150, "the \(group) group should have plenty of faces that fit: \(tally.fitting(group))")
        }
        let byGroup = EvaluationGroup.allCases.map { "\($0) \(tally.cell("smart", $0))" }.joined(separator: ", ")
        // Issue #23's bar: 95% over its three groups; and no group may fall
        // much below what smart keeps of it now (frontal 100%, profile
        // 94.6%, turned 97.2%, small 99.8%: docs/quality.md).
        #expect(tally.share("smart", of: [.frontal, .profile, .turned]) >= 0.95,
                "smart kept \(tally.cell("smart")): \(byGroup)\n\(report)")
        #expect(tally.share("smart", .frontal) >= 0.95, "smart kept \(tally.cell("smart")): \(byGroup)\n\(report)")
        #expect(tally.share("smart", .profile) >= 0.93, "smart kept \(tally.cell("smart")): \(byGroup)\n\(report)")
        #expect(tally.share("smart", .turned) >= 0.95, "smart kept \(tally.cell("smart")): \(byGroup)\n\(report)")
        #expect(tally.share("smart", .small) >= 0.99, "smart kept \(tally.cell("smart")): \(byGroup)\n\(report)")
        // The set is worth having only if centre actually fails on it.
        #expect(tally.share("centre") < 0.8, "centre kept \(tally.cell("centre"))\n\(report)")
    }
}
