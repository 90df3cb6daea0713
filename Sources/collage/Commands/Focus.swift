import ArgumentParser
import CollageKit

struct Focus: ServicedCommand {
    static let configuration = CommandConfiguration(
        commandName: "focus",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Choose where a photo's crop is centred, or clear that choice.",
        discussion: """
            A photo whose shape differs from its cell's is cropped. X and Y say
            which point of the photo the crop is centred on, as fractions of its
            width and height as you see it (upright): 0 0 is the top left corner,
            0.5 0.5 the middle, 1 1 the bottom right; 25% works too. The crop
            stays on the photo, so a point near an edge takes the crop as far as
            that edge. The focus is kept with the photo and wins over --crop
            smart and attention; --crop centre ignores it. `collage status`
            shows it.

            EXAMPLES:
              collage focus 2 0.5 0.2     keep the top of photo 2 (a head, a sky)
              collage focus 1 30% 50%
              collage focus 2 --clear     back to what --crop decides
            """)

    @Argument(help: ArgumentHelp("The number of the photo, as `collage status` shows it.", valueName: "index"))
    var index: Int

    @Argument(help: ArgumentHelp("Across, from 0 (left) to 1 (right).", valueName: "x"))
    var x: String?

    @Argument(help: ArgumentHelp("Down, from 0 (top) to 1 (bottom).", valueName: "y"))
    var y: String?

    @Flag(help: "Forget the photo's focus: its crop is placed by --crop again.")
    var clear = false

    func validate() throws {
        if clear && (x != nil || y != nil) { throw ValidationError("give X and Y, or --clear, not both") }
        // Also what `focus 1 -0.1 0.5` comes to: ArgumentParser takes "-0.1" for
        // an option, not for X, so it is the rule that a person needs to read.
        if !clear && (x == nil || y == nil) {
            throw ValidationError("give the focus as X Y: \(PhotoFocus.rule), e.g. 0.5 0.2; or --clear")
        }
    }

    func run(with services: AppServices) throws {
        var focus: PhotoFocus?
        if let x, let y {
            do {
                focus = try PhotoFocus(x: try PhotoFocus.fraction(parsing: x), y: try PhotoFocus.fraction(parsing: y))
            } catch let error as ValueError {
                throw ValidationError(error.description)
            }
        }
        try report(try makeCollageViewModel(services).setFocus(focus, at: index - 1))
    }
}
