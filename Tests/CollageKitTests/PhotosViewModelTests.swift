import Dispatch
import Foundation
import Testing
import CollageTestSupport
@testable import CollageKit
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

@MainActor @Suite struct PhotosViewModelTests {
    let browser = FakeBrowser([
        "/p": ["img10.jpg", "img2.jpg", "Zebra/", "notes.txt", "fake.jpg", ".hidden.png", "alpha/", "img1.png", ".secret/"],
        "/p/alpha": ["a.jpg", "b.jpg"],
        "/p/Zebra": [],
    ])

    @Test func foldersFirstThenPhotosInNaturalOrderHiddenOnlyOnRequest() async throws {
        let collage = try makeViewModel()
        let (screen, scan) = await makePhotosScreen(browser, at: "/p", collage: collage)
        #expect(names(screen) == ["alpha", "Zebra", "img1.png", "img2.jpg", "img10.jpg"])
        #expect(screen.currentState.highlighted == 0)
        screen.handle(.character("."))
        await settle(scan)
        #expect(names(screen) == [".secret", "alpha", "Zebra", ".hidden.png", "img1.png", "img2.jpg", "img10.jpg"])
        #expect(screen.currentState.showHidden)
    }

    @Test func movingAndOpeningFolders() async throws {
        let collage = try makeViewModel()
        let (screen, scan) = await makePhotosScreen(browser, at: "/p", collage: collage)
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
        await settle(scan)
        #expect(screen.currentState.directory == "/p/alpha")
        #expect(names(screen) == ["a.jpg", "b.jpg"])
        screen.handle(.left)
        await settle(scan)
        #expect(screen.currentState.directory == "/p")
        #expect(screen.currentState.highlightedEntry?.name == "alpha", "back on the folder we came from")
        screen.handle(.down)
        screen.handle(.right)  // Right opens a folder too
        #expect(screen.currentState.directory == "/p/Zebra")
        #expect(names(screen).isEmpty)
        screen.handle(.backspace)
        await settle(scan)
        #expect(screen.currentState.highlightedEntry?.name == "Zebra")
    }

    @Test func enterAndSpaceAddPhotosUntilTheCollageIsFull() async throws {
        let collage = try makeViewModel()
        let (screen, _) = await makePhotosScreen(browser, at: "/p", collage: collage)
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

    @Test func theFilterNarrowsLiveAndKeysBecomeText() async throws {
        let collage = try makeViewModel()
        let (screen, _) = await makePhotosScreen(browser, at: "/p", collage: collage)
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

    @Test func anUnreadableFolderShowsAMessageAndStays() async throws {
        let collage = try makeViewModel()
        browser.unreadable = ["/p/alpha"]
        let (screen, _) = await makePhotosScreen(browser, at: "/p", collage: collage)
        screen.handle(.enter)
        #expect(screen.currentState.directory == "/p")
        #expect(screen.currentState.message == "cannot open /p/alpha: Permission denied")
    }

    @Test func theHighlightedPhotoIsPreviewed() async throws {
        let collage = try makeViewModel()
        let previews = FakePreviews()
        let (screen, _) = await makePhotosScreen(browser, at: "/p", collage: collage, previews: previews)
        #expect(screen.currentState.preview == .none, "no preview before the view gives a size")
        screen.setPreviewSize(columns: 30, rows: 10)
        #expect(screen.currentState.preview == .none, "a folder is highlighted")
        screen.handle(.end)
        #expect(screen.currentState.preview == .picture(TerminalPicture(kind: .symbols, columns: 30, rows: 10, lines: ["img10.jpg"])))
        screen.handle(.up)
        screen.handle(.down)
        #expect(previews.requests == ["img10.jpg", "img2.jpg", "img10.jpg"])
    }

    @Test func closingCompletesTheStreamAndEndsEverySubscription() async throws {
        let collage = try makeViewModel()
        let before = collage.resources.count
        let (screen, _) = await makePhotosScreen(browser, at: "/p", collage: collage)
        var completed = false
        let watcher = screen.selectedPhotos.sink(receiveCompletion: { _ in completed = true }, receiveValue: { _ in })
        #expect(collage.resources.count == before + 3,
                "the screen follows the collage's state and events; the collage follows the screen's picks")
        screen.handle(.character("q"))
        #expect(completed)
        #expect(collage.resources.count == before)
        watcher.cancel()
    }

    @Test func tenThousandFilesAreScannedInChunksAndFiltered() async throws {
        let files = (0..<10_000).map { $0 % 10 == 9 ? "notes-\($0).txt" : "photo-\($0).jpg" }
        let big = FakeBrowser(["/big": files + ["sub/"]])
        let collage = try makeViewModel()
        var states = 0
        let scan = DispatchQueue(label: "test.scan")
        let screen = PhotosViewModel(directory: Photo(path: "/big"), collageState: collage.state, collageEvents: collage.events,
                                     browser: big, resources: collage.resources, scanQueue: scan)
        let counting = screen.state.sink { _ in states += 1 }
        await settle(scan)
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

    /// Adding a photo that is already in stays allowed (as in the original
    /// app); the screen marks it and says so.
    @Test func aPhotoAlreadyInIsMarkedAndAddingItAgainSaysSo() async throws {
        let collage = try makeViewModel()
        let (screen, _) = await makePhotosScreen(browser, at: "/p/alpha", collage: collage)
        screen.handle(.enter)
        #expect(screen.currentState.message == "Added a.jpg")
        #expect(screen.currentState.inCollage == [Photo(path: "/p/alpha/a.jpg"): 1])
        screen.handle(.enter)
        #expect(screen.currentState.message == "Added a.jpg again: it is in the collage 2 times")
        #expect(screen.currentState.inCollage == [Photo(path: "/p/alpha/a.jpg"): 2])
        #expect(collage.currentState.count == 2)
        screen.handle(.down)
        #expect(screen.currentState.message == nil, "until the next key")
    }

    /// A photo whose preview could not be decoded would fail the save: Enter
    /// is refused with the decoder's reason.
    @Test func aPhotoWhosePreviewFailedIsRefusedWithTheReason() async throws {
        @MainActor final class FailingPreviews: PreviewProviding {
            func photoPreview(_ photo: Photo, columns: Int, rows: Int,
                              completion: @escaping @MainActor (Result<TerminalPicture, Error>) -> Void) -> PreviewTicket {
                completion(.failure(ImageEngineError(kind: .corrupt, message: "\(photo.path): Premature end of JPEG file")))
                return PreviewTicket()
            }
            func collagePreview(_ photos: [Photo], options: CollageRenderOptions, columns: Int, rows: Int,
                                completion: @escaping @MainActor (Result<TerminalPicture, Error>) -> Void) -> PreviewTicket {
                PreviewTicket()
            }
        }
        let collage = try makeViewModel()
        let (screen, _) = await makePhotosScreen(browser, at: "/p/alpha", collage: collage, previews: FailingPreviews())
        screen.setPreviewSize(columns: 20, rows: 10)
        screen.handle(.enter)
        #expect(screen.currentState.message == "/p/alpha/a.jpg: Premature end of JPEG file")
        #expect(collage.currentState.count == 0)
    }
}
