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

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one photo to add") }
    }

    func run() throws {
        let viewModel = try makeCollageViewModel(maxDecodedPixels: limits.maxPixels.pixels)
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
