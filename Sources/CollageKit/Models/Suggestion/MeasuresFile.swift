import Foundation

/// What a file is now, by `stat`: the cache's key besides its path. A file
/// changed in place changes its size or its modification time.
public struct FileStamp: Codable, Equatable, Sendable {
    public var size: Int64
    /// Modification time, seconds since 1970 (to the nanosecond).
    public var modified: Double

    public init(size: Int64, modified: Double) {
        self.size = size
        self.modified = modified
    }
}

/// The measures cache's file of before (issue #43 replaced it with
/// `MeasuresCache`'s database, which imports it once) as bytes: its
/// checksum's line, then the JSON of every entry by key. Pure functions of bytes, in a
/// file that needs only the measures' models, so that the reader is fuzzed
/// as it is (Fuzz/FuzzMeasuresCache.swift).
enum MeasuresFile {
    struct Entry: Codable, Equatable, Sendable {
        var stamp: FileStamp
        var measures: PhotoMeasures
    }

    struct Contents: Codable {
        var version: Int
        var photos: [String: Entry]
    }

    /// 2: the gradient hash, the corrupt data, and no file time for an
    /// undated photo (issue #41). 3: measured on the one reduced picture
    /// the analyses share (issue #42: sharpness and exposure move in their
    /// last digits), so a photo measured before is measured again rather
    /// than compared with numbers made otherwise.
    static let version = 3

    /// The entries the file holds; nil when it is damaged (its checksum
    /// fails, it does not parse as this version's, or it holds a value the
    /// measures never have) and so must be rebuilt, never trusted in part.
    static func entries(reading bytes: [UInt8]) -> [String: Entry]? {
        guard let json = checked(bytes),
              let contents = try? JSONDecoder().decode(Contents.self, from: Data(json)), contents.version == version,
              contents.photos.values.allSatisfy(\.isPlausible) else { return nil }
        return contents.photos
    }

    /// The photo of a key: a path's text, or after "b64:" the bytes of a
    /// name that is not UTF-8 in base64 (an absolute path starts with "/",
    /// so the two never meet); nil for neither.
    static func photo(key: String) -> Photo? {
        guard key.hasPrefix("b64:") else { return key.hasPrefix("/") ? Photo(path: key) : nil }
        return Data(base64Encoded: String(key.dropFirst(4))).map { Photo(fileSystemPath: Array($0)) }
    }

    static func bytes(of entries: [String: Entry]) throws -> [UInt8] {
        let json = Array(try JSONEncoder().encode(Contents(version: version, photos: entries)))
        return Array(checksum(json).utf8) + [UInt8(ascii: "\n")] + json
    }

    /// The file is its checksum's line, then the JSON: a byte changed
    /// anywhere (a disk's error, a hand's edit) that still parses would
    /// otherwise be trusted as a measure.
    static func checked(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let json = bytes[(newline + 1)...]
        guard String(decoding: bytes[..<newline], as: UTF8.self) == checksum(json) else { return nil }
        return json
    }

    /// FNV-1a, 64 bits, as 16 hex digits.
    static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

extension MeasuresFile.Entry {
    /// What a stat and a measure can give: a checksum guards against a
    /// disk's errors, not against a file written with a correct checksum
    /// over values no measure has (a size below zero, a share above one,
    /// an infinite time, which the writer could not even write back).
    var isPlausible: Bool {
        let m = measures
        // Not an array of the shares: this is asked of every row a warm run reads.
        let shares = (0...1).contains(m.darkShare) && (0...1).contains(m.brightShare) && (0...1).contains(m.meanLevel)
        return stamp.size >= 0 && stamp.modified.isFinite && m.width > 0 && m.height > 0
            && m.sharpness.isFinite && m.sharpness >= 0 && shares
            && (m.taken.map { $0.instant.isFinite && $0.wallClock.isFinite } ?? true)
            && (m.position.map { (-90...90).contains($0.latitude) && (-180...180).contains($0.longitude) } ?? true)
            && m.corruptData >= 0 && (m.faces ?? 0) >= 0
    }
}
