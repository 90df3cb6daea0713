import Dispatch
import Foundation
import Testing
@testable import CollageKit
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// A folder tree in memory. Files whose name ends in .jpg or .png are photos,
/// unless the name contains "fake" (a photo by name only).
final class FakeBrowser: DirectoryBrowsing, @unchecked Sendable {
    var tree: [String: [String]]
    var unreadable: Set<String> = []

    init(_ tree: [String: [String]]) { self.tree = tree }

    func list(_ directory: String) throws -> DirectoryListing {
        if unreadable.contains(directory) {
            throw CollageFailure(.folder, path: directory, message: "cannot open \(directory): Permission denied")
        }
        guard let names = tree[directory] else {
            throw CollageFailure(.folder, path: directory, message: "cannot open \(directory): No such file or directory")
        }
        let folders = names.filter { $0.hasSuffix("/") }.map { String($0.dropLast()) }
            .map { DirectoryEntry(name: $0, path: "\(directory)/\($0)", kind: .folder) }
            .sorted { naturalOrder($0.name, $1.name) }
        let files = names.filter { !$0.hasSuffix("/") }.map { "\(directory)/\($0)" }
        return DirectoryListing(folders: folders, files: files)
    }

    func isPhoto(_ path: String) -> Bool {
        (path.hasSuffix(".jpg") || path.hasSuffix(".png")) && !path.contains("fake")
    }
}

/// Previews on the spot: the picture's only line names what it shows.
final class FakePreviews: PreviewProviding {
    private(set) var requests: [String] = []

    func photoPreview(_ photo: Photo, columns: Int, rows: Int,
                      completion: @escaping (Result<TerminalPicture, Error>) -> Void) -> PreviewTicket {
        requests.append(photo.fileName)
        completion(.success(TerminalPicture(kind: .symbols, columns: columns, rows: rows, lines: [photo.fileName])))
        return PreviewTicket()
    }

    func collagePreview(_ photos: [Photo], columns: Int, rows: Int,
                        completion: @escaping (Result<TerminalPicture, Error>) -> Void) -> PreviewTicket {
        completion(.success(TerminalPicture(kind: .symbols, columns: columns, rows: rows,
                                            lines: [photos.map(\.fileName).joined(separator: "+")])))
        return PreviewTicket()
    }
}

let immediately: Deliver = { $0() }

/// Waits (up to two seconds) for work that finishes on another queue.
func waitUntil(_ condition: () -> Bool) {
    for _ in 0..<400 where !condition() { usleep(5000) }
}

/// A photos screen whose background scan is finished before it returns.
func makePhotosScreen(_ browser: FakeBrowser, at directory: String, collage: CollageViewModel,
                      previews: PreviewProviding? = nil) -> (PhotosViewModel, DispatchQueue) {
    let scan = DispatchQueue(label: "test.scan")
    let screen = PhotosViewModel(directory: directory, collageState: collage.state, collageEvents: collage.events,
                                 browser: browser, previews: previews, resources: collage.resources,
                                 deliver: immediately, scanQueue: scan)
    collage.bind(picks: screen.selectedPhotos)
    scan.sync {}
    return (screen, scan)
}

func names(_ screen: PhotosViewModel) -> [String] { screen.currentState.entries.map(\.name) }

@Suite struct PhotosViewModelTests {
    let browser = FakeBrowser([
        "/p": ["img10.jpg", "img2.jpg", "Zebra/", "notes.txt", "fake.jpg", ".hidden.png", "alpha/", "img1.png", ".secret/"],
        "/p/alpha": ["a.jpg", "b.jpg"],
        "/p/Zebra": [],
    ])

    @Test func foldersFirstThenPhotosInNaturalOrderHiddenOnlyOnRequest() throws {
        let collage = try makeViewModel()
        let (screen, scan) = makePhotosScreen(browser, at: "/p", collage: collage)
        #expect(names(screen) == ["alpha", "Zebra", "img1.png", "img2.jpg", "img10.jpg"])
        #expect(screen.currentState.highlighted == 0)
        screen.handle(.character("."))
        scan.sync {}
        #expect(names(screen) == [".secret", "alpha", "Zebra", ".hidden.png", "img1.png", "img2.jpg", "img10.jpg"])
        #expect(screen.currentState.showHidden)
    }

    @Test func movingAndOpeningFolders() throws {
        let collage = try makeViewModel()
        let (screen, scan) = makePhotosScreen(browser, at: "/p", collage: collage)
        screen.setPageSize(2)
        screen.handle(.down)
        #expect(screen.currentState.highlightedEntry?.name == "Zebra")
        screen.handle(.character("j"))
        screen.handle(.character("j"))
        #expect(screen.currentState.highlightedEntry?.name == "img2.jpg")
        screen.handle(.character("k"))
        #expect(screen.currentState.highlightedEntry?.name == "img1.png")
        screen.handle(.end)
        #expect(screen.currentState.highlightedEntry?.name == "img10.jpg")
        screen.handle(.down)
        #expect(screen.currentState.highlighted == 4, "the highlight stops at the end")
        screen.handle(.pageUp)
        #expect(screen.currentState.highlightedEntry?.name == "img1.png")
        screen.handle(.home)
        screen.handle(.enter)  // opens "alpha"
        scan.sync {}
        #expect(screen.currentState.directory == "/p/alpha")
        #expect(names(screen) == ["a.jpg", "b.jpg"])
        screen.handle(.left)
        scan.sync {}
        #expect(screen.currentState.directory == "/p")
        #expect(screen.currentState.highlightedEntry?.name == "alpha", "back on the folder we came from")
        screen.handle(.down)
        screen.handle(.right)  // Right opens a folder too
        #expect(screen.currentState.directory == "/p/Zebra")
        #expect(names(screen).isEmpty)
        screen.handle(.backspace)
        scan.sync {}
        #expect(screen.currentState.highlightedEntry?.name == "Zebra")
    }

    @Test func enterAndSpaceAddPhotosUntilTheCollageIsFull() throws {
        let collage = try makeViewModel()
        let (screen, _) = makePhotosScreen(browser, at: "/p", collage: collage)
        screen.handle(.end)
        screen.handle(.enter)
        #expect(collage.currentState.photos == [Photo(path: "/p/img10.jpg")])
        #expect(screen.currentState.message == "Added img10.jpg")
        #expect(screen.currentState.collageTitle == "1 photo")
        screen.handle(.up)
        for _ in 0..<5 { screen.handle(.character(" ")) }
        #expect(collage.currentState.count == 6)
        #expect(screen.currentState.canAdd == false)
        screen.handle(.enter)
        #expect(collage.currentState.count == 6)
        #expect(screen.currentState.message == "the collage is full: it holds at most 6 photos")
        // Right on a photo does not add it.
        screen.handle(.right)
        #expect(collage.currentState.count == 6)
    }

    @Test func theFilterNarrowsLiveAndKeysBecomeText() throws {
        let collage = try makeViewModel()
        let (screen, _) = makePhotosScreen(browser, at: "/p", collage: collage)
        screen.handle(.character("/"))
        #expect(screen.currentState.filter == "")
        for character in "img" { screen.handle(.character(character)) }
        #expect(names(screen) == ["img1.png", "img2.jpg", "img10.jpg"])
        screen.handle(.character("1"))
        #expect(names(screen) == ["img1.png", "img10.jpg"])
        // q, j and . are text while filtering.
        screen.handle(.character("q"))
        #expect(screen.currentState.filter == "img1q")
        #expect(names(screen).isEmpty)
        #expect(!screen.isClosed)
        screen.handle(.backspace)
        screen.handle(.down)
        screen.handle(.enter)
        #expect(collage.currentState.photos == [Photo(path: "/p/img10.jpg")], "Enter still adds the highlighted photo")
        screen.handle(.control("u"))
        #expect(screen.currentState.filter == "")
        #expect(names(screen).count == 5)
        screen.handle(.character("Z"))
        #expect(names(screen) == ["Zebra"])
        screen.handle(.escape)
        #expect(screen.currentState.filter == nil)
        #expect(names(screen).count == 5)
        #expect(!screen.isClosed, "the first Esc only clears the filter")
        screen.handle(.escape)
        #expect(screen.isClosed)
    }

    @Test func anUnreadableFolderShowsAMessageAndStays() throws {
        let collage = try makeViewModel()
        browser.unreadable = ["/p/alpha"]
        let (screen, _) = makePhotosScreen(browser, at: "/p", collage: collage)
        screen.handle(.enter)
        #expect(screen.currentState.directory == "/p")
        #expect(screen.currentState.message == "cannot open /p/alpha: Permission denied")
    }

    @Test func theHighlightedPhotoIsPreviewed() throws {
        let collage = try makeViewModel()
        let previews = FakePreviews()
        let (screen, _) = makePhotosScreen(browser, at: "/p", collage: collage, previews: previews)
        #expect(screen.currentState.preview == .none, "no preview before the view gives a size")
        screen.setPreviewSize(columns: 30, rows: 10)
        #expect(screen.currentState.preview == .none, "a folder is highlighted")
        screen.handle(.end)
        #expect(screen.currentState.preview == .picture(TerminalPicture(kind: .symbols, columns: 30, rows: 10, lines: ["img10.jpg"])))
        screen.handle(.up)
        screen.handle(.down)
        #expect(previews.requests == ["img10.jpg", "img2.jpg", "img10.jpg"])
    }

    @Test func closingCompletesTheStreamAndEndsEverySubscription() throws {
        let collage = try makeViewModel()
        let before = collage.resources.count
        let (screen, _) = makePhotosScreen(browser, at: "/p", collage: collage)
        var completed = false
        let watcher = screen.selectedPhotos.sink(receiveCompletion: { _ in completed = true }, receiveValue: { _ in })
        #expect(collage.resources.count == before + 3,
                "the screen follows the collage's state and events; the collage follows the screen's picks")
        screen.handle(.character("q"))
        #expect(completed)
        #expect(collage.resources.count == before)
        watcher.cancel()
    }

    @Test func tenThousandFilesAreScannedInChunksAndFiltered() throws {
        let files = (0..<10_000).map { $0 % 10 == 9 ? "notes-\($0).txt" : "photo-\($0).jpg" }
        let big = FakeBrowser(["/big": files + ["sub/"]])
        let collage = try makeViewModel()
        var states = 0
        let scan = DispatchQueue(label: "test.scan")
        let screen = PhotosViewModel(directory: "/big", collageState: collage.state, collageEvents: collage.events,
                                     browser: big, resources: collage.resources, deliver: immediately, scanQueue: scan)
        let counting = screen.state.sink { _ in states += 1 }
        scan.sync {}
        #expect(screen.currentState.entries.count == 9_001)
        #expect(screen.currentState.entries.first?.name == "sub")
        #expect(screen.currentState.entries[1].name == "photo-0.jpg")
        #expect(screen.currentState.entries.last?.name == "photo-9998.jpg")
        #expect(!screen.currentState.isScanning)
        #expect(states > 10, "the list fills in as chunks are judged")
        screen.handle(.character("/"))
        for character in "photo-999" { screen.handle(.character(character)) }
        // photo-999 does not exist: every tenth file is notes-N.txt.
        #expect(names(screen) == ["photo-9990.jpg", "photo-9991.jpg", "photo-9992.jpg", "photo-9993.jpg",
                                  "photo-9994.jpg", "photo-9995.jpg", "photo-9996.jpg", "photo-9997.jpg", "photo-9998.jpg"])
        counting.cancel()
    }
}

@Suite struct CollageScreenViewModelTests {
    func makeScreen(photos: [Photo] = [], writer: FakeWriter = FakeWriter()) throws -> (CollageScreenViewModel, InMemorySelectionStore) {
        let store = InMemorySelectionStore(photos)
        let collage = try makeViewModel(store: store, writer: writer)
        let screen = CollageScreenViewModel(collage: collage, previews: FakePreviews(), workingDirectory: "/work",
                                            deliver: immediately, now: { Date(timeIntervalSince1970: 0) })
        return (screen, store)
    }

    @Test func actionsAreEnabledByTheRules() throws {
        let (screen, _) = try makeScreen(photos: [photo("a.jpg")])
        #expect(screen.currentState.title == "1 photo")
        #expect(screen.currentState.actions.map { "\($0.key):\($0.isEnabled)" } == ["a:true", "c:true", "s:false", "q:true"])
        screen.handle(.character("s"))
        #expect(screen.currentState.prompt == nil)
        #expect(screen.currentState.message == "cannot save 1 photo: a collage needs an even number of photos")
    }

    @Test func addOpensThePhotosScreenUnlessFull() throws {
        let (screen, _) = try makeScreen(photos: (1...6).map { photo("\($0).jpg") })
        let routes = Recorder(screen.routes)
        screen.handle(.character("a"))
        #expect(routes.values.isEmpty)
        #expect(screen.currentState.message == "the collage is full: it holds at most 6 photos")
        #expect(screen.currentState.actions.first?.isEnabled == false)
        screen.handle(.character("c"))
        #expect(screen.currentState.title == "Collage")
        #expect(screen.currentState.message == "Cleared")
        screen.handle(.character("a"))
        #expect(routes.values == [.photos])
        screen.handle(.character("c"))
        #expect(screen.currentState.message == "nothing to clear: the collage is empty")
        screen.handle(.character("q"))
        #expect(routes.values == [.photos, .quit])
    }

    @Test func savingAsksForANameThenClears() throws {
        let writer = FakeWriter()
        let (screen, store) = try makeScreen(photos: [photo("a.jpg"), photo("b.jpg")], writer: writer)
        screen.setPreviewSize(columns: 40, rows: 12)
        #expect(screen.currentState.preview == .picture(TerminalPicture(kind: .symbols, columns: 40, rows: 12, lines: ["a.jpg+b.jpg"])))
        screen.handle(.character("s"))
        #expect(screen.currentState.prompt == "collage-19700101-000000.jpg")
        screen.handle(.control("u"))
        #expect(screen.currentState.prompt == "")
        screen.handle(.enter)
        #expect(screen.currentState.message == "Type a file name to save to")
        for character in "out.png" { screen.handle(.character(character)) }
        screen.handle(.backspace)
        screen.handle(.character("g"))
        screen.handle(.enter)
        waitUntil { !screen.currentState.isSaving }
        #expect(writer.saved == [URL(fileURLWithPath: "/work/out.png")])
        #expect(screen.currentState.message == "Saved /work/out.png")
        #expect(screen.currentState.prompt == nil)
        #expect(screen.currentState.title == "Collage")
        #expect(screen.currentState.preview == .none)
        #expect(try store.load().isEmpty)
    }

    @Test func aFailedSaveKeepsThePromptAndTheSelection() throws {
        let writer = FakeWriter()
        writer.failure = FileWriteError.exists(path: "/work/x.jpg")
        let (screen, store) = try makeScreen(photos: [photo("a.jpg"), photo("b.jpg")], writer: writer)
        screen.handle(.character("s"))
        screen.handle(.control("u"))
        for character in "x.jpg" { screen.handle(.character(character)) }
        screen.handle(.enter)
        waitUntil { !screen.currentState.isSaving }
        // The screen has no --force: the command line's advice must not show here.
        #expect(screen.currentState.message == "cannot save /work/x.jpg: /work/x.jpg already exists")
        #expect(screen.currentState.prompt == "x.jpg")
        #expect(try store.load().count == 2)
        screen.handle(.escape)
        #expect(screen.currentState.prompt == nil)
        #expect(screen.currentState.message == "Save cancelled")
    }
}

@Suite struct AppCoordinatorTests {
    let browser = FakeBrowser(["/p": ["a.jpg", "b.jpg", "c.png"]])

    func makeCoordinator() throws -> AppCoordinator {
        AppCoordinator(collage: try makeViewModel(), browser: browser, startDirectory: "/p", deliver: immediately)
    }

    @Test func addPicksAndComesBack() throws {
        let coordinator = try makeCoordinator()
        let scenes = Recorder(coordinator.scene)
        coordinator.handle(.character("a"))
        #expect(coordinator.currentScene == .photos)
        // The scan runs on its own queue; wait for the list.
        for _ in 0..<200 where (coordinator.photosScreen?.currentState.entries.count ?? 0) < 3 { usleep(5000) }
        coordinator.handle(.enter)
        coordinator.handle(.down)
        coordinator.handle(.enter)
        coordinator.handle(.character("q"))
        #expect(coordinator.currentScene == .collage)
        #expect(scenes.values == [.collage, .photos, .collage])
        #expect(coordinator.collage.currentState.photos == [Photo(path: "/p/a.jpg"), Photo(path: "/p/b.jpg")])
        #expect(coordinator.collageScreen.currentState.title == "2 photos")
    }

    /// The original app's leak: every visit to the photos screen left a
    /// subscription behind. Here the count returns to where it was.
    @Test func resourcesStayFlatAcrossOpenCloseCycles() throws {
        let coordinator = try makeCoordinator()
        let baseline = coordinator.resources
        var whileOpen: Set<Int> = []
        for _ in 0..<25 {
            coordinator.handle(.character("a"))
            whileOpen.insert(coordinator.resources)
            coordinator.handle(.escape)
            #expect(coordinator.resources == baseline)
        }
        #expect(whileOpen.count == 1, "the same number of subscriptions on every visit")
        #expect(whileOpen.first! > baseline)
        #expect(coordinator.collage.livePickSubscriptions == 0)
    }

    @Test func controlCQuitsFromAnyScreen() throws {
        let coordinator = try makeCoordinator()
        let quits = Recorder(coordinator.quit)
        coordinator.handle(.character("a"))
        coordinator.handle(.control("c"))
        #expect(quits.values.count == 1)
        coordinator.handle(.escape)
        coordinator.handle(.character("q"))
        #expect(quits.values.count == 2)
    }
}
