import Foundation
import Testing
@testable import CollageKit
@testable import CollageTerminal

/// A folder tree in memory (files ending .jpg/.png are photos).
private final class TreeBrowser: DirectoryBrowsing, @unchecked Sendable {
    let tree: [String: [String]]
    init(_ tree: [String: [String]]) { self.tree = tree }
    func list(_ directory: String) throws -> DirectoryListing {
        guard let names = tree[directory] else {
            throw CollageFailure(.folder, path: directory, message: "cannot open \(directory): No such file or directory")
        }
        return DirectoryListing(
            folders: names.filter { $0.hasSuffix("/") }.map {
                DirectoryEntry(name: String($0.dropLast()), path: "\(directory)/\($0.dropLast())", kind: .folder)
            },
            files: names.filter { !$0.hasSuffix("/") }.map { "\(directory)/\($0)" })
    }
    func isPhoto(_ path: String) -> Bool { path.hasSuffix(".jpg") || path.hasSuffix(".png") }
}

private struct AcceptAll: PhotoInspecting {
    func inspect(_ photo: Photo) throws -> PhotoInfo {
        PhotoInfo(format: .jpeg, width: 4, height: 3, orientation: 1, displayWidth: 4, displayHeight: 3, hasAlpha: false)
    }
}

private let now: Deliver = { $0() }

private func makeApp(columns: Int = 80, rows: Int = 24, photos: [String] = [], trace: Bool = false)
    throws -> (TerminalApp, FakeTerminal, AppCoordinator) {
    let browser = TreeBrowser(["/pics": ["b.jpg", "a.jpg", "trips/", "c.png", "readme.txt"], "/pics/trips": []])
    let collage = try CollageViewModel(store: InMemorySelectionStore(photos.map { Photo(path: $0) }), inspector: AcceptAll())
    let coordinator = AppCoordinator(collage: collage, browser: browser, startDirectory: "/pics", deliver: now)
    let terminal = FakeTerminal(columns: columns, rows: rows)
    let app = TerminalApp(terminal: terminal, coordinator: coordinator, frame: { $0.text }, traceResources: trace, schedule: now)
    return (app, terminal, coordinator)
}

/// The scan runs on its own queue: wait until the photos screen lists `count` entries.
private func waitForEntries(_ coordinator: AppCoordinator, _ count: Int) {
    for _ in 0..<400 where (coordinator.photosScreen?.currentState.entries.count ?? -1) < count { usleep(5000) }
}

@Suite struct ScreenViewTests {
    @Test func theCollageScreenShowsTitlePhotosAndDimmedActions() {
        let state = CollageScreenViewModel.screenState(for: CollageState(photos: [Photo(path: "/x/cat.jpg")]))
        let screen = CollageScreenView.render(state, columns: 60, rows: 12)
        let lines = screen.text.components(separatedBy: "\n")
        #expect(lines[0] == " 1 photo")
        #expect(lines[2] == " 1. cat.jpg")
        #expect(lines[11] == " a add  c clear  s save  q quit")
        // "s save" is dimmed: one photo cannot be saved.
        #expect(screen.cells[11][17].character == "s")
        #expect(screen.cells[11][17].style.dim)
        #expect(!screen.cells[11][1].style.dim)
        #expect(screen.cells[0][1].style.bold)
    }

    @Test func thePhotosScreenHighlightsAndScrolls() {
        var state = PhotosScreenState(directory: "/pics")
        state.entries = [DirectoryEntry(name: "trips", path: "/pics/trips", kind: .folder)]
            + (1...30).map { DirectoryEntry(name: "p\($0).jpg", path: "/pics/p\($0).jpg", kind: .photo) }
        state.highlighted = 20
        state.collageTitle = "2 photos"
        let screen = PhotosScreenView.render(state, columns: 70, rows: 14)
        let lines = screen.text.components(separatedBy: "\n")
        #expect(lines[0] == " 2 photos · add photos")
        #expect(lines[1] == " /pics")
        // 9 list rows; the highlight (p20.jpg) sits in the middle.
        let listed = lines[2..<11].map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(listed == ["p16.jpg", "p17.jpg", "p18.jpg", "p19.jpg", "p20.jpg", "p21.jpg", "p22.jpg", "p23.jpg", "p24.jpg"])
        #expect(screen.cells[6][1].style.reverse)
        #expect(!screen.cells[5][1].style.reverse)
        #expect(lines[11].hasPrefix(" 21/31"))
    }

    @Test func aPictureIsPlacedBesideTheList() {
        var state = PhotosScreenState(directory: "/pics")
        state.entries = [DirectoryEntry(name: "a.jpg", path: "/pics/a.jpg", kind: .photo)]
        state.highlighted = 0
        let picture = TerminalPicture(kind: .symbols, columns: 10, rows: 5, lines: Array(repeating: "xxxxxxxxxx", count: 5))
        state.preview = .picture(picture)
        let screen = PhotosScreenView.render(state, columns: 80, rows: 24)
        #expect(screen.pictures == [PlacedPicture(column: 34, row: 2, picture: picture)])
    }

    @Test func aTinyWindowAsksForMoreRoom() {
        let screen = CollageScreenView.render(CollageScreenViewModel.screenState(for: CollageState(photos: [])), columns: 30, rows: 8)
        #expect(screen.text.hasPrefix("Make the window larger"))
    }
}

@Suite struct TerminalAppTests {
    @Test func keysMoveBetweenScreensAndEveryFrameShowsTheFrontOne() throws {
        let (app, terminal, coordinator) = try makeApp()
        try app.start()
        #expect(terminal.lastWrite?.hasPrefix(" Collage\n") == true)
        terminal.send(.character("a"))
        waitForEntries(coordinator, 4)
        terminal.send(.character("j"))  // redraw with the finished list
        let photos = terminal.lastWrite ?? ""
        #expect(photos.hasPrefix(" Collage · add photos\n /pics\n"))
        #expect(photos.contains(" trips/"))
        #expect(photos.contains(" a.jpg\n"))
        #expect(!photos.contains("readme.txt"))
        terminal.send([.enter, .character("q")])
        #expect(coordinator.currentScene == .collage)
        let collage = terminal.lastWrite ?? ""
        #expect(collage.hasPrefix(" 1 photo\n\n 1. a.jpg"))
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
        var quits = 0
        try app.start { quits += 1 }
        terminal.send(.control("c"))
        #expect(!terminal.isStarted)
        #expect(terminal.restoreCount == 1)
        #expect(quits == 1)
        app.stop()
        #expect(quits == 1)
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
        try app.start(photosAt: "/pics/trips")
        #expect(coordinator.currentScene == .photos)
        #expect((terminal.lastWrite ?? "").contains("/pics/trips"))
    }
}
