import Foundation

/// One line of text as the engine draws it: line breaks and tabs become
/// spaces, other control characters are dropped (they have nothing to
/// draw, and the engine refuses them), the ends trimmed. Titles, captions
/// and file names shown as captions all go through here.
public enum TextLine {
    public static func cleaned(_ raw: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in raw.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control:
                if ["\n", "\r", "\t", "\u{0B}", "\u{0C}", "\u{85}"].contains(scalar) { scalars.append(" ") }
            case .lineSeparator, .paragraphSeparator:
                scalars.append(" ")
            default:
                scalars.append(scalar)
            }
        }
        return String(scalars).trimmingCharacters(in: .whitespaces)
    }
}
