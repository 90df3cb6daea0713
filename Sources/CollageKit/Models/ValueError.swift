/// A value that cannot be taken (from an option, a batch list's line, a
/// field of the picker), with the reason in the model's words: what is
/// wrong with the value, never where it was typed (no option names: the
/// view that read it says that).
public struct ValueError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// An option whose value is one of a few words (`--layout`, `--fit`,
/// `--crop`, `--caption`): parsed in any case, refused with the words it
/// could be. The command line lists the same words in its help and
/// completions (`allCases`, in this order).
public protocol OptionChoice: RawRepresentable, CaseIterable where RawValue == String {
    /// What the value is called in messages: "layout", "fit".
    static var optionName: String { get }
    /// Other spellings accepted, lower case ("center" for centre); not listed.
    static var aliases: [String: Self] { get }
}

extension OptionChoice {
    public static var aliases: [String: Self] { [:] }

    public init(parsing text: String) throws {
        guard let value = Self(rawValue: text.lowercased()) ?? Self.aliases[text.lowercased()] else {
            let words = Self.allCases.map(\.rawValue)
            let list = words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words.last!
            // A typo is answered with the word it most likely was.
            let meant = NearestWord.nearest(to: text, among: words + Array(Self.aliases.keys)).map { ": did you mean \($0)?" } ?? ""
            throw ValueError("\(Self.optionName) '\(text)' is not \(list)\(meant)")
        }
        self = value
    }
}
