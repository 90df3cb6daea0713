import ArgumentParser
import CollageKit
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

struct Add: ServicedCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Add photos to the collage.",
        discussion: """
            Every file must be a readable \(ImageFormat.readTitles)
            (judged by its content, not its name), and the collage holds at most
            6 photos. All or nothing: if
            any file is bad, or the files would not fit, nothing is added.
            Photos are recorded by absolute path, in the order given.
            """)

    @Argument(help: ArgumentHelp("The photos to add (\(ImageFormat.readTitles)).", valueName: "file"),
              completion: .file(extensions: photoExtensions))
    var files: [String]

    @OptionGroup var limits: LimitOptionGroup
    var pixelLimit: PixelLimit { limits.maxPixels }

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one photo to add") }
    }

    func run(with services: AppServices) throws {
        // By their exact bytes: a file name need not be UTF-8.
        try Self.add(RawArguments.bytes(of: files).map { Photo(resolvingFileSystemPath: $0) },
                     services: services)
    }

    /// Adds `photos` as one pick (all or nothing, under the collage's rules)
    /// and prints what became of it: `add`'s, and `suggest --add`'s.
    static func add(_ photos: [Photo], services: AppServices) throws {
        let viewModel = try makeCollageViewModel(services)
        let source = CommandLinePhotoSource()
        var outcome: CollageEvent?
        let listening = viewModel.events.sink { outcome = $0 }
        viewModel.bind(picks: source.selectedPhotos)
        source.pick(photos)
        source.close()
        listening.cancel()
        guard let outcome else { return }
        if case .added = outcome {
            print("Added \(photos.count == 1 ? "1 photo" : "\(photos.count) photos"): \(viewModel.currentState.title) in the collage")
        } else {
            try report(outcome)
        }
    }
}
