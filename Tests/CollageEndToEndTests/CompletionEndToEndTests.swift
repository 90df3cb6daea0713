import CollageKit
import CollageTestSupport
import Foundation
import Testing

/// bash's completions as a person meets them: Tab pressed in a real bash, in
/// tmux, with the script `collage --generate-completion-script bash` writes
/// (which `make install` installs).
@Suite(.serialized, .enabled(if: TmuxSession.tmux != nil)) struct CompletionEndToEndTests {
    /// A bash with collage's completions, in a folder holding `batch/` and
    /// `grid/` (names of a command and of a layout) and a file of every
    /// extension the engine reads.
    func shell() throws -> (TmuxSession, URL) {
        let cli = try CLI()
        let folder = cli.workingDirectory
        for name in ["batch", "grid"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        // A file of each extension read and written (photo-heic.heic, photo-avif.avif, photo-pdf.pdf...).
        for ext in Set(ImageFormat.all.flatMap { [$0.extensions[0], $0.saveExtensions[0]] } + ImageFormat.writable.map(\.fileExtension)) {
            try Data().write(to: folder.appendingPathComponent("photo-\(ext)").appendingPathExtension(ext))
        }
        try Data().write(to: folder.appendingPathComponent("notes.txt"))
        let script = folder.appendingPathComponent("collage.bash")
        try Data(try cli.run("--generate-completion-script", "bash").stdout.utf8).write(to: script)
        let bin = CLI.binary.deletingLastPathComponent().path
        let session = try TmuxSession(
            command: "bash --norc --noprofile", environment: ["PATH": "\(bin):/usr/bin:/bin", "PS1": "$ ", "HOME": folder.path],
            folder: folder, columns: 120, rows: 20)
        // Every list at the first Tab: a second one would only ring when the
        // first added a common prefix ("co" of cover and contain).
        try session.type("source '\(script.path)'; bind 'set show-all-if-ambiguous on'; clear")
        try session.keys("Enter")
        // capture-pane drops the spaces that end a line: the prompt is "$".
        try session.waitFor("the prompt") { $0.hasPrefix("$") && !$0.contains("source") }
        return (session, folder)
    }

    /// The screen after typing `line` and Tab.
    func complete(_ session: TmuxSession, _ line: String) throws -> String {
        try session.keys("C-u")
        try session.type(line)
        try session.keys("Tab")
        usleep(600_000)
        let screen = try session.screen()
        try session.keys("C-u")
        try session.type("clear")
        try session.keys("Enter")
        usleep(200_000)
        return screen
    }

    @Test func aCommandIsCompletedBesideAFolderOfItsName() throws {
        let (session, _) = try shell()
        let screen = try complete(session, "collage ba")
        // The line as completed (capture-pane drops its final space): the command, not "batch/".
        #expect(screen.split(separator: "\n").first == "$ collage batch", "\(screen)")
    }

    @Test func modelValuesAreOfferedForCropFitAndLayout() throws {
        let (session, _) = try shell()
        for (option, values) in [("crop", CropMode.allCases.map(\.rawValue)), ("fit", FitMode.allCases.map(\.rawValue)),
                                 ("layout", LayoutMode.allCases.map(\.rawValue))] {
            for command in ["save", "batch list.txt", "pick", "preview"] {
                let screen = try complete(session, "collage \(command) --\(option) ")
                for value in values { #expect(screen.contains(value), "collage \(command) --\(option): \(screen)") }
            }
        }
        // A value that names a folder here too is the value, not the folder.
        let grid = try complete(session, "collage save --layout gr")
        #expect(grid.split(separator: "\n").first == "$ collage save --layout grid", "\(grid)")
    }

    /// `--format` completed nothing: its type is not CaseIterable.
    @Test func formatOffersTheFormatsWritten() throws {
        let (session, _) = try shell()
        for command in ["save -o - --format", "batch list.txt --format"] {
            let screen = try complete(session, "collage \(command) ")
            for format in ImageFormat.writable { #expect(screen.contains(format.fileExtension), "\(command): \(screen)") }
            #expect(!screen.contains("photo-"), "formats, not files: \(screen)")
        }
    }

    @Test func saveOffersOnlyTheFormatsItWrites() throws {
        let (session, _) = try shell()
        let screen = try complete(session, "collage save -o photo-")
        for format in ImageFormat.all {
            // Offered by the extensions it is written as (.avif), not those only read (.heic).
            let read = "photo-\(format.extensions[0]).\(format.extensions[0])"
            #expect(screen.contains(read) == (format.canSave && format.saveExtensions.contains(format.extensions[0])), "\(read): \(screen)")
            if format.canSave {
                let written = "photo-\(format.saveExtensions[0]).\(format.saveExtensions[0])"
                #expect(screen.contains(written), "\(written): \(screen)")
            }
        }
        // A page is written, never read.
        #expect(screen.contains("photo-pdf.pdf"), "\(screen)")
        let add = try complete(session, "collage add photo-")
        for format in ImageFormat.all { #expect(add.contains("photo-\(format.extensions[0])."), "add offers every format read") }
        #expect(!add.contains("notes.txt") && !add.contains("photo-pdf.pdf"))
    }
}
