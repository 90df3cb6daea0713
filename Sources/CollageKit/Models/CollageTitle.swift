import Foundation

/// A collage's title (`--title`), checked: at most `maximumCharacters`
/// Unicode scalars, one line as `TextLine` makes it.
public struct CollageTitle: Equatable, Sendable, CustomStringConvertible {
    /// The most characters (Unicode scalars, so a pile of combining marks
    /// counts every one) a title may have: two lines of a wide canvas hold
    /// far fewer, and the rest would only be ellipsised.
    public static let maximumCharacters = 1000

    public let text: String

    public init(_ raw: String) throws {
        let count = raw.unicodeScalars.count
        guard count <= Self.maximumCharacters else {
            throw OptionError("the title has \(count) characters, over the limit of \(Self.maximumCharacters)")
        }
        text = TextLine.cleaned(raw)
        guard !text.isEmpty else { throw OptionError("the title is empty: give some text, or leave out --title") }
    }

    public var description: String { text }
}
