import CollageKit
import Foundation

/// ArgumentParser's own sentences, in the tool's one style (issue #44): each
/// error starts lower case with what it is about, `--format: 'gif' is not a
/// format collage writes (...)`, not "The value 'gif' is invalid for
/// '--format <format>'. Please provide one of...". ArgumentParser has no
/// public error type to tell them apart, so its first line is matched; a
/// line in no known shape (one of ours, a ValidationError) is left as it is.
enum ArgumentMessage {
    /// `line` reworded. `refusal`: why a model refused the value it names,
    /// if one did; `command`: the subcommand typed, for where help is.
    static func reworded(_ line: String, refusal: ArgumentRefusal?, command: String?) -> String {
        let help = "see 'collage\(command.map { " " + $0 } ?? "") --help'"
        if let parts = match(line, #"^The value '(.*)' is invalid for '([^']+)'(?:[:.].*)?$"#) {
            let (value, target) = (parts[0], parts[1])
            // '--gap <px>' or a positional's '<index>'.
            let words = target.split(separator: " ", maxSplits: 1).map(String.init)
            let option = words[0].hasPrefix("-") ? words[0] : nil
            let valueName = option == nil ? target : words.count > 1 ? words[1] : target
            let reason = refusal.flatMap { $0.value == value ? $0.reason : nil }
                ?? "'\(value)' is not a valid \(valueName)"
            return option.map { "\($0): \(reason)" } ?? reason
        }
        if let parts = match(line, #"^Missing value for '(-\S+) ([^']+)'$"#) {
            return "\(parts[0]): its value is missing (\(parts[0]) \(parts[1]))"
        }
        if let parts = match(line, #"^Missing expected argument '([^']+)'$"#) {
            return "missing \(parts[0]) (\(help))"
        }
        if let parts = match(line, #"^Unexpected argument '(.*)'$"#) {
            return "unexpected argument '\(parts[0])' (\(help))"
        }
        if let parts = match(line, #"^\d+ unexpected arguments: (.*)$"#) {
            return "unexpected arguments \(parts[0]) (\(help))"
        }
        if let parts = match(line, #"^Unknown option '([^']*)'(?:\. Did you mean '([^']*)'\?)?$"#) {
            // ArgumentParser suggests its nearest option however far it is
            // (`--zzz`: "--size"); offered only when it is a typo's distance.
            let meant = parts.count > 1 && !parts[1].isEmpty
                ? NearestWord.nearest(to: parts[0], among: [parts[1]]) : nil
            return "unknown option '\(parts[0])'" + (meant.map { ": did you mean '\($0)'?" } ?? " (\(help))")
        }
        return line
    }

    /// The captured groups of `pattern` in `line` (an unmatched optional
    /// group as ""), nil when it does not match.
    private static func match(_ line: String, _ pattern: String) -> [String]? {
        guard let expression = try? NSRegularExpression(pattern: pattern),
              let found = expression.firstMatch(in: line, range: NSRange(line.startIndex..., in: line))
        else { return nil }
        return (1..<found.numberOfRanges).map { index in
            Range(found.range(at: index), in: line).map { String(line[$0]) } ?? ""
        }
    }
}
