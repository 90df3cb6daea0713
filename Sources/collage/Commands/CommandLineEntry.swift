import ArgumentParser
import CollageKit
import Foundation

/// Runs `collage` and turns every way it can end into the same shape:
/// results on stdout; every error as one line "collage: ..." on stderr
/// (argument errors included, which ArgumentParser would print as "Error:"
/// with a usage block); exit status 0 on success, 64 (EX_USAGE) for a usage
/// error, 1 for any other failure.
enum CommandLineEntry {
    /// sysexits.h: the command was used incorrectly.
    static let usageError: Int32 = 64

    /// The subcommands' names.
    static var commandNames: [String] {
        var names: [String] = []
        for command in CollageCommand.configuration.subcommands { names.append(command._commandName) }
        return names
    }

    /// The word where a command name goes (after `help`, if that is first)
    /// when it is not one; nil when it is, or when an option comes first.
    static func unknownCommand(in arguments: [String]) -> String? {
        let position = arguments.count > 2 && arguments[1] == "help" ? 2 : 1
        guard arguments.count > position else { return nil }
        let word = arguments[position]
        if word.hasPrefix("-") || commandNames.contains(word) || (position == 1 && word == "help") { return nil }
        return word
    }

    /// Reads CommandLine.arguments in place, copying nothing: a command may
    /// end the process from deep inside (the picker exits from its run loop),
    /// and a copy held by this frame would then be reported as leaked.
    static func main() -> Never {
        // A word where a command goes that is none (`collage sav`, which
        // ArgumentParser calls an unexpected argument), and `collage help
        // NAME` for such a NAME (ArgumentParser would print the general help
        // and succeed): named, with the command it most likely meant.
        if let word = unknownCommand(in: CommandLine.arguments) {
            let meant = NearestWord.nearest(to: word, among: commandNames + ["help"])
            Console.error("no command '\(word)'" + (meant.map { ": did you mean '\($0)'?" } ?? " (see 'collage --help')"))
            exit(usageError)
        }
        do {
            var command = try CollageCommand.parseAsRoot()
            if let serviced = command as? any ServicedCommand {
                // The one place the services are built (at the command's --max-pixels).
                try serviced.run(with: AppServices(maxDecodedPixels: serviced.pixelLimit.pixels))
            } else {
                try command.run()
            }
            exit(0)
        } catch let code as ExitCode {
            exit(code.rawValue)  // the command has said why
        } catch {
            let status = CollageCommand.exitCode(for: error)
            if status == .success {
                // --help, --version and the like: not errors.
                var text = CollageCommand.fullMessage(for: error)
                if text == CollageCommand.version { text = CollageCommand.fullVersion }
                let arguments = CommandLine.arguments
                if let flag = arguments.firstIndex(where: { $0.hasPrefix("--generate-completion-script") }) {
                    let joined = arguments[flag].split(separator: "=", maxSplits: 1)
                    let shell = joined.count == 2 ? String(joined[1]) : flag + 1 < arguments.count ? arguments[flag + 1] : ""
                    text = CompletionScript.adjusted(text, shell: shell)
                }
                print(text)
                exit(0)
            }
            let message = CollageCommand.message(for: error)
            let usage = status == .validationFailure || error is ValueError
            // One line: ArgumentParser's message, without its "Error: " and the usage block,
            // in the tool's words, and for a value a model refused, the model's reason
            // (ArgumentMessage.swift, ModelArguments.swift).
            var line = message.split(separator: "\n").first.map(String.init) ?? "\(error)"
            if line.hasPrefix("Error: ") { line = String(line.dropFirst(7)) }
            let command = CommandLine.arguments.dropFirst().first { commandNames.contains($0) }
            Console.error(ArgumentMessage.reworded(line, refusal: ArgumentRefusal.last.current, command: command))
            exit(usage ? usageError : 1)
        }
    }
}
