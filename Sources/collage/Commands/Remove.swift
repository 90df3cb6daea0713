import ArgumentParser
import CollageKit

struct Remove: ServicedCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Remove photos from the collage, by their numbers in `collage status`.",
        discussion: """
            Numbers start at 1, as `collage status` shows them. All or nothing:
            a number the collage does not have is refused and nothing changes.
            Example: collage remove 2 4
            """)

    @Argument(help: ArgumentHelp("The numbers of the photos to remove.", valueName: "index"))
    var indices: [Int]

    func validate() throws {
        if indices.isEmpty { throw ValidationError("name at least one photo number to remove") }
    }

    func run(with services: AppServices) throws {
        try report(try makeCollageViewModel(services).remove(at: indices.map { $0 - 1 }))
    }
}
