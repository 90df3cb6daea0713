import ArgumentParser
import CollageKit
import CollageTerminal
import Foundation

struct Pick: ServicedCommand {
    static let configuration = CommandConfiguration(
        commandName: "pick",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Pick photos in a full-screen folder browser.",
        discussion: """
            Opens the photos screen on DIR (default: the current folder): folders
            first, then the photos in it (\(ImageFormat.readTitles), judged
            by content), with a
            preview of the highlighted one. Every pick is stored at once, as with
            `collage add`. When you leave it you are on the collage screen;
            `collage` with no arguments opens that screen directly.

            Photos screen:
              Up/Down, k/j    move           PgUp/PgDn, Home/End  jump
              Enter, Right    open a folder  Enter, Space         add the photo
              Left, Backspace parent folder  /                    filter (Esc clears)
              .               hidden files   q, Esc               back to the collage

            Collage screen:
              Up/Down, k/j  highlight a photo   x, Del  remove it   [ ]  move it
              H J K L       move its crop left, down, up, right (F: back to --crop)
              e             edit its caption (empty: none; as `collage caption`)
              l             next layout: auto, grid, rows, columns
              a             add photos          c       clear (asks first: c or y)
              s             save (asks for a file name; in the folder last browsed)
              ?             every key           q, Esc  quit

            The collage screen draws the collage as `collage save` will, with
            the same options (--size, --dpi, --layout, --gap, --margin,
            --background, --crop, --fit), and saves it with them (and
            --quality) in the layout shown. `l` skips the layouts that cannot
            draw --size (1920x is for rows only, x1080 for columns).

            Ctrl-C quits from anywhere, keeping what was picked, with the status
            130 of an interrupted program. Set COLLAGE_TRACE_RESOURCES=1 to show the
            number of live subscriptions. NO_COLOR is honoured.
            """)

    @Argument(help: ArgumentHelp("The folder to start in.", valueName: "dir"), completion: .directory)
    var directory: String?

    @Option(help: ArgumentHelp("How to draw pictures: auto chooses for this terminal.", valueName: "mode"))
    var graphics: GraphicsMode = .auto

    @OptionGroup var render: RenderOptionGroup

    func run(with services: AppServices) throws {
        // The folder's exact bytes: its name need not be UTF-8.
        let typed = directory.map { RawArguments.bytes(of: [$0])[0] } ?? [UInt8(ascii: ".")]
        let folder = Photo(resolvingFileSystemPath: typed)
        var info = stat()
        var error: Int32 = 0
        let found = folder.withFileSystemPath { path -> Bool in
            if stat(path, &info) == 0 { return true }
            error = errno
            return false
        } == true
        guard found, (info.st_mode & S_IFMT) == S_IFDIR else {
            // A typo'd path is not "not a folder": say what stat found.
            let reason = found ? "not a folder" : error == ENOENT ? "does not exist" : String(cString: strerror(error))
            Console.error("\(folder.path): \(reason)")
            throw ExitCode.failure
        }
        try runTerminalUI(services, photosAt: folder, graphics: graphics, options: try render.renderOptions())
    }
}
