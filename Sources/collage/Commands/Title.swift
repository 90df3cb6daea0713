import ArgumentParser
import CollageKit

struct Title: ServicedCommand {
    static let configuration = CommandConfiguration(
        commandName: "title",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Give the collage a title of your own, or clear it.",
        discussion: """
            The title is kept with the selection (`collage status` shows it; the
            collage screen's t sets the same) and drawn in a band across the top
            by `collage save`, which then forgets it with the photos, as `collage
            clear` does; `save --title` draws another for that save only.
            It is one line of UTF-8 text, at most \(CollageTitle.maximumCharacters) characters;
            surrounding spaces are trimmed.

            EXAMPLES:
              collage title "Summer in Kyoto, 2026"
              collage title --clear
            """)

    @Argument(help: ArgumentHelp("The title.", valueName: "text"))
    var text: String?

    @Flag(help: "Forget the collage's title.")
    var clear = false

    func validate() throws {
        try validateTextOrClear(text, clear: clear, noun: "title", example: "Summer in Kyoto, 2026")
    }

    func run(with services: AppServices) throws {
        var title: CollageTitle?
        if let text {
            do {
                title = try CollageTitle(text, withoutIt: "--clear")
            } catch let error as ValueError {
                throw ValidationError(error.description)
            }
        }
        try report(try makeCollageViewModel(services).setTitle(title))
    }
}
