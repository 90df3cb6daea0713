import ArgumentParser
import CollageKit
import CollageTerminal
import Foundation

struct CollageCommand: ServicedCommand {
    static let configuration = CommandConfiguration(
        commandName: "collage",
        abstract: "Compose photo collages of up to 6 photos (\(ImageFormat.readTitles)), from the terminal.",
        discussion: """
            The collage you are building is kept between commands, in
            $XDG_STATE_HOME/collage (default ~/.local/state/collage). Add photos,
            look at the selection, then save it: saving writes the file and
            empties the selection; a failed save keeps it.

            RULES: a collage holds at most 6 photos; clear needs at least one;
            save needs a non-zero even number (2, 4 or 6). The status heading
            reads Collage, 1 photo or N photos (a title of your own, drawn on the
            collage, is collage title's). A refused action changes nothing.

            LAYOUTS: --layout divides the canvas (its values are listed below);
            --gap spaces the cells, --margin the edge. `save --dry-run --json`
            prints the plan.

            BATCH LISTS (collage batch): one photo path per line; a blank line
            ends a collage; lines starting with # are comments; relative paths
            start from the list's folder.

            FILES: $XDG_STATE_HOME/collage/selection.json (the selection) and
            selection.lock (held while it changes).

            ENVIRONMENT: XDG_STATE_HOME (where the selection is kept); NO_COLOR
            (pictures without colour codes); COLLAGE_TRACE_RESOURCES=1 (the
            picker shows its live subscriptions); COLLAGE_TRACE_LAYOUT=1 (save
            --dry-run says how long the layout took).

            EXIT STATUS: 0 on success; 64 for a usage error (an unknown
            option, a bad value, an output extension collage does not write);
            1 for any other failure (a refused action, a bad photo, a failed
            write); 130 when interrupted (Ctrl-C); 143 when terminated
            (SIGTERM); 129 on a hang-up (SIGHUP). Interrupted, a command gives
            the terminal back first. Errors are one line on stderr, starting
            "collage: ".

            Run `collage` alone on a terminal for the interactive collage screen,
            or `collage pick` to browse folders for photos.

            EXAMPLES:
              collage pick ~/Pictures
              collage add beach.jpg dog.png
              collage status
              collage move 2 1
              collage focus 1 0.5 0.2
              collage title "Summer in Kyoto, 2026"
              collage save -o holiday.jpg --size 3000x2000 --gap 8
              collage save --layout auto --size 1080x1920 --keep
              collage save -o fridge.jpg --size A4 --title "Summer 2026"
              collage save --layout rows --size 1920x --dry-run --json
              collage batch summer.txt -o collages/
              collage clear
            """,
        // What --version prints in full, with the libraries as loaded, is
        // CommandLineEntry's: this text is made for every command.
        version: CollageCommand.version,
        subcommands: [Add.self, Remove.self, Move.self, Focus.self, Caption.self, Title.self, Clear.self, Save.self, Status.self, Batch.self, Pick.self, Suggest.self, Book.self,
                      Preview.self])

    static let version = "0.1.0"

    /// `collage --version`: the version and the libraries as loaded at run
    /// time (loading them costs a few milliseconds, so only here).
    static var fullVersion: String {
        "\(version) (\(ImageEngine.libraryVersions), \(ChafaPictureRenderer.libraryVersion))"
    }

    @OptionGroup var render: RenderOptionGroup

    /// With no subcommand: the collage screen on a terminal, the help otherwise.
    func run(with services: AppServices) throws {
        guard SystemTerminal.isInteractive else {
            print(Self.helpMessage())
            return
        }
        try runTerminalUI(services, photosAt: nil, graphics: .auto, options: try render.renderOptions())
    }
}
