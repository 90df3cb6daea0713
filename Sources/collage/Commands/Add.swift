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
