import CollageImaging
import CollageTestSupport
import Foundation
import Testing

// Where crops go (crop.c): the rule on its own (ci_place_crop), then draws of
// synthetic photos through ci_draw_photo_placed, checked by the rectangle
// each reports and, where it matters, by the pixels.

private func hints(focus: (Double, Double)? = nil, faces: [ci_box] = [], subject: ci_box? = nil,
                   _ body: (inout ci_placement_hints) -> Void) {
    faces.withUnsafeBufferPointer { buffer in
        var h = ci_placement_hints()
        if let focus {
            h.has_focus = 1
            h.focus_x = focus.0
            h.focus_y = focus.1
        }
        h.faces = buffer.baseAddress
        h.face_count = Int32(faces.count)
        if let subject {
            h.has_subject = 1
            h.subject = subject
        }
        body(&h)
    }
}

/// ci_place_crop for a photo and a cell, with what is known of the photo.
private func place(_ photo: (UInt32, UInt32), _ cell: (UInt32, UInt32), focus: (Double, Double)? = nil,
                   faces: [ci_box] = [], subject: ci_box? = nil) -> (ci_placed_by, ci_box) {
    var result = (CI_PLACED_CENTRE, ci_box())
    hints(focus: focus, faces: faces, subject: subject) { h in
        var shown = ci_box()
        let by = ci_place_crop(photo.0, photo.1, cell.0, cell.1, &h, &shown)
        result = (by, shown)
    }
    return result
}

private func box(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> ci_box {
    ci_box(x: x, y: y, width: w, height: h)
}

private func contains(_ outer: ci_box, _ inner: ci_box, slack: Double = 1e-9) -> Bool {
    inner.x >= outer.x - slack && inner.y >= outer.y - slack &&
        inner.x + inner.width <= outer.x + outer.width + slack &&
        inner.y + inner.height <= outer.y + outer.height + slack
}

@Suite("Crop placement rules (ci_place_crop)")
struct CropRuleTests {
    @Test func withNothingToGoByTheWindowIsCentred() {
        // 4:3 into a square: the window is 3/4 of the width, centred.
        let (by, shown) = place((4000, 3000), (1000, 1000))
        #expect(by == CI_PLACED_CENTRE)
        #expect(abs(shown.width - 0.75) < 1e-12 && abs(shown.x - 0.125) < 1e-12)
        #expect(shown.y == 0 && shown.height == 1)
    }

    @Test func aPhotoOfTheCellsShapeHasNothingToPlace() {
        let (by, shown) = place((1600, 900), (640, 360), focus: (0.1, 0.1), faces: [box(0, 0, 0.1, 0.1)])
        #expect(by == CI_PLACED_CENTRE)
        #expect(shown.x == 0 && shown.y == 0 && shown.width == 1 && shown.height == 1)
    }

    @Test func aFocusCentresTheWindowAsFarAsThePhotoAllows() {
        let (by, shown) = place((4000, 3000), (1000, 1000), focus: (0.3, 0.9))
        #expect(by == CI_PLACED_FOCUS)
        #expect(abs(shown.x - (0.3 - 0.375)) < 1e-12 || shown.x == 0)
        #expect(shown.x == 0)  // 0.3 - 0.375 < 0: held at the left edge
        let right = place((4000, 3000), (1000, 1000), focus: (0.95, 0.5)).1
        #expect(abs(right.x - 0.25) < 1e-12)  // at the right edge
        let inside = place((4000, 3000), (1000, 1000), focus: (0.6, 0.5)).1
        #expect(abs(inside.x + inside.width / 2 - 0.6) < 1e-12)
    }

    /// Issue #41: the window is centred on the heads it keeps, the room
    /// left shared out on both sides (a head's box is an estimate of it).
    @Test func theWindowIsCentredOnTheHead() {
        let face = box(0.4, 0.4, 0.1, 0.075)
        let (by, shown) = place((3000, 4000), (1600, 900), faces: [face])
        #expect(by == CI_PLACED_FACES)
        let head = ci_head_of(face)
        #expect(abs(shown.y + shown.height / 2 - (head.y + head.height / 2)) < 1e-12)
    }

    @Test func aFaceAtTheTopTakesTheWindowToTheTop() {
        // A portrait in a landscape cell: the window is 0.42 of the height.
        let face = box(0.4, 0.08, 0.2, 0.12)
        let (by, shown) = place((3000, 4000), (1600, 900), faces: [face])
        #expect(by == CI_PLACED_FACES)
        #expect(contains(shown, face))
        // Centred on the head would pass the top: held there, the hair above kept.
        #expect(shown.y == 0)
    }

    /// Issue #41: two faces side by side whose heads, as grown from the
    /// faces, are longer together than the window (0.418 of the photo
    /// against 0.405), but whose faces fit (0.388): both are kept, centred,
    /// where the heads' rule alone kept one and cut the other's face whole.
    @Test func twoFacesThatFitTogetherAreBothKeptWhereTheirGrownHeadsWouldNot() {
        let faces = [box(0.147, 0.15, 0.098, 0.19), box(0.437, 0.15, 0.098, 0.19)]
        let heads = faces.map { ci_head_of($0) }
        #expect(heads[1].x + heads[1].width - heads[0].x > 0.405)
        let (by, shown) = place((1000, 512), (405, 512), faces: faces)
        #expect(by == CI_PLACED_FACES)
        #expect(faces.allSatisfy { contains(shown, $0) }, "\(shown)")
        #expect(abs(shown.x + shown.width / 2 - (0.147 + 0.535) / 2) < 1e-12)
    }

    @Test func allFacesAreKeptWhenTheyFitTogether() {
        let faces = [box(0.05, 0.3, 0.1, 0.1), box(0.3, 0.35, 0.1, 0.1)]
        let (by, shown) = place((4000, 2000), (900, 900), faces: faces)
        #expect(by == CI_PLACED_FACES)
        #expect(faces.allSatisfy { contains(shown, $0) })
    }

    @Test func whenTheyCannotAllFitTheLargestGroupIsKept() {
        // Two faces on the left, one on the right; a window half the width.
        let left = [box(0.02, 0.4, 0.08, 0.1), box(0.2, 0.4, 0.08, 0.1)]
        let right = box(0.85, 0.4, 0.1, 0.12)
        let (_, shown) = place((4000, 2000), (1000, 1000), faces: left + [right])
        #expect(left.allSatisfy { contains(shown, $0) })
        #expect(!contains(shown, right))
    }

    @Test func betweenGroupsOfOneTheLargerFaceWins() {
        let small = box(0.05, 0.4, 0.06, 0.08), large = box(0.8, 0.4, 0.12, 0.16)
        let (_, shown) = place((4000, 2000), (1000, 1000), faces: [small, large])
        #expect(contains(shown, large) && !contains(shown, small))
    }

    @Test func theFocusBeatsFacesAndFacesBeatTheSubject() {
        let face = box(0.8, 0.4, 0.1, 0.1), subject = box(0.05, 0.4, 0.05, 0.05)
        let focused = place((4000, 2000), (1000, 1000), focus: (0.1, 0.5), faces: [face], subject: subject)
        #expect(focused.0 == CI_PLACED_FOCUS && focused.1.x == 0)
        let byFaces = place((4000, 2000), (1000, 1000), faces: [face], subject: subject)
        #expect(byFaces.0 == CI_PLACED_FACES && contains(byFaces.1, face))
        let bySubject = place((4000, 2000), (1000, 1000), subject: subject)
        #expect(bySubject.0 == CI_PLACED_SUBJECT && contains(bySubject.1, subject))
    }
}

// MARK: - Draws

/// Smooth, detailed, face-free pixels: sums of waves (no skin-toned blobs
/// with eyes in them); `busy` adds saturated, hard-edged ellipses, as the
/// W6 photos have, which draw an attention crop away from a person.
func scenery(width: Int, height: Int, seed: Double, busy: Bool = false) -> [UInt8] {
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    // The terms of one column or one row worked out once, and no generic
    // calls in the loop: the crop evaluation makes hundreds of these photos
    // in a debug build, where those are slow (this is 4 to 5 times faster
    // than per pixel, and gives the same bytes).
    let columnRed = (0..<width).map { 60 * sin(7 * (Double($0) / Double(width)) + seed) }
    let columnGreen = (0..<width).map { 25 * sin(31 * (Double($0) / Double(width))) }
    func byte(_ value: Double) -> UInt8 { value <= 0 ? 0 : value >= 255 ? 255 : UInt8(value) }
    columnRed.withUnsafeBufferPointer { columnRed in
        columnGreen.withUnsafeBufferPointer { columnGreen in
            pixels.withUnsafeMutableBufferPointer { pixels in
                for y in 0..<height {
                    let v = Double(y) / Double(height)
                    let rowGreen = 130 + 50 * cos(5 * v + 2 * seed), rowBlue = 20 * cos(41 * v)
                    var base = y * width * 3
                    for x in 0..<width {
                        let u = Double(x) / Double(width)
                        pixels[base] = byte(110 + columnRed[x] + 30 * cos(23 * v * u + seed))
                        pixels[base + 1] = byte(rowGreen + columnGreen[x])
                        pixels[base + 2] = byte(150 + 70 * sin(3 * (u + v) + seed) + rowBlue)
                        base += 3
                    }
                }
            }
        }
    }
    guard busy else { return pixels }
    var state = UInt64(seed * 1000) &+ 0x9E37_79B9_7F4A_7C15
    func next() -> Double {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Double(state >> 11) / Double(1 << 53)
    }
    let palette: [(UInt8, UInt8, UInt8)] = [(240, 200, 20), (30, 200, 60), (200, 30, 200), (20, 120, 240), (250, 120, 20)]
    for _ in 0..<9 {
        let cx = next() * Double(width), cy = next() * Double(height)
        let rx = (0.04 + 0.1 * next()) * Double(width), ry = (0.04 + 0.1 * next()) * Double(height)
        let colour = palette[Int(next() * Double(palette.count)) % palette.count]
        for y in max(0, Int(cy - ry))..<min(height, Int(cy + ry) + 1) {
            for x in max(0, Int(cx - rx))..<min(width, Int(cx + rx) + 1) {
                let dx = (Double(x) - cx) / rx, dy = (Double(y) - cy) / ry
                guard dx * dx + dy * dy <= 1 else { continue }
                let base = (y * width + x) * 3
                // A stripe texture: edges inside the blob too.
                let stripe: UInt8 = (x / 6 + y / 6) % 2 == 0 ? 0 : 40
                pixels[base] = colour.0 &- min(colour.0, stripe)
                pixels[base + 1] = colour.1 &- min(colour.1, stripe)
                pixels[base + 2] = colour.2 &- min(colour.2, stripe)
            }
        }
    }
    return pixels
}

final class CropFolder {
    let url: URL
    init() throws { url = try PNGTestSupport.temporaryFolder() }
    deinit { try? FileManager.default.removeItem(at: url) }

    func jpeg(_ name: String, _ pixels: [UInt8], _ width: Int, _ height: Int, app1: [UInt8]? = nil) throws -> String {
        var data = try PNGTestSupport.encodeJPEG(pixels, width: width, height: height, quality: 92)
        if let app1 {
            // After SOI: FF E1, the length (itself included), the payload.
            let length = app1.count + 2
            data.insert(contentsOf: [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + app1, at: 2)
        }
        let path = url.appendingPathComponent(name).path
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    func png(_ name: String, _ pixels: [UInt8], _ width: Int, _ height: Int) throws -> String {
        let path = url.appendingPathComponent(name).path
        try PNGTestSupport.encodePNG(pixels, width: width, height: height, channels: 3).write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// Draws `path` into a `cell` of its own canvas; the placement and the pixels.
func drawPlaced(_ path: String, cell: (Int, Int), crop: ci_crop = CI_CROP_SMART, fit: ci_fit = CI_FIT_COVER,
                focus: (Double, Double)? = nil, background: ci_color = ci_color(r: 0, g: 0, b: 0))
    throws -> (ci_placement, [UInt8]) {
    var pixels = [UInt8](repeating: 0, count: cell.0 * cell.1 * 3)
    var placement = ci_placement()
    var options = ci_draw_options()
    options.background = background
    options.crop = crop
    options.fit = fit
    if let focus {
        options.has_focus = 1
        options.focus_x = focus.0
        options.focus_y = focus.1
    }
    var error = ci_error()
    let status = pixels.withUnsafeMutableBufferPointer { buffer -> ci_status in
        var canvas = ci_image(pixels: buffer.baseAddress, width: UInt32(cell.0), height: UInt32(cell.1),
                              stride: cell.0 * 3, channels: 3)
        return ci_draw_photo_placed(path, &canvas, ci_rect(x: 0, y: 0, width: UInt32(cell.0), height: UInt32(cell.1)),
                                    &options, &placement, &error)
    }
    try #require(status == CI_OK, "\(PNGTestSupport.message(error))")
    return (placement, pixels)
}

/// The astronaut of SampleImages/ (NASA, public domain), decoded: the face
/// the evaluation places in its photos, with her face's box hand-labelled
/// (forehead to chin, cheek to cheek) in its 341 x 512 pixels.
enum Astronaut {
    static let path = TestData.packageRoot.appendingPathComponent("SampleImages/astronaut-eileen-collins.jpg").path
    static let face = (x: 147, y: 75, width: 98, height: 97)
    /// Head and shoulders, cut from the photo: x 90..<300, y 20..<300.
    static let cut = (x: 90, y: 20, width: 210, height: 280)

    static func pixels() throws -> (pixels: [UInt8], width: Int, height: Int) { try decodedRGB(path) }
}

/// The cameraman of SampleImages/ (512 x 512, greyscale), a face in
/// profile: his face's box hand-labelled (forehead to chin, ear to nose),
/// facing right, through his camera; his head spans rows 65-200.
enum Cameraman {
    static let path = TestData.packageRoot.appendingPathComponent("SampleImages/cameraman-grayscale.jpg").path
    static let face = (x: 180, y: 120, width: 77, height: 75)
    /// His head, the camera he looks through and his shoulders.
    static let cut = (x: 110, y: 45, width: 230, height: 280)
}

/// A photo decoded (turned upright) to packed RGB: greyscale comes out grey RGB.
func decodedRGB(_ path: String) throws -> (pixels: [UInt8], width: Int, height: Int) {
    var options = ci_decode_options()
    options.apply_orientation = 1
    var image = ci_image()
    var error = ci_error()
    try #require(ci_decode_file(path, &options, &image, &error) == CI_OK, "\(PNGTestSupport.message(error))")
    defer { ci_image_free(&image) }
    try #require(image.channels == 3, "\(path): \(image.channels) channels")
    var out = [UInt8](repeating: 0, count: Int(image.width) * Int(image.height) * 3)
    for y in 0..<Int(image.height) {
        for x in 0..<Int(image.width) * 3 { out[y * Int(image.width) * 3 + x] = image.pixels[y * image.stride + x] }
    }
    return (out, Int(image.width), Int(image.height))
}

/// A photo `width` x `height` of scenery with the astronaut's head and
/// shoulders pasted at (left, top), scaled by `scale`; returns the pixels and
/// the face's box in fractions of the photo.
func portrait(width: Int, height: Int, left: Int, top: Int, scale: Double,
              astronaut: (pixels: [UInt8], width: Int, height: Int), seed: Double, busy: Bool = false) -> ([UInt8], ci_box) {
    var pixels = scenery(width: width, height: height, seed: seed, busy: busy)
    let cut = Astronaut.cut
    let w = Int(Double(cut.width) * scale), h = Int(Double(cut.height) * scale)
    for y in 0..<h where top + y >= 0 && top + y < height {
        for x in 0..<w where left + x >= 0 && left + x < width {
            // Bilinear enough: nearest at these scales keeps a face a face.
            let sx = cut.x + min(cut.width - 1, Int(Double(x) / scale))
            let sy = cut.y + min(cut.height - 1, Int(Double(y) / scale))
            let from = (sy * astronaut.width + sx) * 3, to = ((top + y) * width + left + x) * 3
            pixels[to] = astronaut.pixels[from]
            pixels[to + 1] = astronaut.pixels[from + 1]
            pixels[to + 2] = astronaut.pixels[from + 2]
        }
    }
    let face = Astronaut.face
    let fx = Double(left) + Double(face.x - cut.x) * scale, fy = Double(top) + Double(face.y - cut.y) * scale
    return (pixels, ci_box(x: fx / Double(width), y: fy / Double(height),
                           width: Double(face.width) * scale / Double(width),
                           height: Double(face.height) * scale / Double(height)))
}

@Suite("Crops drawn (ci_draw_photo_placed)")
struct CropDrawTests {
    @Test func smartDrawsAPhotoWithNothingInItByteForByteAsCentre() throws {
        let folder = try CropFolder()
        let pixels = scenery(width: 900, height: 600, seed: 1)
        for path in [try folder.jpeg("plain.jpg", pixels, 900, 600), try folder.png("plain.png", pixels, 900, 600)] {
            let smart = try drawPlaced(path, cell: (300, 300))
            let centre = try drawPlaced(path, cell: (300, 300), crop: CI_CROP_CENTRE)
            #expect(smart.0.placed_by == CI_PLACED_CENTRE && smart.0.face_count == 0)
            #expect(smart.1 == centre.1, "\(path): smart differs from centre with nothing to go by")
            #expect(abs(smart.0.shown.x - 1.0 / 6.0) < 1e-9 && abs(smart.0.shown.width - 2.0 / 3.0) < 1e-9)
        }
    }

    @Test func smartKeepsAFaceThatCentreCutsOff() throws {
        let folder = try CropFolder()
        let astronaut = try Astronaut.pixels()
        // A 1500 x 2000 portrait, her face in the top tenth; a 16:9 cell.
        let (pixels, face) = portrait(width: 1500, height: 2000, left: 500, top: 0, scale: 2.2,
                                      astronaut: astronaut, seed: 2)
        let path = try folder.jpeg("top.jpg", pixels, 1500, 2000)
        let centre = try drawPlaced(path, cell: (640, 360), crop: CI_CROP_CENTRE)
        #expect(!contains(centre.0.shown, face))
        let smart = try drawPlaced(path, cell: (640, 360))
        #expect(smart.0.placed_by == CI_PLACED_FACES)
        #expect(smart.0.face_count == 1)
        #expect(contains(smart.0.shown, face), "face \(face) not in \(smart.0.shown)")
        // The face found is where it was put.
        let found = smart.0.faces.0
        #expect(abs(found.x - face.x) < 0.03 && abs(found.y - face.y) < 0.03)
    }

    /// Issue #41: two people side by side, the astronaut of SampleImages/
    /// and her mirror image joined (scenery beyond them, so that the middle
    /// of the photo is not theirs), in a cell so narrow that both faces fit
    /// only when the window is placed for both: smart keeps both, centred
    /// on them; centre cuts one.
    @Test func twoPeopleSideBySideAreBothKeptWhereTheyFitOnlyTogether() throws {
        let folder = try CropFolder()
        let astronaut = try Astronaut.pixels()
        let (width, height) = (1000, astronaut.height)
        var pixels = scenery(width: width, height: height, seed: 7)
        for y in 0..<height {
            for x in 0..<astronaut.width {
                let from = (y * astronaut.width + x) * 3
                let left = (y * width + x) * 3, right = (y * width + 2 * astronaut.width - 1 - x) * 3
                pixels.replaceSubrange(left..<left + 3, with: astronaut.pixels[from..<from + 3])
                pixels.replaceSubrange(right..<right + 3, with: astronaut.pixels[from..<from + 3])
            }
        }
        let face = Astronaut.face
        func labelled(_ x: Int) -> ci_box {
            ci_box(x: Double(x) / Double(width), y: Double(face.y) / Double(height),
                   width: Double(face.width) / Double(width), height: Double(face.height) / Double(height))
        }
        let faces = [labelled(face.x), labelled(2 * astronaut.width - face.x - face.width)]
        let path = try folder.png("two.png", pixels, width, height)
        let cell = (405, height)
        let centre = try drawPlaced(path, cell: cell, crop: CI_CROP_CENTRE)
        #expect(!faces.allSatisfy { contains(centre.0.shown, $0) })
        let smart = try drawPlaced(path, cell: cell)
        #expect(smart.0.placed_by == CI_PLACED_FACES && smart.0.face_count == 2, "\(smart.0.face_count) faces")
        #expect(faces.allSatisfy { contains(smart.0.shown, $0) }, "faces \(faces) not all in \(smart.0.shown)")
        let found = [smart.0.faces.0, smart.0.faces.1]
        let spans = (found.map(\.x).min()!, found.map { $0.x + $0.width }.max()!)
        #expect(abs(smart.0.shown.x + smart.0.shown.width / 2 - (spans.0 + spans.1) / 2) < 0.002,
                "\(found) \(smart.0.shown)")
    }

    /// Issue #23: the cameraman of SampleImages, his face in profile, in one
    /// of two cells of a 3000 x 500 banner. Centre shows rows 171-341 of his
    /// 512 and cuts his head (rows 65-200); smart keeps it.
    @Test func smartKeepsAFaceInProfileThatCentreCutsOff() throws {
        let head = ci_box(x: 0, y: 65.0 / 512, width: 1, height: 135.0 / 512)
        let centre = try drawPlaced(Cameraman.path, cell: (1500, 500), crop: CI_CROP_CENTRE)
        #expect(!contains(centre.0.shown, head))
        let smart = try drawPlaced(Cameraman.path, cell: (1500, 500))
        #expect(smart.0.placed_by == CI_PLACED_FACES && smart.0.face_count == 1)
        #expect(contains(smart.0.shown, head), "head rows 65-200 not in \(smart.0.shown)")
    }

    @Test func theFocusMovesTheCropAndCentreIgnoresIt() throws {
        let folder = try CropFolder()
        let path = try folder.jpeg("wide.jpg", scenery(width: 1200, height: 400, seed: 3), 1200, 400)
        let left = try drawPlaced(path, cell: (200, 200), focus: (0, 0.5))
        #expect(left.0.placed_by == CI_PLACED_FOCUS && left.0.shown.x == 0)
        let centre = try drawPlaced(path, cell: (200, 200), crop: CI_CROP_CENTRE, focus: (0, 0.5))
        #expect(centre.0.placed_by == CI_PLACED_CENTRE && abs(centre.0.shown.x - 1.0 / 3.0) < 1e-9)
        #expect(left.1 != centre.1)
    }

    @Test func containShowsTheWholePanoramaOnTheBackground() throws {
        let folder = try CropFolder()
        // 1200 x 100, red: in a 600 x 600 cell it is 600 x 50, rows 275..<325.
        var pixels = [UInt8](repeating: 0, count: 1200 * 100 * 3)
        for i in stride(from: 0, to: pixels.count, by: 3) { pixels[i] = 220 }
        let path = try folder.png("panorama.png", pixels, 1200, 100)
        let (placement, drawn) = try drawPlaced(path, cell: (600, 600), fit: CI_FIT_CONTAIN,
                                                background: ci_color(r: 0, g: 0, b: 255))
        #expect(placement.placed_by == CI_PLACED_WHOLE)
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(drawn[(y * 600 + x) * 3..<(y * 600 + x) * 3 + 3]) }
        for x in [0, 300, 599] {
            #expect(pixel(x, 274) == [0, 0, 255] && pixel(x, 325) == [0, 0, 255])
            #expect(pixel(x, 276) == [220, 0, 0] && pixel(x, 323) == [220, 0, 0])
        }
        #expect(pixel(0, 0) == [0, 0, 255] && pixel(599, 599) == [0, 0, 255])
    }

    @Test func containLeavesNoHairlineWhereThePhotoFitsToAPixel() throws {
        let folder = try CropFolder()
        // 341 x 512 (the astronaut's shape) in a 252 x 379 cell: contained,
        // it is 378.4 pixels high, a band of 0.6 px that rounding made a line
        // of background. Within a pixel it fills the cell instead.
        var pixels = [UInt8](repeating: 0, count: 341 * 512 * 3)
        for i in stride(from: 0, to: pixels.count, by: 3) { pixels[i + 1] = 200 }
        let path = try folder.png("portrait.png", pixels, 341, 512)
        let (placement, drawn) = try drawPlaced(path, cell: (252, 379), fit: CI_FIT_CONTAIN,
                                                background: ci_color(r: 0, g: 0, b: 255))
        #expect(placement.placed_by == CI_PLACED_WHOLE)
        #expect(!stride(from: 0, to: drawn.count, by: 3).contains { drawn[$0 + 2] == 255 }, "no background shows")
        // A band of more than a pixel is still background: in 252 x 382 the photo is 378 high.
        let (_, banded) = try drawPlaced(path, cell: (252, 382), fit: CI_FIT_CONTAIN,
                                         background: ci_color(r: 0, g: 0, b: 255))
        #expect(Array(banded[0..<3]) == [0, 0, 255] && Array(banded[(381 * 252) * 3..<(381 * 252) * 3 + 3]) == [0, 0, 255])
    }

    @Test func attentionGoesToTheBusyPart() throws {
        let folder = try CropFolder()
        // Flat grey, with a saturated, detailed patch at the right.
        var pixels = [UInt8](repeating: 128, count: 1600 * 400 * 3)
        for y in 100..<300 {
            for x in 1300..<1500 {
                let at = (y * 1600 + x) * 3
                let on = (x / 8 + y / 8) % 2 == 0
                pixels[at] = on ? 250 : 20
                pixels[at + 1] = on ? 30 : 200
                pixels[at + 2] = 40
            }
        }
        let path = try folder.png("busy.png", pixels, 1600, 400)
        let (placement, _) = try drawPlaced(path, cell: (400, 400), crop: CI_CROP_ATTENTION)
        #expect(placement.placed_by == CI_PLACED_ATTENTION)
        #expect(contains(placement.shown, box(1300.0 / 1600, 0.25, 200.0 / 1600, 0.5), slack: 0.01))
    }

    /// An EXIF block (little-endian) with SubjectArea as a rectangle
    /// (centre x, y, width, height) in the Exif sub-IFD.
    static func exifSubjectArea(_ values: [UInt16], orientation: UInt16 = 1) -> [UInt8] {
        EXIFBlock.block(ifd0: [EXIFBlock.entry(0x0112, 3, 1, EXIFBlock.le16(orientation))],
                        exif: { EXIFBlock.entry(0x9214, 3, UInt32(values.count), EXIFBlock.le32($0)) },
                        data: values.flatMap(EXIFBlock.le16))
    }

    @Test func theCamerasSubjectNearAnEdgeIsKept() throws {
        let folder = try CropFolder()
        // 1600 x 800; the subject a 100 px square centred at (1530, 400).
        let app1 = Self.exifSubjectArea([1530, 400, 100, 100])
        let path = try folder.jpeg("subject.jpg", scenery(width: 1600, height: 800, seed: 4), 1600, 800, app1: app1)
        let (placement, _) = try drawPlaced(path, cell: (400, 400))
        #expect(placement.has_subject == 1)
        #expect(abs(placement.subject.x - 1480.0 / 1600) < 1e-9 && abs(placement.subject.width - 100.0 / 1600) < 1e-9)
        #expect(placement.placed_by == CI_PLACED_SUBJECT)
        #expect(contains(placement.shown, placement.subject))
        // Centre would cut it.
        let centre = try drawPlaced(path, cell: (400, 400), crop: CI_CROP_CENTRE)
        #expect(!contains(centre.0.shown, placement.subject))
    }

    @Test func theSubjectTurnsWithTheOrientation() throws {
        let folder = try CropFolder()
        // Stored 800 x 1600 turned by orientation 6 (90° clockwise) to 1600 x
        // 800; the subject at stored (400, 70) lands upright at (1530, 400).
        let app1 = Self.exifSubjectArea([400, 70, 100, 100], orientation: 6)
        let path = try folder.jpeg("turned.jpg", scenery(width: 800, height: 1600, seed: 5), 800, 1600, app1: app1)
        let (placement, _) = try drawPlaced(path, cell: (400, 400))
        #expect(placement.has_subject == 1)
        #expect(abs(placement.subject.x - 1480.0 / 1600) < 1e-9 && abs(placement.subject.y - 350.0 / 800) < 1e-9)
        #expect(contains(placement.shown, placement.subject))
    }
}

@Suite("The face model")
struct FaceModelTests {
    /// The detector's numbers are compiled in (Sources/CollageFaces/
    /// frontal_face_model.inc, and their separable form in
    /// frontal_face_separable.inc); this regenerates them from the installed
    /// dlib and compares, so they cannot drift from Debian's model unseen.
    @Test func theCompiledInModelIsTheInstalledDlibsModel() throws {
        let run = try ScriptRun(TestData.packageRoot.appendingPathComponent("scripts/faces/make-model.sh"), ["--check"])
        #expect(run.status == 0, "\(run.output)")
    }

    /// The profile and small-face cascades' numbers are compiled in too
    /// (Sources/CollageFaces/profile_face_model.inc, small_face_model.inc):
    /// regenerated from Debian's opencv-data and compared, with the licences
    /// beside them.
    @Test func theCompiledInCascadesAreDebians() throws {
        let run = try ScriptRun(TestData.packageRoot.appendingPathComponent("scripts/faces/make-cascade-models.py"),
                                ["--check"], runBy: ["/usr/bin/env", "python3"])
        #expect(run.status == 0, "\(run.output)")
    }
}
