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

    /// Reads CommandLine.arguments in place, copying nothing: a command may
    /// end the process from deep inside (the picker exits from its run loop),
    /// and a copy held by this frame would then be reported as leaked.
    static func main() -> Never {
        // `collage help NAME` for a NAME that is no command: ArgumentParser
        // would print the general help and succeed.
        if CommandLine.arguments.count > 2, CommandLine.arguments[1] == "help",
           !CollageCommand.configuration.subcommands.contains(where: { $0._commandName == CommandLine.arguments[2] }) {
            Console.error("no command '\(CommandLine.arguments[2])' (see 'collage --help')")
            exit(usageError)
        }
        do {
            var command = try CollageCommand.parseAsRoot()
            try command.run()
            exit(0)
        } catch let code as ExitCode {
            exit(code.rawValue)  // the command has said why
        } catch {
            let status = CollageCommand.exitCode(for: error)
            if status == .success {
                // --help, --version and the like: not errors.
                let message = CollageCommand.fullMessage(for: error)
                print(message == CollageCommand.version ? CollageCommand.fullVersion : message)
                exit(0)
            }
            let message = CollageCommand.message(for: error)
            let usage = status == .validationFailure || error is OptionError
            // One line: ArgumentParser's message, without its "Error: " and the usage block,
            // and for a value a model refused, the model's reason (ModelArguments.swift).
            var line = message.split(separator: "\n").first.map(String.init) ?? "\(error)"
            if line.hasPrefix("Error: ") { line = String(line.dropFirst(7)) }
            Console.error(ArgumentRefusal.last.current?.explaining(line) ?? line)
            exit(usage ? usageError : 1)
        }
    }
}
