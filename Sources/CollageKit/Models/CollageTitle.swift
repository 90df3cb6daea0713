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
    /// to have no title where this one was given (a batch list's is a line).
    public init(_ raw: String, withoutIt: String = "leave out --title") throws {
        let count = raw.unicodeScalars.count
        guard count <= Self.maximumCharacters else {
            throw OptionError("the title has \(count) characters, over the limit of \(Self.maximumCharacters)")
        }
        text = TextLine.cleaned(raw)
        guard !text.isEmpty else { throw OptionError("the title is empty: give some text, or \(withoutIt)") }
    }

    public var description: String { text }
}
