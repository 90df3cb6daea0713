import ArgumentParser
import CollageKit
import CollageTerminal
import Foundation

/// Runs the two screens of the original app in this terminal until the
/// person quits. Refuses, with a hint, when there is no terminal.
///
/// The screens live on the main actor; the commands run on the main thread
/// (main.swift calls them), which `MainActor.assumeIsolated` checks. The
/// main thread is parked in `dispatchMain()` after that call returns, not
/// inside it: its closure's context, held only by the parked stack, was a
/// leak at exit for LeakSanitizer (make test-sanitized).
func runTerminalUI(_ services: AppServices, photosAt directory: Photo?, graphics: GraphicsMode,
                   options: CollageRenderOptions) throws {
    let app = try MainActor.assumeIsolated {
        try startScreens(services, photosAt: directory, graphics: graphics, options: options)
    }
    withExtendedLifetime(app) { dispatchMain() }
}

/// The screens started, running on the main queue until the person quits
/// (the app exits the process then).
@MainActor
private func startScreens(_ services: AppServices, photosAt directory: Photo?, graphics: GraphicsMode,
                          options: CollageRenderOptions) throws -> TerminalApp {
    guard SystemTerminal.isInteractive else {
        Console.error("the picker needs a terminal: without one, use `collage add FILE...` or `collage batch LIST`")
        throw ExitCode.failure
    }
    let environment = ProcessInfo.processInfo.environment
    let terminal = SystemTerminal()
    let noColor = ANSIScreenWriter.noColorRequested(in: environment)
    let renderer = ChafaPictureRenderer(kind: GraphicsDetection.pictureKind(for: graphics, environment: environment),
                                        noColor: noColor, terminal: terminal.size)
    // What `add` and `save` tell of a photo (corrupt data, enlarged until
    // soft) cannot go to stderr while the screen is up: a line there would
    // be written over the full-screen picture. Kept, once each (a damaged
    // file is told at add and again at save), and said as warning lines
    // when the terminal is given back, as the commands say them.
    let notices = Locked<[PhotoNotice]>([])
    let noted: @Sendable (PhotoNotice) -> Void = { notice in
        notices.withLock { $0.appendOnce(notice) }
    }
    let coordinator = AppCoordinator(collage: try makeCollageViewModel(services, notice: noted),
                                     previews: services.previews(renderer: renderer),
                                     suggester: services.suggester(cache: MeasuresCache()),
                                     renderOptions: options)
    coordinator.startLiveUpdates()
    var writer = ANSIScreenWriter(noColor: noColor)
    let app = TerminalApp(terminal: terminal, coordinator: coordinator,
                          frame: { writer.frame($0) }, invalidate: { writer.invalidate() },
                          closing: { writer.closingSequence() },
                          traceResources: environment["COLLAGE_TRACE_RESOURCES"] == "1")
    do {
        try app.start(photosAt: directory) { quit in
            notices.current.forEach { Console.warning($0.message) }
            // Ctrl-C arrives as a key (the terminal's signals are off while
            // the screen is up), so the status a shell expects of an
            // interrupted program is given here: 128 + SIGINT.
            exit(quit == .interrupted ? 128 + SIGINT : 0)
        }
    } catch {
        Console.error("\(error)")
        throw ExitCode.failure
    }
    return app
}
