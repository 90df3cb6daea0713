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

    static func main(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        // `collage help NAME` for a NAME that is no command: ArgumentParser
        // would print the general help and succeed.
        if arguments.first == "help", arguments.count > 1,
           !CollageCommand.configuration.subcommands.contains(where: { $0._commandName == arguments[1] }) {
            Console.error("no command '\(arguments[1])' (see 'collage --help')")
            exit(usageError)
        }
        do {
            var command = try CollageCommand.parseAsRoot(arguments)
            try command.run()
            exit(0)
        } catch let code as ExitCode {
            exit(code.rawValue)  // the command has said why
        } catch {
            let status = CollageCommand.exitCode(for: error)
            if status == .success {
                // --help, --version and the like: not errors.
                print(CollageCommand.fullMessage(for: error))
                exit(0)
            }
            let message = CollageCommand.message(for: error)
            let usage = status == .validationFailure || error is OptionError
            // One line: ArgumentParser's message, without its "Error: " and the usage block.
            let line = message.split(separator: "\n").first.map(String.init) ?? "\(error)"
            Console.error(line.hasPrefix("Error: ") ? String(line.dropFirst(7)) : line)
            exit(usage ? usageError : 1)
        }
    }
}
