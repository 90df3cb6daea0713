/// A bad option value, with a message for the person who typed it.
public struct OptionError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
