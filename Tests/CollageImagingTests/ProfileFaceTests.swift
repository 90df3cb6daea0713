import CollageFaces
import CollageImaging
import Foundation
import Testing

// cf_find_profiles (Sources/CollageFaces/cascades.cpp): OpenCV's profile-face
// cascade, compiled in, searched as is and mirrored (issue #23). Its
// agreement with OpenCV itself is checked by scripts/faces/compare_profiles.cpp,
// which needs OpenCV; these check what the engine relies on.

/// An 8-bit grey picture.
struct Grey {
    var pixels: [UInt8]
    let width: Int, height: Int

    init(width: Int, height: Int, value: UInt8 = 128) {
        pixels = [UInt8](repeating: value, count: width * height)
        self.width = width
        self.height = height
    }

    init(rgb: [UInt8], width: Int, height: Int) {
        var grey = [UInt8](repeating: 0, count: width * height)
        for i in 0..<width * height {
            let r = Int(rgb[3 * i]) * 299, g = Int(rgb[3 * i + 1]) * 587, b = Int(rgb[3 * i + 2]) * 114
            grey[i] = UInt8((r + g + b) / 1000)
        }
        pixels = grey
        self.width = width
        self.height = height
    }

    var mirrored: Grey {
        var out = self
        for y in 0..<height {
            for x in 0..<width { out.pixels[y * width + x] = pixels[y * width + width - 1 - x] }
        }
        return out
    }

    /// Halved each way, each pixel the mean of four: the engine searches a
    /// reduced picture.
    var halved: Grey {
        var out = Grey(width: width / 2, height: height / 2)
        for y in 0..<out.height {
            for x in 0..<out.width {
                let a = Int(pixels[2 * y * width + 2 * x]) + Int(pixels[2 * y * width + 2 * x + 1])
                let b = Int(pixels[(2 * y + 1) * width + 2 * x]) + Int(pixels[(2 * y + 1) * width + 2 * x + 1])
                out.pixels[y * out.width + x] = UInt8((a + b + 2) / 4)
            }
        }
        return out
    }

    /// This picture with `other` pasted at (left, top).
    func pasting(_ other: Grey, left: Int, top: Int) -> Grey {
        var out = self
        for y in 0..<other.height where top + y >= 0 && top + y < height {
            for x in 0..<other.width where left + x >= 0 && left + x < width {
                out.pixels[(top + y) * width + left + x] = other.pixels[y * other.width + x]
            }
        }
        return out
    }

    func profiles(region: cf_region? = nil, minSize: UInt32 = 0, capacity: Int = 8) -> (count: Int32, faces: [cf_face]) {
        var faces = [cf_face](repeating: cf_face(), count: capacity)
        let count: Int32 = pixels.withUnsafeBufferPointer { buffer in
            if var region {
                return cf_find_profiles(buffer.baseAddress, UInt32(width), UInt32(height), width, &region, minSize,
                                        &faces, Int32(capacity))
            }
            return cf_find_profiles(buffer.baseAddress, UInt32(width), UInt32(height), width, nil, minSize,
                                    &faces, Int32(capacity))
        }
        return (count, Array(faces.prefix(max(0, min(Int(count), capacity)))))
    }
}

extension Cameraman {
    static func grey() throws -> Grey {
        let photo = try decodedRGB(path)
        return Grey(rgb: photo.pixels, width: photo.width, height: photo.height)
    }

    /// His hand-labelled face, in pixels to scale.
    static var faceBox: (x: Double, y: Double, width: Double, height: Double) {
        (Double(face.x), Double(face.y), Double(face.width), Double(face.height))
    }
}

/// Whether the found face's box overlaps the box (x, y, width, height).
func overlaps(_ face: cf_face, _ box: (x: Double, y: Double, width: Double, height: Double)) -> Bool {
    Double(face.x) < box.x + box.width && box.x < Double(face.x + face.width) &&
        Double(face.y) < box.y + box.height && box.y < Double(face.y + face.height)
}

@Suite("Faces in profile")
struct ProfileFaceTests {
    @Test func theCameramanIsFoundFacingEitherWay() throws {
        let cameraman = try Cameraman.grey()
        #expect(cameraman.width == 512 && cameraman.height == 512)
        let face = Cameraman.faceBox
        let mirroredFace = (x: 512 - face.x - face.width, y: face.y, width: face.width, height: face.height)
        // At his own size and at half (about the engine's search size).
        for (picture, scale) in [(cameraman, 1.0), (cameraman.halved, 0.5)] {
            let box = (x: face.x * scale, y: face.y * scale, width: face.width * scale, height: face.height * scale)
            let mirroredBox = (x: mirroredFace.x * scale, y: mirroredFace.y * scale,
                               width: mirroredFace.width * scale, height: mirroredFace.height * scale)
            let asIs = picture.profiles()
            #expect(asIs.count == 1, "\(asIs.faces)")
            #expect(asIs.faces.first.map { overlaps($0, box) } == true, "\(asIs.faces)")
            // Grouped from several windows (OpenCV's min neighbours is 3).
            #expect((asIs.faces.first?.score ?? 0) > 3)
            let mirrored = picture.mirrored.profiles()
            #expect(mirrored.count == 1, "\(mirrored.faces)")
            #expect(mirrored.faces.first.map { overlaps($0, mirroredBox) } == true, "\(mirrored.faces)")
        }
    }

    @Test func noFaceOnABusyPhotoNorOnFlatGrey() {
        // Saturated, striped blobs, as the W6 photos are: a false face there
        // would move their crops.
        for seed in [3.0, 8.0, 21.0] {
            let busy = Grey(rgb: scenery(width: 320, height: 240, seed: seed, busy: true), width: 320, height: 240)
            let found = busy.profiles()
            #expect(found.count == 0, "seed \(seed): \(found.faces)")
        }
        #expect(Grey(width: 320, height: 240).profiles().count == 0)
    }

    @Test func aRegionSkipsWhatEveryCropShows() throws {
        // The cameraman, halved, on a banner three times his width; every
        // crop shows its middle third.
        let cameraman = try Cameraman.grey().halved
        let banner = Grey(width: 768, height: 256)
        let region = cf_region(axis: 1, from: 256, to: 512, reach_before: 0.15, reach_after: 0.15)

        let middle = banner.pasting(cameraman, left: 256 - 40, top: 0)
        #expect(middle.profiles().count == 1, "found without the region")
        let skipped = middle.profiles(region: region)
        #expect(skipped.count == 0, "\(skipped.faces)")

        // Near an edge he can change the crop: still found.
        let edge = banner.pasting(cameraman, left: 0, top: 0)
        let found = edge.profiles(region: region)
        #expect(found.count == 1, "\(found.faces)")
        let face = Cameraman.faceBox
        #expect(found.faces.first.map {
            overlaps($0, (x: face.x / 2, y: face.y / 2, width: face.width / 2, height: face.height / 2))
        } == true)
        // And on the other edge, mirrored (facing into the picture).
        let other = banner.pasting(cameraman.mirrored, left: 768 - 256, top: 0)
        #expect(other.profiles(region: region).count == 1)
        // A region the other way (down) that his face reaches out of.
        let down = cf_region(axis: 2, from: 100, to: 256, reach_before: 0.15, reach_after: 0.15)
        #expect(middle.profiles(region: down).count == 1)
    }

    @Test func aLargerMinimumSizeAndCapacity() throws {
        let cameraman = try Cameraman.grey().halved
        // His face is about 50 pixels high here.
        #expect(cameraman.profiles(minSize: 100).count == 0)
        // Capacity 0 counts without writing.
        var face = cf_face(x: -1, y: -1, width: -1, height: -1, score: -1)
        let count = cameraman.pixels.withUnsafeBufferPointer {
            cf_find_profiles($0.baseAddress, 256, 256, 256, nil, 0, &face, 0)
        }
        #expect(count == 1)
        #expect(face.x == -1 && face.score == -1)
        #expect(cameraman.pixels.withUnsafeBufferPointer { cf_find_profiles($0.baseAddress, 256, 256, 256, nil, 0, nil, 4) } == 1)
    }

    @Test func tinyAndDegeneratePicturesFindNothing() {
        let one: [UInt8] = [77]
        #expect(one.withUnsafeBufferPointer { cf_find_profiles($0.baseAddress, 1, 1, 1, nil, 0, nil, 0) } == 0)
        var faces = [cf_face](repeating: cf_face(), count: 4)
        // Narrower or lower than the cascade's 20 x 20 window.
        let thin = [UInt8](repeating: 90, count: 19 * 300)
        #expect(thin.withUnsafeBufferPointer { cf_find_profiles($0.baseAddress, 19, 300, 19, nil, 0, &faces, 4) } == 0)
        #expect(thin.withUnsafeBufferPointer { cf_find_profiles($0.baseAddress, 300, 19, 300, nil, 0, &faces, 4) } == 0)
        // Rows longer than the picture (stride > width), their tails busy:
        // not read.
        var strided = [UInt8](repeating: 128, count: 64 * 40)
        for y in 0..<40 { for x in 40..<64 { strided[y * 64 + x] = UInt8((x * 37 + y * 91) % 256) } }
        #expect(strided.withUnsafeBufferPointer { cf_find_profiles($0.baseAddress, 40, 40, 64, nil, 0, &faces, 4) } == 0)
        // Rows shorter than the picture, no pixels, no size: nothing searched.
        #expect(strided.withUnsafeBufferPointer { cf_find_profiles($0.baseAddress, 64, 40, 32, nil, 0, &faces, 4) } == 0)
        #expect(cf_find_profiles(nil, 64, 40, 64, nil, 0, &faces, 4) == 0)
        #expect(strided.withUnsafeBufferPointer { cf_find_profiles($0.baseAddress, 0, 0, 0, nil, 0, &faces, 4) } == 0)
        // A region from after its end (nothing every crop shows): everywhere.
        var backwards = cf_region(axis: 1, from: 30, to: 10, reach_before: 0, reach_after: 0)
        #expect(strided.withUnsafeBufferPointer { cf_find_profiles($0.baseAddress, 40, 40, 64, &backwards, 0, &faces, 4) } == 0)
    }
}
