import ArgumentParser
import CollageKit

struct Caption: ServicedCommand {
    static let configuration = CommandConfiguration(
        commandName: "caption",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Give a photo a caption of your own, or clear it.",
        discussion: """
            The caption is kept with the photo (`collage status` shows it) and is
            drawn at the bottom of the photo's cell (at its top where the bottom
            would cover a face). It is UTF-8 text of at most
            \(Photo.maximumCaptionLength) characters; surrounding spaces are trimmed.

            EXAMPLES:
              collage caption 2 "Grandma, 1962"
              collage caption 2 --clear
            """)

    @Argument(help: ArgumentHelp("The number of the photo, as `collage status` shows it.", valueName: "index"))
    var index: Int

    @Argument(help: ArgumentHelp("The caption.", valueName: "text"))
    var text: String?

    @Flag(help: "Forget the photo's caption.")
    var clear = false

    func validate() throws {
        try validateTextOrClear(text, clear: clear, noun: "caption", example: "Grandma, 1962")
    }

    func run(with services: AppServices) throws {
        var caption: String?
        if let text {
            do {
                caption = try Photo.caption(parsing: text, withoutIt: "--clear")
            } catch let error as ValueError {
                throw ValidationError(error.description)
            }
        }
        try report(try makeCollageViewModel(services).setCaption(caption, at: index - 1))
    }
}
