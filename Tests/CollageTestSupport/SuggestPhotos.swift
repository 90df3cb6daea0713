import CollageKit
import Foundation

/// The photos `collage suggest`'s tests choose from (issue #33), made from
/// this project's own CC0 samples at 640 x 480 by the engine itself:
/// three events on three days, with a burst of near-duplicates, blurred
/// and darkened copies of an original, people and no people, and mirrored
/// copies as further scenes. Each carries its EXIF date (ci_encode writes
/// DateTimeOriginal and OffsetTimeOriginal).
public enum SuggestPhotos {
    public struct Shot: Sendable {
        public let name: String
        public let sample: String
        public let date: String
        public let change: Change
    }

    public enum Change: Sendable { case none, blurred, darkened, mirrored, requantised }

    /// In the order taken.
    public static let shots: [Shot] = [
        Shot(name: "astronaut.jpg", sample: "astronaut-eileen-collins.jpg", date: "2026:07:04 10:00:00+02:00", change: .none),
        Shot(name: "astronaut-blurred.jpg", sample: "astronaut-eileen-collins.jpg", date: "2026:07:04 10:00:01+02:00", change: .blurred),
        Shot(name: "astronaut-dark.jpg", sample: "astronaut-eileen-collins.jpg", date: "2026:07:04 10:00:02+02:00", change: .darkened),
        Shot(name: "cat.jpg", sample: "chelsea-the-cat.jpg", date: "2026:07:04 10:03:00+02:00", change: .none),
        Shot(name: "cat-again.jpg", sample: "chelsea-the-cat.jpg", date: "2026:07:04 10:03:01+02:00", change: .requantised),
        Shot(name: "coffee.jpg", sample: "coffee-cup.jpg", date: "2026:07:04 10:10:00+02:00", change: .none),
        Shot(name: "cameraman.jpg", sample: "cameraman-grayscale.jpg", date: "2026:07:05 15:00:00+02:00", change: .none),
        Shot(name: "cameraman-blurred.jpg", sample: "cameraman-grayscale.jpg", date: "2026:07:05 15:00:02+02:00", change: .blurred),
        Shot(name: "rocket.jpg", sample: "rocket-exif-orientation-6.jpg", date: "2026:07:05 15:05:00+02:00", change: .none),
        Shot(name: "astronaut-mirrored.jpg", sample: "astronaut-eileen-collins.jpg", date: "2026:07:05 15:06:00+02:00", change: .mirrored),
        Shot(name: "cat-mirrored.jpg", sample: "chelsea-the-cat.jpg", date: "2026:07:07 09:00:00+02:00", change: .mirrored),
        Shot(name: "coffee-mirrored.jpg", sample: "coffee-cup.jpg", date: "2026:07:07 09:01:00+02:00", change: .mirrored),
        Shot(name: "cameraman-mirrored.jpg", sample: "cameraman-grayscale.jpg", date: "2026:07:07 09:02:00+02:00", change: .mirrored),
    ]

    /// Those no choice may take while their original is there.
    public static let neverChosen: Set<String> = ["astronaut-blurred.jpg", "astronaut-dark.jpg", "cameraman-blurred.jpg"]

    /// Writes the shots into `folder`; `samples` is SampleImages/.
    public static func make(in folder: URL, samples: URL) throws {
        let engine = ImageEngine()
        var pictures: [String: RGBImage] = [:]
        for shot in shots {
            if pictures[shot.sample] == nil {
                pictures[shot.sample] = try engine.picture(of: Photo(path: samples.appendingPathComponent(shot.sample).path),
                                                           fitting: 640, height: 480)
            }
            var image = pictures[shot.sample]!
            switch shot.change {
            case .none, .requantised: break
            case .blurred: image = blurred(image)
            case .darkened: image.pixels = image.pixels.map { UInt8(Double($0) * 0.2) }
            case .mirrored: image = mirrored(image)
            }
            image.dateTaken = shot.date
            let bytes = try engine.encode(image, as: .standard,  // JPEG
                                          options: SaveOptions(quality: shot.change == .requantised ? 70 : 90))
            try Data(bytes).write(to: folder.appendingPathComponent(shot.name))
        }
    }

    /// Three passes of a box blur 9 pixels wide, across then down: close
    /// to a Gaussian of 4.5 pixels, a photo well out of focus.
    public static func blurred(_ image: RGBImage) -> RGBImage {
        var out = image
        for _ in 0..<3 {
            for vertical in [false, true] {
                let source = out.pixels
                let (outer, inner) = vertical ? (image.width, image.height) : (image.height, image.width)
                for o in 0..<outer {
                    for i in 0..<inner {
                        for c in 0..<3 {
                            var sum = 0, n = 0
                            for k in max(0, i - 4)...min(inner - 1, i + 4) {
                                let (x, y) = vertical ? (o, k) : (k, o)
                                sum += Int(source[(y * image.width + x) * 3 + c])
                                n += 1
                            }
                            let (x, y) = vertical ? (o, i) : (i, o)
                            out.pixels[(y * image.width + x) * 3 + c] = UInt8(sum / n)
                        }
                    }
                }
            }
        }
        return out
    }

    public static func mirrored(_ image: RGBImage) -> RGBImage {
        var out = image
        for y in 0..<image.height {
            for x in 0..<image.width {
                for c in 0..<3 {
                    out.pixels[(y * image.width + x) * 3 + c] = image.pixels[(y * image.width + image.width - 1 - x) * 3 + c]
                }
            }
        }
        return out
    }
}
