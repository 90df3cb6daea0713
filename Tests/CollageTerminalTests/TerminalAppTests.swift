import Foundation
import CollageTestSupport
import Testing
@testable import CollageKit
@testable import CollageTerminal

@MainActor
private func makeApp(columns: Int = 80, rows: Int = 24, photos: [String] = [], trace: Bool = false)
    throws -> (TerminalApp, FakeTerminal, AppCoordinator) {
    let browser = FakeBrowser(["/pics": ["b.jpg", "a.jpg", "trips/", "c.png", "readme.txt"], "/pics/trips": []])
    let collage = try CollageViewModel(store: InMemorySelectionStore(photos.map { Photo(path: $0) }), inspector: FakeInspector(),
                                       renderer: FakeRenderer(), writer: FakeWriter())
    let coordinator = AppCoordinator(collage: collage, browser: browser, startDirectory: "/pics",
                                     scanQueue: scan)
    let terminal = FakeTerminal(columns: columns, rows: rows)
    let app = TerminalApp(terminal: terminal, coordinator: coordinator, frame: { $0.text }, traceResources: trace, schedule: immediately)
    return (app, terminal, coordinator)
}

/// Folders are judged here; `await settle(scan)` waits until a list is complete.
private let scan = DispatchQueue(label: "test.scan")

@MainActor @Suite struct TerminalAppTests {
    @Test func keysMoveBetweenScreensAndEveryFrameShowsTheFrontOne() async throws {
        let (app, terminal, coordinator) = try makeApp()
        try app.start()
        #expect(terminal.lastWrite?.hasPrefix(" Collage\n") == true)
        terminal.send(.character("a"))
        await settle(scan)
        #expect(coordinator.photosScreen?.currentState.entries.count == 4)
        terminal.send(.character("j"))  // redraw with the finished list
        let photos = terminal.lastWrite ?? ""
        #expect(photos.hasPrefix(" Collage · add photos\n /pics\n"))
        #expect(photos.contains(" trips/"))
        #expect(photos.contains(" a.jpg\n"))
        #expect(!photos.contains("readme.txt"))
        terminal.send([.enter, .character("q")])
        #expect(coordinator.currentScene == .collage)
        let collage = terminal.lastWrite ?? ""
        // (The second row shows the layout, above the picture.)
        #expect(collage.hasPrefix(" 1 photo\n"))
        #expect(collage.contains("auto layout  1920x1080\n 1. a.jpg"))
    }

    @Test func resizesRedrawAtTheNewSize() throws {
        let (app, terminal, _) = try makeApp(columns: 80, rows: 24)
        try app.start()
        terminal.resize(to: TerminalSize(columns: 50, rows: 12))
        let lines = (terminal.lastWrite ?? "").components(separatedBy: "\n")
        #expect(lines.count == 12)
        #expect(lines[11].hasPrefix(" a add"))
    }

    @Test func quittingRestoresTheTerminalOnce() throws {
        let (app, terminal, _) = try makeApp()
        var quits: [AppCoordinator.Quit] = []
        try app.start { quits.append($0) }
        terminal.send(.control("c"))
        #expect(!terminal.isStarted)
        #expect(terminal.restoreCount == 1)
        #expect(quits == [.interrupted])
        app.stop()
        #expect(quits == [.interrupted])
    }

    @Test func aFailingStartRestoresTheTerminal() throws {
        let (app, terminal, _) = try makeApp()
        terminal.startError = TerminalError.notATerminal
        #expect(throws: TerminalError.notATerminal) { try app.start() }
        #expect(!terminal.isStarted)
    }

    @Test func theResourceCountIsShownAndStaysFlat() throws {
        let (app, terminal, coordinator) = try makeApp(trace: true)
        try app.start()
        let first = (terminal.lastWrite ?? "").components(separatedBy: "\n")[0]
        #expect(first.hasSuffix("resources: \(coordinator.resources)"))
        let baseline = coordinator.resources
        for _ in 0..<10 {
            terminal.send(.character("a"))
            terminal.send(.character("q"))
        }
        #expect(coordinator.resources == baseline)
        #expect((terminal.lastWrite ?? "").components(separatedBy: "\n")[0].hasSuffix("resources: \(baseline)"))
    }

    @Test func pickStartsOnThePhotosScreen() throws {
        let (app, terminal, coordinator) = try makeApp()
        try app.start(photosAt: Photo(path: "/pics/trips"))
        #expect(coordinator.currentScene == .photos)
        #expect((terminal.lastWrite ?? "").contains("/pics/trips"))
    }
}
