import ArgumentParser
import CollageKit
import Foundation

/// Where the commands' messages go: results on stdout, refusals and errors on
/// stderr as one line prefixed with "collage: ".
enum Console {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("collage: \(printable(message))\n".utf8))
    }

    /// Something worth knowing that does not stop the command.
    static func warning(_ message: String) {
        FileHandle.standardError.write(Data("collage: warning: \(printable(message))\n".utf8))
    }

    /// A line for the person that is neither a result nor an error, on
    /// stderr: where results go when stdout carries something else
    /// (`batch --report -`).
    static func note(_ message: String) {
        FileHandle.standardError.write(Data("\(printable(message))\n".utf8))
    }

    /// `text` safe to print on a terminal, one line: control characters (a
    /// line break in a file name, an escape sequence that would recolour or
    /// clear the screen) are shown as escapes, \n, \t, \r or \u{1B}.
    static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{0}"..."\u{1F}", "\u{7F}"..."\u{9F}":
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// What shells complete photo names with: every extension of every format
/// the engine reads, in lower and upper case.
let photoExtensions = completedExtensions(ImageFormat.all.flatMap(\.extensions))

/// What shells complete `save -o` with: the extensions the engine writes
/// (a name it reads but cannot write, .heic, would be refused).
let savedPhotoExtensions = completedExtensions(ImageFormat.writable.flatMap(\.saveExtensions))

private func completedExtensions(_ extensions: [String]) -> [String] {
    extensions.flatMap { [$0, $0.uppercased()] }
}

/// The shell completion scripts as ArgumentParser writes them, with what
/// they need here.
enum CompletionScript {
    /// bash's: ArgumentParser registers the function with `-o filenames`,
    /// which makes bash add a slash to any word naming a folder, so
    /// `collage ba<Tab>` beside a folder `batch/` offered the folder, not
    /// the command (and a folder `grid` would do the same to `--layout`'s
    /// values). Here the file-name handling is asked for only where files
    /// or folders are completed.
    static func adjusted(_ script: String, shell: String) -> String {
        guard shell == "bash" else { return script }
        return script
            .replacingOccurrences(of: "complete -o filenames -F _collage collage", with: "complete -F _collage collage")
            .replacingOccurrences(of: "__collage_add_completions() {\n",
                                  with: "__collage_add_completions() {\n    [[ \" ${*} \" = *' -W '* ]] || compopt -o filenames 2>/dev/null\n")
    }
}

// The command line's words for what CollageKit reports as values: its
// option names, which the kit never writes (the collage screen, which has
// none of them, words the same errors its own way).

extension CollageFailure {
    /// How the command line words a failure: the view model's line, and the
    /// advice only the command line can give (`save` and `batch` have
    /// --force; they and `add` have --max-pixels).
    var commandLineMessage: String {
        if kind == .outputExists { return "\(message) (use --force to replace it)" }
        return message + maxPixelsAdvice(pixelsNeeded)
    }
}

extension CollageRefusal {
    /// How the command line words a refusal: a photo over the limit with
    /// the --max-pixels that lets it through (`add`, `save` and `batch` have it).
    var commandLineMessage: String {
        switch self {
        case let .unreadablePhoto(_, reason, pixelsNeeded): reason + maxPixelsAdvice(pixelsNeeded)
        case let .unreadablePhotos(refusals): refusals.map(\.commandLineMessage).joined(separator: "; ")
        default: description
        }
    }
}

/// " (--max-pixels 64M lets it through)" for a photo that needs that many pixels.
private func maxPixelsAdvice(_ pixelsNeeded: UInt64?) -> String {
    pixelsNeeded.map { " (--max-pixels \(PixelLimit.admitting($0)) lets it through)" } ?? ""
}

extension CollageEvent {
    /// An outcome as the command line words it.
    var commandLineMessage: String {
        switch self {
        case let .failed(failure): failure.commandLineMessage
        case let .refused(refusal): refusal.commandLineMessage
        default: message
        }
    }
}

extension OpenSide {
    /// "--layout grid cannot be drawn: --size 1920x leaves the height to the
    /// photos, which only rows does; give --size WIDTHxHEIGHT", the layout
    /// named by `layoutWord` (a batch list's "#layout grid").
    func commandLineMessage(layoutWord: String? = nil) -> String {
        "\(layoutWord ?? "--layout \(layout)") cannot be drawn: --size \(reason); give --size WIDTHxHEIGHT"
    }
}

extension BatchWording {
    /// The command line's wording of a batch's failures and skips.
    static let commandLine = BatchWording(failure: { $0.commandLineMessage }, skip: { skip in
        switch skip {
        case let .refused(refusal): refusal.commandLineMessage
        case let .openSide(open, listed): open.commandLineMessage(layoutWord: listed ? "#layout \(open.layout)" : nil)
        case .problem: BatchWording.plain.skip(skip)
        }
    })
}

/// A value CollageKit refused, as the command line words it: with the
/// option's name where the kit's error carries the value (`RenderValueError`,
/// a layout's `OpenSide`); any other error in its own words.
func commandLineMessage(_ error: Error) -> String {
    switch error {
    case let error as RenderValueError:
        switch error {
        case let .negativeGap(gap): return "--gap \(gap) is negative: use 0 or more pixels"
        case let .negativeMargin(margin): return "--margin \(margin) is negative: use 0 or more pixels"
        case let .qualityOutOfRange(quality): return "--quality \(quality) is out of range: use 1 to 100"
        }
    case let error as LayoutError:
        if case let .sideLeftOpen(open) = error.kind { return open.commandLineMessage() }
        return error.message
    case let failure as CollageFailure:
        return failure.commandLineMessage
    default:
        return "\(error)"
    }
}

/// A command that runs on the app's services: `CommandLineEntry`, the
/// composition root, builds them once for the command it parsed (at its
/// `--max-pixels`) and calls `run(with:)` instead of ArgumentParser's `run()`.
protocol ServicedCommand: ParsableCommand {
    /// `--max-pixels`, for the commands that take it.
    var pixelLimit: PixelLimit { get }
    func run(with services: AppServices) throws
}

extension ServicedCommand {
    var pixelLimit: PixelLimit { .default }
}

/// The view model of the interactive collage, over the persistent selection;
/// `notice` is told of a damaged or soft photo (a warning line by default).
func makeCollageViewModel(_ services: AppServices,
                          notice: @escaping @Sendable (PhotoNotice) -> Void = { Console.warning($0.message) }) throws -> CollageViewModel {
    let store = FileSelectionStore(directory: FileSelectionStore.defaultDirectory(), notice: Console.error)
    do {
        return try services.collage(store: store, notice: notice)
    } catch {
        Console.error("\(error)")
        throw ExitCode.failure
    }
}

/// Prints an outcome, escaped as `status` shows names and captions (a line
/// break in a caption would print a second line); a refused or failed one
/// exits non-zero.
func report(_ event: CollageEvent) throws {
    if event.isSuccess {
        print(Console.printable(event.message))
    } else {
        Console.error(event.commandLineMessage)
        throw ExitCode.failure
    }
}

/// `title` and `caption`'s words: TEXT or --clear (one of them, not both),
/// and TEXT valid UTF-8, since bytes that are not would be stored as U+FFFD:
/// each refusal says so instead, naming the `noun`.
func validateTextOrClear(_ text: String?, clear: Bool, noun: String, example: String) throws {
    if clear && text != nil { throw ValidationError("give a \(noun), or --clear, not both") }
    if !clear && text == nil { throw ValidationError("give the \(noun) as TEXT (e.g. \"\(example)\"), or --clear") }
    if let text, RawArguments.isLossy(text) {
        throw ValidationError("the \(noun) is not valid UTF-8: set the terminal to UTF-8, or type it again")
    }
}
