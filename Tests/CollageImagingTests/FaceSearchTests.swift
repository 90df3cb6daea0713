import CollageFaces
import CollageImaging
import Testing

// cf_find_faces, the face search under the smart crop: dlib's frontal face
// detector with its filters made separable beforehand, run by the copy for
// this processor (x86-64-v3 or any x86-64, issue #23).

private func search(_ pixels: [UInt8], _ width: Int, _ height: Int, stride: Int? = nil) -> [cf_face] {
    var faces = [cf_face](repeating: cf_face(), count: 16)
    let found = pixels.withUnsafeBufferPointer { buffer in
        cf_find_faces(buffer.baseAddress, UInt32(width), UInt32(height), stride ?? width, 0.2, &faces, 16)
    }
    return Array(faces.prefix(Int(max(0, min(found, 16)))))
}

@Suite("Face search (cf_find_faces)")
struct FaceSearchTests {
    @Test func theAstronautsFaceIsFoundWhereDlibFramesIt() throws {
        let astronaut = try Astronaut.pixels()
        // Grey, with a stride wider than the picture.
        let stride = astronaut.width + 7
        var grey = [UInt8](repeating: 0, count: stride * astronaut.height)
        for y in 0..<astronaut.height {
            for x in 0..<astronaut.width {
                let p = (y * astronaut.width + x) * 3
                let red = 77 * Int(astronaut.pixels[p]), green = 150 * Int(astronaut.pixels[p + 1])
                grey[y * stride + x] = UInt8((red + green + 29 * Int(astronaut.pixels[p + 2]) + 128) >> 8)
            }
        }
        let faces = search(grey, astronaut.width, astronaut.height, stride: stride)
        // dlib 19.24's own get_frontal_face_detector() frames her face at
        // (146, 82), 97 x 97, scoring 1.56 (measured with Debian's dlib);
        // the copies for other processors add up in another order.
        try #require(faces.count == 1, "\(faces)")
        #expect(faces[0].x == 146 && faces[0].y == 82 && faces[0].width == 97 && faces[0].height == 97)
        #expect(abs(faces[0].score - 1.560) < 0.005, "score \(faces[0].score)")
    }

    @Test func aSearchOfNothingOrTooSmallFindsNothing() {
        #expect(search([UInt8](repeating: 128, count: 200 * 150), 200, 150).isEmpty)
        #expect(search([7], 1, 1).isEmpty)
        #expect(search([UInt8](repeating: 9, count: 40 * 40), 40, 40).isEmpty)
        #expect(search([], 0, 0).isEmpty)
    }
}
