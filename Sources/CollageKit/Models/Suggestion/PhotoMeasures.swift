import Foundation

/// What `collage suggest` knows of one photo (issue #33): its measures from
/// the engine's cheapest picture of it (`ci_measure_photo`), when it was
/// taken, and, once looked for, its faces. Cached (`MeasuresCache`), so
/// every field is plain data.
public struct PhotoMeasures: Codable, Equatable, Sendable {
    /// The upright photo's size.
    public var width: Int
    public var height: Int
    /// When it was taken, by the camera's clock (EXIF); nil when the file
    /// does not say: never the file's time, which for a copy is the copy's.
    public var taken: PhotoTime?
    /// The DCT hash: near-duplicates differ in few of its 64 bits.
    public var hash: UInt64
    /// The gradient hash (which cells of a 9 x 8 grey copy are brighter
    /// than their left neighbour): shots of one scene at different
    /// exposures (a bracket) keep it.
    public var gradientHash: UInt64
    /// The variance of the Laplacian of the grey picture measured: only
    /// comparable between shots of one scene (its scale is the scene's).
    public var sharpness: Double
    /// Shares of the picture in clipped shadows and highlights, and its mean
    /// grey level (0-1).
    public var darkShare: Double
    public var brightShare: Double
    public var meanLevel: Double
    /// Measured on the thumbnail the file carries (a JPEG's EXIF one, a
    /// HEIF's own), else on the smallest decode.
    public var fromThumbnail: Bool
    /// How often the measuring decode read past broken data or the end of a
    /// file cut short (libjpeg's warnings); 0 for a whole, clean file.
    public var corruptData: Int
    /// The smart crop's faces; nil until they were looked for (only photos
    /// still in the running are).
    public var faces: Int?

    public init(width: Int, height: Int, taken: PhotoTime?, hash: UInt64, gradientHash: UInt64? = nil, sharpness: Double,
                darkShare: Double = 0, brightShare: Double = 0, meanLevel: Double = 0.5, fromThumbnail: Bool = false,
                corruptData: Int = 0, faces: Int? = nil) {
        self.width = width
        self.height = height
        self.taken = taken
        self.hash = hash
        self.gradientHash = gradientHash ?? hash
        self.sharpness = sharpness
        self.darkShare = darkShare
        self.brightShare = brightShare
        self.meanLevel = meanLevel
        self.fromThumbnail = fromThumbnail
        self.corruptData = corruptData
        self.faces = faces
    }

    enum CodingKeys: String, CodingKey {
        case width, height, taken, hash, gradientHash, sharpness, darkShare, brightShare, meanLevel, fromThumbnail, corruptData, faces
    }

    /// The hashes as 16 hex digits: a JSON number is a double, which would
    /// round a 64-bit hash.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func hex(_ key: CodingKeys) throws -> UInt64 {
            guard let value = UInt64(try c.decode(String.self, forKey: key), radix: 16) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not a hex hash")
            }
            return value
        }
        width = try c.decode(Int.self, forKey: .width)
        height = try c.decode(Int.self, forKey: .height)
        taken = try c.decodeIfPresent(PhotoTime.self, forKey: .taken)
        hash = try hex(.hash)
        gradientHash = try hex(.gradientHash)
        sharpness = try c.decode(Double.self, forKey: .sharpness)
        darkShare = try c.decode(Double.self, forKey: .darkShare)
        brightShare = try c.decode(Double.self, forKey: .brightShare)
        meanLevel = try c.decode(Double.self, forKey: .meanLevel)
        fromThumbnail = try c.decode(Bool.self, forKey: .fromThumbnail)
        corruptData = try c.decode(Int.self, forKey: .corruptData)
        faces = try c.decodeIfPresent(Int.self, forKey: .faces)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encodeIfPresent(taken, forKey: .taken)
        try c.encode(String(hash, radix: 16), forKey: .hash)
        try c.encode(String(gradientHash, radix: 16), forKey: .gradientHash)
        try c.encode(sharpness, forKey: .sharpness)
        try c.encode(darkShare, forKey: .darkShare)
        try c.encode(brightShare, forKey: .brightShare)
        try c.encode(meanLevel, forKey: .meanLevel)
        try c.encode(fromThumbnail, forKey: .fromThumbnail)
        try c.encode(corruptData, forKey: .corruptData)
        try c.encodeIfPresent(faces, forKey: .faces)
    }

    /// Clipped shadows and highlights together.
    public var clippedShare: Double { darkShare + brightShare }
}

/// When a photo was taken: the engine's capture date (EXIF DateTimeOriginal,
/// else DateTimeDigitized, else DateTime, else the GPS's UTC date and time),
/// with its offset where the photo says one (else read in this machine's
/// time zone).
public struct PhotoTime: Codable, Equatable, Sendable {
    /// Seconds since 1970 UTC: the order photos were taken in, and the gaps
    /// between them.
    public var instant: Double
    /// The wall clock where it was taken, as seconds since 1970 read as UTC:
    /// the day a title names (a photo taken at 23:30 in Tokyo is of that
    /// day, wherever it is looked at).
    public var wallClock: Double

    public init(instant: Double, wallClock: Double) {
        self.instant = instant
        self.wallClock = wallClock
    }

    /// The engine's date ("2026:07:04 18:30:00", "+02:00" after it when the
    /// photo says its zone); nil when there is none, or it is no date.
    public init?(exif: String?, zone: TimeZone = .current) {
        guard let exif, let parsed = Self.parse(exif, zone: zone) else { return nil }
        self = parsed
    }

    /// The wall clock of an EXIF date ("2026:07:04 18:30:00", anything
    /// after it ignored) as seconds since 1970 read as UTC, or nil when it is
    /// not a date (the 30th of February is not rolled into March): a
    /// photo's time here and a caption's date (`CaptionSource`).
    public static func wallClock(exif text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19 else { return nil }
        return wallClock(bytes)
    }

    private static func number(_ bytes: [UInt8], _ from: Int, _ count: Int) -> Int? {
        let digits = bytes[from..<(from + count)]
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(String(decoding: digits, as: UTF8.self))
    }

    private static func wallClock(_ bytes: [UInt8]) -> Double? {
        guard let year = number(bytes, 0, 4), let month = number(bytes, 5, 2), let day = number(bytes, 8, 2),
              let hour = number(bytes, 11, 2), let minute = number(bytes, 14, 2), let second = number(bytes, 17, 2)
        else { return nil }
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let asked = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        // Calendar rolls an impossible date over; a date is one that comes back as asked.
        guard let wall = utc.date(from: asked),
              utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: wall) == asked
        else { return nil }
        return wall.timeIntervalSince1970
    }

    private static func parse(_ text: String, zone: TimeZone) -> PhotoTime? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19, let wallClock = wallClock(bytes) else { return nil }
        let wall = Date(timeIntervalSince1970: wallClock)
        var offset: Int
        if bytes.count >= 25, let hours = number(bytes, 20, 2), let minutes = number(bytes, 23, 2),
           bytes[19] == UInt8(ascii: "+") || bytes[19] == UInt8(ascii: "-") {
            offset = (hours * 60 + minutes) * 60 * (bytes[19] == UInt8(ascii: "-") ? -1 : 1)
        } else {
            // Wall clock in this zone: its offset at about that time.
            offset = zone.secondsFromGMT(for: wall)
            offset = zone.secondsFromGMT(for: wall.addingTimeInterval(-Double(offset)))
        }
        return PhotoTime(instant: wallClock - Double(offset), wallClock: wallClock)
    }

    /// ISO 8601 with the offset it was taken at ("2026-07-04T18:30:00+02:00").
    public var iso8601: String {
        let offset = Int((wallClock - instant).rounded())
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(secondsFromGMT: offset) ?? TimeZone(identifier: "UTC")!
        return formatter.string(from: Date(timeIntervalSince1970: instant))
    }
}

/// A photo and its measures.
public struct MeasuredPhoto: Equatable, Sendable {
    public let photo: Photo
    public var measures: PhotoMeasures

    public init(photo: Photo, measures: PhotoMeasures) {
        self.photo = photo
        self.measures = measures
    }
}
