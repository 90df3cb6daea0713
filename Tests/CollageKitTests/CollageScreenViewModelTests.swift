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

@MainActor @Suite struct CollageScreenViewModelTests {
    /// Saves run here; `await settle(work)` waits for one (the fake writer finishes at once).
    let work = DispatchQueue(label: "test.save")

    func makeScreen(photos: [Photo] = [], writer: FakeWriter = FakeWriter()) throws -> (CollageScreenViewModel, InMemorySelectionStore) {
        let store = InMemorySelectionStore(photos)
        let collage = try makeViewModel(store: store, writer: writer, workQueue: work)
        let screen = CollageScreenViewModel(collage: collage, previews: FakePreviews(), workingDirectory: "/work",
                                            now: { Date(timeIntervalSince1970: 0) })
        return (screen, store)
    }

    @Test func actionsAreEnabledByTheRules() throws {
        let (screen, _) = try makeScreen(photos: [photo("a.jpg")])
        #expect(screen.currentState.title == "1 photo")
        #expect(screen.currentState.actions.map { "\($0.key):\($0.isEnabled)" } == ["↑↓:true", "a:true", "x:true", "[]:true", "HJKL:true", "F:true", "e:true", "t:true", "l:true", "c:true", "s:false", "q:true", "?:true"])
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
        #expect(screen.currentState.actions.first { $0.key == "a" }?.isEnabled == false)
        screen.handle(.character("c"))
        screen.handle(.character("y"))
        #expect(screen.currentState.title == "Collage")
        #expect(screen.currentState.message == "Cleared")
        screen.handle(.character("a"))
        #expect(routes.values == [.photos])
        screen.handle(.character("c"))
        #expect(screen.currentState.message == "nothing to clear: the collage is empty")
        screen.handle(.character("q"))
        #expect(routes.values == [.photos, .quit])
    }

    @Test func savingAsksForANameThenClears() async throws {
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
        await settle(work)
        #expect(!screen.currentState.isSaving)
        #expect(writer.saved == [URL(fileURLWithPath: "/work/out.png")])
        #expect(screen.currentState.message == "Saved /work/out.png")
        #expect(screen.currentState.prompt == nil)
        #expect(screen.currentState.title == "Collage")
        #expect(screen.currentState.preview == .none)
        #expect(try store.load().isEmpty)
    }

    @Test func aFailedSaveKeepsThePromptAndTheSelection() async throws {
        let writer = FakeWriter()
        writer.failure = FileWriteError.exists(path: "/work/x.jpg")
        let (screen, store) = try makeScreen(photos: [photo("a.jpg"), photo("b.jpg")], writer: writer)
        screen.handle(.character("s"))
        screen.handle(.control("u"))
        for character in "x.jpg" { screen.handle(.character(character)) }
        screen.handle(.enter)
        await settle(work)
        #expect(!screen.currentState.isSaving)
        // The screen has no --force: the command line's advice must not show here.
        #expect(screen.currentState.message == "cannot save /work/x.jpg: /work/x.jpg already exists")
        #expect(screen.currentState.prompt == "x.jpg")
        #expect(try store.load().count == 2)
        screen.handle(.escape)
        #expect(screen.currentState.prompt == nil)
        #expect(screen.currentState.message == "Save cancelled")
    }
}

/// The collage screen's highlight, remove and reorder keys (issue #11).
@MainActor @Suite struct CollageScreenEditingTests {
    func makeScreen(_ names: [String]) throws -> (CollageScreenViewModel, InMemorySelectionStore) {
        let store = InMemorySelectionStore(names.map(photo))
        let screen = CollageScreenViewModel(collage: try makeViewModel(store: store), workingDirectory: "/work")
        return (screen, store)
    }

    @Test func theHighlightMovesAndXRemovesTheHighlightedPhoto() throws {
        let (screen, store) = try makeScreen(["a.jpg", "b.jpg", "c.jpg"])
        #expect(screen.currentState.highlighted == 0)
        screen.handle(.down)
        screen.handle(.character("j"))
        screen.handle(.down)  // stays on the last
        #expect(screen.currentState.highlighted == 2)
        screen.handle(.up)
        screen.handle(.character("x"))
        #expect(try store.load() == [photo("a.jpg"), photo("c.jpg")])
        #expect(screen.currentState.title == "2 photos")
        #expect(screen.currentState.message == "Removed b.jpg")
        screen.handle(.delete)
        #expect(try store.load() == [photo("a.jpg")])
        #expect(screen.currentState.highlighted == 0, "kept within the shorter list")
        screen.handle(.delete)
        #expect(screen.currentState.highlighted == nil)
        screen.handle(.character("x"))
        #expect(screen.currentState.message == "nothing to remove: the collage is empty")
    }

    @Test func bracketsMoveThePhotoAndTheHighlightFollows() throws {
        let (screen, store) = try makeScreen(["a.jpg", "b.jpg", "c.jpg"])
        screen.handle(.character("]"))
        #expect(try store.load().map(\.fileName) == ["b.jpg", "a.jpg", "c.jpg"])
        #expect(screen.currentState.highlighted == 1)
        screen.handle(.character("]"))
        screen.handle(.character("]"))  // already last: nothing happens
        #expect(try store.load().map(\.fileName) == ["b.jpg", "c.jpg", "a.jpg"])
        screen.handle(.character("["))
        #expect(try store.load().map(\.fileName) == ["b.jpg", "a.jpg", "c.jpg"])
        #expect(screen.currentState.message == "Moved a.jpg to 2")
    }

    @Test func aMessageStaysUntilTheNextKey() throws {
        let (screen, _) = try makeScreen(["a.jpg"])
        screen.handle(.character("s"))
        #expect(screen.currentState.message == "cannot save 1 photo: a collage needs an even number of photos")
        screen.handle(.down)
        #expect(screen.currentState.message == nil)
    }
}
