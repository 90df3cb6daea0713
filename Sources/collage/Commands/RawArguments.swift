import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The command line as the bytes the shell passed.
///
/// A Linux file name need not be UTF-8, but Swift's `CommandLine.arguments`
/// (and so ArgumentParser) turns each argument into a String, replacing bytes
/// that are not UTF-8 with U+FFFD: a name like "caf\xe9.jpg" (Latin-1) would
/// then name a file that does not exist. These helpers find the exact bytes
/// behind a parsed value again.
enum RawArguments {
    /// argv[1...], byte for byte.
    static let all: [[UInt8]] = (1..<Int(CommandLine.argc)).map { index in
        guard let argument = CommandLine.unsafeArgv[index] else { return [] }
        return Array(UnsafeBufferPointer(start: UnsafeRawPointer(argument).assumingMemoryBound(to: UInt8.self),
                                         count: strlen(argument)))
    }

    /// The exact bytes behind each of `values`, parsed from the command line
    /// in this order. A value without U+FFFD came from a valid UTF-8 argument
    /// and is its own bytes; one with U+FFFD is matched, in order, with the
    /// next argument that decodes to it.
    static func bytes(of values: [String], in arguments: [[UInt8]] = all) -> [[UInt8]] {
        var next = 0
        return values.map { value in
            guard value.contains("\u{FFFD}") else { return Array(value.utf8) }
            for index in next..<arguments.count where String(decoding: arguments[index], as: UTF8.self) == value {
                next = index + 1
                return arguments[index]
            }
            return Array(value.utf8)
        }
    }

    /// Whether `value` came from an argument that is not valid UTF-8, so
    /// that the String does not hold the name that was typed.
    static func isLossy(_ value: String, in arguments: [[UInt8]] = all) -> Bool {
        guard value.contains("\u{FFFD}") else { return false }
        return arguments.contains { String(validating: $0, as: UTF8.self) == nil
            && String(decoding: $0, as: UTF8.self).contains(value) }
    }

    /// Every value given to the option called `names` (`-o X`, `--output X`,
    /// `--output=X`), in order, up to a `--` that ends the options: what
    /// ArgumentParser, which keeps the last, cannot tell.
    static func values(of names: [String], in arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> [String] {
        var values: [String] = []
        var index = 0
        while index < arguments.count, arguments[index] != "--" {
            let argument = arguments[index]
            if names.contains(argument), index + 1 < arguments.count {
                values.append(arguments[index + 1])
                index += 2
                continue
            }
            if let name = names.first(where: { argument.hasPrefix($0 + "=") }) {
                values.append(String(argument.dropFirst(name.count + 1)))
            }
            index += 1
        }
        return values
    }

    /// `-o` given more than once: ArgumentParser keeps the last silently, and
    /// where a save or a batch writes must not depend on the order of two.
    static func refuseRepeatedOutput(in arguments: [String] = Array(CommandLine.arguments.dropFirst())) throws {
        let outputs = values(of: ["-o", "--output"], in: arguments)
        guard outputs.count > 1 else { return }
        throw ValidationError("-o is given \(outputs.count) times (\(outputs.map { "'\($0)'" }.joined(separator: ", "))): give one output")
    }
}
