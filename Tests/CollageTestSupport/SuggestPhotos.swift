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

    /// An exposure bracket (issue #41): a shot and the same scene again
    /// `seconds` later, `stops` EV darker (negative) or brighter, reframed
    /// 3%, as a camera's bracket or a shot taken again after the light was
    /// changed.
    public struct Bracket: Sendable {
        public let sample: String
        public let stops: Double
        public let date: String
        public let seconds: Int
        public init(sample: String, stops: Double, date: String, seconds: Int) {
            self.sample = sample
            self.stops = stops
            self.date = date
            self.seconds = seconds
        }
        public var name: String { String(sample.prefix { $0 != "-" && $0 != "." }) }
        public var pair: [String] { ["\(name).jpg", "\(name)-bracket.jpg"] }
    }

    /// One of each kind: 1 and 2 EV darker, 1 and 2 EV brighter.
    public static let brackets: [Bracket] = [
        Bracket(sample: "astronaut-eileen-collins.jpg", stops: -2, date: "2026:08:01 10:00:00+02:00", seconds: 26),
        Bracket(sample: "chelsea-the-cat.jpg", stops: 1.5, date: "2026:08:01 10:05:00+02:00", seconds: 3),
        Bracket(sample: "coffee-cup.jpg", stops: -1, date: "2026:08:01 10:10:00+02:00", seconds: 40),
        Bracket(sample: "cameraman-grayscale.jpg", stops: 2, date: "2026:08:01 10:15:00+02:00", seconds: 10),
    ]

    /// Writes each bracket's two shots (`Bracket.pair`) into `folder`.
    public static func makeBrackets(in folder: URL, samples: URL, brackets: [Bracket] = brackets) throws {
        let engine = ImageEngine()
        for bracket in brackets {
            let image = try engine.picture(of: Photo(path: samples.appendingPathComponent(bracket.sample).path),
                                           fitting: 640, height: 480)
            var first = exposed(image, stops: 0)
            first.dateTaken = bracket.date
            var second = reframed(exposed(image, stops: bracket.stops), by: 0.03)
            second.dateTaken = later(bracket.date, seconds: bracket.seconds)
            for (name, picture) in zip(bracket.pair, [first, second]) {
                try Data(try engine.encode(picture, as: .standard, options: SaveOptions(quality: 90)))
                    .write(to: folder.appendingPathComponent(name))
            }
        }
    }

    /// A folder as a new user's is (issue #41): photos of very different
    /// sizes (a 100-pixel one, a thumbnail-sized copy of another), an
    /// exposure bracket 26 s apart, photos copied without a capture date,
    /// and a README. Two dated events, on Sep 1 and Sep 3, 2026.
    public enum Mixed {
        /// 100x67: too small for a cell at 1920x1080, never chosen while others fit.
        public static let tiny = "cat-small.jpg"
        public static let thumbnailCopy = "coffee-thumb.jpg"
        public static let bracket = ["cameraman.jpg", "cameraman-bracket.jpg"]
        public static let undated = ["chelsea-the-cat.jpg", "retina-round-alpha.png"]
        public static let readme = "README.txt"
        public static let firstDay = ["astronaut.jpg", "rocket.jpg", tiny, "coffee.jpg", thumbnailCopy] + bracket
        public static let thirdDay = ["astronaut-mirrored.jpg", "cameraman-mirrored.jpg"]

        public static func make(in folder: URL, samples: URL) throws {
            let engine = ImageEngine()
            func picture(_ sample: String, fitting side: Int = 640) throws -> RGBImage {
                try engine.picture(of: Photo(path: samples.appendingPathComponent(sample).path), fitting: side, height: side)
            }
            func write(_ image: RGBImage, _ name: String, _ date: String) throws {
                var dated = image
                dated.dateTaken = date
                try Data(try engine.encode(dated, as: .standard, options: SaveOptions(quality: 90))).write(to: folder.appendingPathComponent(name))
            }
            try write(try picture("astronaut-eileen-collins.jpg"), "astronaut.jpg", "2026:09:01 10:00:00+02:00")
            try write(try picture("rocket-exif-orientation-6.jpg"), "rocket.jpg", "2026:09:01 10:20:00+02:00")
            try write(mirrored(try picture("chelsea-the-cat.jpg", fitting: 100)), tiny, "2026:09:01 10:40:00+02:00")
            try write(try picture("coffee-cup.jpg"), "coffee.jpg", "2026:09:01 11:00:00+02:00")
            try write(try picture("coffee-cup.jpg", fitting: 120), thumbnailCopy, "2026:09:01 11:00:05+02:00")
            try makeBrackets(in: folder, samples: samples, brackets: [
                Bracket(sample: "cameraman-grayscale.jpg", stops: 2, date: "2026:09:01 11:20:00+02:00", seconds: 26)])
            try write(mirrored(try picture("astronaut-eileen-collins.jpg")), "astronaut-mirrored.jpg", "2026:09:03 09:00:00+02:00")
            try write(mirrored(try picture("cameraman-grayscale.jpg")), "cameraman-mirrored.jpg", "2026:09:03 09:10:00+02:00")
            // Copies as they come, without a capture date.
            for name in undated {
                try FileManager.default.copyItem(at: samples.appendingPathComponent(name), to: folder.appendingPathComponent(name))
            }
            try Data("Photos from the trip.\n".utf8).write(to: folder.appendingPathComponent(readme))
        }
    }

    /// An EXIF date ("2026:08:01 10:00:00+02:00") `seconds` later, within its minute's hour.
    public static func later(_ date: String, seconds: Int) -> String {
        let parts = date.split(separator: ":", omittingEmptySubsequences: false)
        // "YYYY", "MM", "DD HH", "MM", "SS+02", "00"
        let minute = Int(parts[3])!, second = Int(parts[4].prefix(2))!
        let total = minute * 60 + second + seconds
        return "\(parts[0]):\(parts[1]):\(parts[2]):" + String(format: "%02d:%02d", total / 60, total % 60)
            + parts[4].dropFirst(2) + (parts.count > 5 ? ":" + parts[5...].joined(separator: ":") : "")
    }

    /// `stops` EV more light, as a camera would have drawn it: the picture's
    /// levels back to linear light (sRGB's curve as a 2.2 gamma), times
    /// 2^stops, clipped as a sensor clips, then through a camera's S-shaped
    /// tone curve (the same for `stops` 0, the bracket's first shot). The
    /// curve is what makes a real bracket more than a gain: mid-tones move
    /// more than shadows and highlights, so the picture's contrast changes.
    public static func exposed(_ image: RGBImage, stops: Double) -> RGBImage {
        let gain = pow(2, stops)
        let table = (0..<256).map { v -> UInt8 in
            let t = pow(min(1, pow(Double(v) / 255, 2.2) * gain), 1 / 2.2)
            let curved = t * t * (3 - 2 * t)
            return UInt8(curved * 255 + 0.5)
        }
        var out = image
        out.pixels = image.pixels.map { table[Int($0)] }
        return out
    }

    /// The picture with `share` of each side cut off (half each side) and
    /// scaled back to its size: the camera turned a little closer.
    public static func reframed(_ image: RGBImage, by share: Double) -> RGBImage {
        var out = image
        let (w, h) = (Double(image.width), Double(image.height))
        let (x0, y0) = (w * share / 2, h * share / 2)
        let (sx, sy) = (1 - share, 1 - share)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let u = min(image.width - 1, Int(x0 + Double(x) * sx)), v = min(image.height - 1, Int(y0 + Double(y) * sy))
                for c in 0..<3 { out.pixels[(y * image.width + x) * 3 + c] = image.pixels[(v * image.width + u) * 3 + c] }
            }
        }
        return out
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
