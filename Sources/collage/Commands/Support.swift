import ArgumentParser
import CollageKit
import Foundation

/// Where the commands' messages go: results on stdout, refusals and errors on
/// stderr as one line prefixed with "collage: ".
enum Console {
    static func error(_ message: String) {
        // One line even when a file name holds a line break: shown as "\n".
        let line = message.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
        FileHandle.standardError.write(Data("collage: \(line)\n".utf8))
    }
}

extension CollageFailure {
    /// How the command line words a failure: the view model's line, and the
    /// advice only the command line can give (`save` and `batch` have --force).
    var commandLineMessage: String {
        kind == .outputExists ? "\(message) (use --force to replace it)" : message
    }
}

/// The view model of the interactive collage, over the persistent selection.
/// `maxDecodedPixels` is `--max-pixels` (`ImageEngine.maxDecodedPixels`).
func makeCollageViewModel(maxDecodedPixels: UInt64 = ImageEngine.defaultMaxDecodedPixels) throws -> CollageViewModel {
    let store = FileSelectionStore(directory: FileSelectionStore.defaultDirectory(), notice: Console.error)
    let engine = ImageEngine(maxDecodedPixels: maxDecodedPixels)
    do {
        return try CollageViewModel(store: store, inspector: engine, renderer: engine, writer: PhotoWriter(encoder: engine))
    } catch {
        Console.error("\(error)")
        throw ExitCode.failure
    }
}

/// Prints a refused or failed outcome and exits non-zero.
func report(_ event: CollageEvent) throws {
    if event.isSuccess {
        print(event.message)
    } else {
        Console.error(event.message)
        throw ExitCode.failure
    }
}
