import ArgumentParser
import CollageKit

struct Move: ServicedCommand {
    static let configuration = CommandConfiguration(
        commandName: "move",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Move a photo to another place in the collage (and so another cell).",
        discussion: """
            Numbers start at 1, as `collage status` shows them; the photos in
            between shift by one. Example: collage move 4 1 makes the fourth photo
            the first, in the top-left cell.
            """)

    @Argument(help: ArgumentHelp("The number of the photo to move.", valueName: "from"))
    var from: Int

    @Argument(help: ArgumentHelp("The number it gets.", valueName: "to"))
    var to: Int

    func run(with services: AppServices) throws {
        try report(try makeCollageViewModel(services).move(from: from - 1, to: to - 1))
    }
}
