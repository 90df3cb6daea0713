import ArgumentParser
import CollageKit
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Add photos to the collage.",
        discussion: """
            Every file must be a readable JPEG, PNG, HEIC/HEIF/AVIF or WebP
            (judged by its content, not its name), and the collage holds at most
            6 photos. All or nothing: if
            any file is bad, or the files would not fit, nothing is added.
            Photos are recorded by absolute path, in the order given.
            """)

    @Argument(help: ArgumentHelp("The photos to add (JPEG, PNG, HEIC, HEIF, AVIF or WebP).", valueName: "file"),
              completion: .file(extensions: photoExtensions))
    var files: [String]

    @OptionGroup var limits: LimitOptionGroup

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one photo to add") }
    }

    func run() throws {
        let viewModel = try makeCollageViewModel(maxDecodedPixels: limits.maxPixels)
        let source = CommandLinePhotoSource()
        var outcome: CollageEvent?
        let listening = viewModel.events.sink { outcome = $0 }
        viewModel.bind(picks: source.selectedPhotos)
        // By their exact bytes: a file name need not be UTF-8.
        source.pick(RawArguments.bytes(of: files).map { Photo(resolvingFileSystemPath: $0) })
        source.close()
        listening.cancel()
        guard let outcome else { return }
        if case .added = outcome {
            print("Added \(files.count == 1 ? "1 photo" : "\(files.count) photos"): \(viewModel.currentState.title) in the collage")
        } else {
            try report(outcome)
        }
    }
}

struct Clear: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Remove every photo from the collage (refused when it is empty).")

    func run() throws {
        try report(try makeCollageViewModel().clear())
    }
}

struct Remove: ParsableCommand {
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

    func run() throws {
        try report(try makeCollageViewModel().remove(at: indices.map { $0 - 1 }))
    }
}

struct Move: ParsableCommand {
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

    func run() throws {
        try report(try makeCollageViewModel().move(from: from - 1, to: to - 1))
    }
}

struct Focus: ParsableCommand {
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
        if !clear && (x == nil || y == nil) { throw ValidationError("give the focus as X Y (e.g. 0.5 0.2), or --clear") }
    }

    func run() throws {
        var focus: PhotoFocus?
        if let x, let y {
            do {
                focus = try PhotoFocus(x: try PhotoFocus.fraction(parsing: x), y: try PhotoFocus.fraction(parsing: y))
            } catch let error as OptionError {
                throw ValidationError(error.description)
            }
        }
        try report(try makeCollageViewModel().setFocus(focus, at: index - 1))
    }
}

struct Caption: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "caption",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Give a photo a caption of your own, or clear it.",
        discussion: """
            The caption is kept with the photo (`collage status` shows it) and is
            drawn at the bottom of the photo's cell. It is UTF-8 text of at most
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
        if clear && text != nil { throw ValidationError("give a caption, or --clear, not both") }
        if !clear && text == nil { throw ValidationError("give the caption as TEXT (e.g. \"Grandma, 1962\"), or --clear") }
        // Bytes that are not UTF-8 would be stored as U+FFFD: say so instead.
        if let text, RawArguments.isLossy(text) {
            throw ValidationError("the caption is not valid UTF-8: set the terminal to UTF-8, or type it again")
        }
    }

    func run() throws {
        var caption: String?
        if let text {
            do {
                caption = try Photo.caption(parsing: text)
            } catch let error as OptionError {
                throw ValidationError(error.description)
            }
        }
        try report(try makeCollageViewModel().setCaption(caption, at: index - 1))
    }
}
