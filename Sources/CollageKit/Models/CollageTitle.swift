import Foundation

/// A collage's title (`--title`), checked: at most `maximumCharacters`
/// Unicode scalars, one line as `TextLine` makes it.
public struct CollageTitle: Equatable, Sendable, CustomStringConvertible {
    /// The most characters (Unicode scalars, so a pile of combining marks
    /// counts every one) a title may have: two lines of a wide canvas hold
    /// far fewer, and the rest would only be ellipsised.
    public static let maximumCharacters = 1000

    public let text: String

    /// `withoutIt` is the advice for a title that is empty once trimmed: how
    /// to have no title where this one was given, in the words of the view
    /// that read it (a batch list's is a line; nil: none to give).
    public init(_ raw: String, withoutIt: String? = nil) throws {
        let count = raw.unicodeScalars.count
        guard count <= Self.maximumCharacters else {
            throw ValueError("the title has \(count) characters, over the limit of \(Self.maximumCharacters)")
        }
        text = TextLine.cleaned(raw)
        guard !text.isEmpty else { throw ValueError("the title is empty: give some text" + (withoutIt.map { ", or \($0)" } ?? "")) }
    }

    public var description: String { text }
}

/// Stored as its text (the selection file, `CollageState`); text that is
/// not a title (too long, empty) does not decode.
extension CollageTitle: Codable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(error)")
        }
        // A stored title was cleaned when it was set: anything else was not written by us.
        guard self.text == text else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a title that is not one line")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
