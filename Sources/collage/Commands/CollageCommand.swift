import ArgumentParser
import CollageKit
import CollageTerminal
import Foundation

struct CollageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collage",
        abstract: "Compose photo collages of up to 6 JPEG or PNG photos, from the terminal.",
        discussion: """
            The collage you are building is kept between commands, in
            $XDG_STATE_HOME/collage (default ~/.local/state/collage). Add photos,
            look at the selection, then save it: saving needs an even number of
            photos (2, 4 or 6), writes the file and empties the selection.

            Layout: 1-2 photos sit side by side; 3-6 fill a grid of 2 rows. Each
            photo covers its cell, centred, and the overflow is cropped.

            Run `collage` alone on a terminal for the interactive collage screen,
            or `collage pick` to browse folders for photos.

            Examples:
              collage pick ~/Pictures
              collage add beach.jpg dog.png
              collage status
              collage save -o holiday.jpg --size 3000x2000 --gap 8
              collage clear
            """,
        version: "0.1.0 (\(ImageEngine.libraryVersions), \(ChafaPictureRenderer.libraryVersion))",
        subcommands: [Add.self, Remove.self, Move.self, Clear.self, Save.self, Status.self, Batch.self, Pick.self,
                      Preview.self])

    /// With no subcommand: the collage screen on a terminal, the help otherwise.
    func run() throws {
        guard SystemTerminal.isInteractive else {
            print(Self.helpMessage())
            return
        }
        try runTerminalUI(photosAt: nil, graphics: .auto)
    }
}
