import ArgumentParser
import CollageKit
import CollageTerminal
import Foundation

struct Preview: ServicedCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Draw the current collage in the terminal, once.",
        discussion: """
            Prints the collage you are building as a picture on standard output,
            without the interactive screens: for scripts and quick looks. It is
            drawn in the proportions of the canvas `collage save` would make
            with the same --size and --layout, as wide as the terminal (80
            columns when standard output is not a terminal).

            Pictures are Unicode symbols in 24-bit colour, or sixel, kitty or
            iTerm2 graphics when the terminal supports them; --graphics forces a
            mode. 'auto' uses symbols when standard output is not a terminal and
            inside tmux or screen. With NO_COLOR set, symbols carry no colours.
            """)

    @Option(help: ArgumentHelp("How to draw: auto chooses for this terminal (symbols when not writing to one).", valueName: "mode"))
    var graphics: GraphicsMode = .auto

    @Option(help: ArgumentHelp("Width in columns (default: the terminal's, or 80).", valueName: "cols"))
    var width: Int?

    @Option(help: ArgumentHelp("Height in rows (default: what the width needs, within the terminal).", valueName: "rows"))
    var height: Int?

    @OptionGroup var layout: LayoutOptionGroup

    /// Far beyond any screen; keeps a typo from rendering a gigapixel canvas.
    static let maximumCells = 1000

    func validate() throws {
        for (name, value) in [("--width", width), ("--height", height)] {
            if let value, !(1...Self.maximumCells).contains(value) {
                throw ValidationError("\(name) must be 1 to \(Self.maximumCells), not \(value)")
            }
        }
    }

    func run(with services: AppServices) throws {
        let state = try makeCollageViewModel(services).currentState
        guard !state.photos.isEmpty else {
            Console.error("the collage is empty")
            throw ExitCode.failure
        }

        let environment = ProcessInfo.processInfo.environment
        let terminal = SystemTerminal.size(of: STDOUT_FILENO)   // nil when standard output is not a terminal
        // Graphics protocols written into a pipe or a file are rarely wanted:
        // 'auto' means symbols there.
        let kind = graphics == .auto && terminal == nil
            ? .symbols
            : GraphicsDetection.pictureKind(for: graphics, environment: environment)
        let renderer = ChafaPictureRenderer(
            kind: kind, noColor: ANSIScreenWriter.noColorRequested(in: environment), terminal: terminal)

        let previews = services.previews(renderer: renderer)
        // Drawn as a save would draw it: with the collage's own title unless --title gives one.
        let options = try layout.renderOptions().titled(state.collageTitle)
        let columns = width ?? terminal?.columns ?? 80
        let picture: TerminalPicture
        do {
            let plan = try previews.collagePlan(state.photos, options: options)
            // By default no more rows than the terminal shows, keeping a line for the prompt.
            var rows = height ?? previews.collageRows(columns: columns, canvas: plan.canvas)
            if height == nil, let terminal { rows = max(1, min(rows, terminal.rows - 1)) }
            picture = try previews.collagePicture(state.photos, options: options, columns: columns, rows: rows, plan: plan)
        } catch {
            // A layout with no room for the photos is the options' fault, as in `save`: 64.
            let failure = CollageFailure(error)
            Console.error(failure.message)
            throw ExitCode(failure.kind == .options ? CommandLineEntry.usageError : 1)
        }
        let output = picture.kind == .symbols ? picture.lines.joined(separator: "\n") : picture.lines.joined()
        FileHandle.standardOutput.write(Data((output + "\n").utf8))
        // A preview draws any count; said after the picture, where it is not scrolled away.
        if let refusal = CollageRules.saveRefusal(count: state.count) {
            Console.warning("save will refuse this collage: \(refusal)")
        }
    }
}
