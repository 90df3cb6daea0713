import ArgumentParser
import CollageKit
import CollageTerminal
import Foundation

/// Runs the two screens of the original app in this terminal until the
/// person quits. Refuses, with a hint, when there is no terminal.
func runTerminalUI(photosAt directory: Photo?, graphics: GraphicsMode, options: CollageRenderOptions) throws {
    guard SystemTerminal.isInteractive else {
        Console.error("the picker needs a terminal: without one, use `collage add FILE...` or `collage batch LIST`")
        throw ExitCode.failure
    }
    let environment = ProcessInfo.processInfo.environment
    let terminal = SystemTerminal()
    let noColor = ANSIScreenWriter.noColorRequested(in: environment)
    let renderer = ChafaPictureRenderer(kind: GraphicsDetection.pictureKind(for: graphics, environment: environment),
                                        noColor: noColor, terminal: terminal.size)
    // Not to stderr: a line there would be written over the full-screen picture.
    let coordinator = AppCoordinator(collage: try makeCollageViewModel(notice: { _ in }), previews: PreviewService(renderer: renderer),
                                     suggester: SuggestService(measurer: ImageEngine(), cache: MeasuresCache()),
                                     renderOptions: options)
    coordinator.startLiveUpdates()
    var writer = ANSIScreenWriter(noColor: noColor)
    let app = TerminalApp(terminal: terminal, coordinator: coordinator,
                          frame: { writer.frame($0) }, invalidate: { writer.invalidate() },
                          closing: { writer.closingSequence() },
                          traceResources: environment["COLLAGE_TRACE_RESOURCES"] == "1")
    do {
        try app.start(photosAt: directory) { exit(0) }
    } catch {
        Console.error("\(error)")
        throw ExitCode.failure
    }
    dispatchMain()
}
