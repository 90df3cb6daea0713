import Foundation
import CollageTestSupport
import Testing
@testable import CollageKit

/// A photo's own caption (issue #20): the rule in the view model, the
/// store and the collage screen's `e`.
@Suite struct CaptionTests {
    @Test func aCaptionIsSetAndClearedByTheRulesAndTheOutputsFollow() throws {
        let store = InMemorySelectionStore([photo("a.jpg"), photo("b.jpg")])
        let viewModel = try makeViewModel(store: store)
        let photos = Recorder(viewModel.photos)
        #expect(viewModel.setCaption("Grandma, 1962", at: 1) == .captioned(photo("b.jpg").captioned("Grandma, 1962"), at: 1))
        #expect(try store.load()[1].caption == "Grandma, 1962")
        #expect(viewModel.setCaption(nil, at: 1) == .captioned(photo("b.jpg"), at: 1))
        #expect(try store.load() == [photo("a.jpg"), photo("b.jpg")])
        #expect(viewModel.setCaption("x", at: 2) == .refused(.noSuchPhoto(position: 3, count: 2)))
        #expect(photos.values.map { $0.map(\.caption) } == [[nil, nil], [nil, "Grandma, 1962"], [nil, nil]])
        let empty = try makeViewModel(store: InMemorySelectionStore())
        #expect(empty.setCaption("x", at: 0) == .refused(.nothingToCaption))
        #expect(CollageEvent.captioned(photo("b.jpg").captioned("Hi"), at: 1).message == "Photo 2 (b.jpg) is captioned \"Hi\"")
    }

    /// Issue #41: a caption never covers a head the cell shows: the band
    /// goes to the top where the bottom's would cover more of the heads.
    @Test func theBandMovesToTheTopOverAHeadAtTheBottom() {
        let cell = CellRect(x: 10, y: 20, width: 300, height: 200)
        let bottom = CellRect(x: 10, y: 188, width: 300, height: 32), top = CellRect(x: 10, y: 20, width: 300, height: 32)
        func band(_ heads: [CellRect]) -> CellRect {
            CaptionBand.rect(in: cell, lineHeight: 20, fontPixels: 20, clearOf: heads)
        }
        #expect(band([]) == bottom)
        // A head at the bottom, one in the middle, one at the top.
        #expect(band([CellRect(x: 100, y: 150, width: 60, height: 70)]) == top)
        #expect(band([CellRect(x: 100, y: 80, width: 60, height: 70)]) == bottom)
        #expect(band([CellRect(x: 100, y: 20, width: 60, height: 70)]) == bottom)
        // Heads at both edges: the band over less of them (the top's 60 x 10, the bottom's 60 x 12).
        #expect(band([CellRect(x: 100, y: 42, width: 60, height: 10), CellRect(x: 200, y: 176, width: 60, height: 24)]) == top)
        #expect(band([CellRect(x: 100, y: 20, width: 60, height: 100), CellRect(x: 200, y: 190, width: 60, height: 30)]) == bottom)
    }

    @Test func aCaptionIsTrimmedNonEmptyAndBounded() throws {
        #expect(try Photo.caption(parsing: "  Grandma, 1962 \n") == "Grandma, 1962")
        #expect(try Photo.caption(parsing: "日本語のキャプション 🎉") == "日本語のキャプション 🎉")
        #expect(throws: ValueError.self) { try Photo.caption(parsing: "   ") }
        #expect(throws: ValueError.self) { try Photo.caption(parsing: String(repeating: "a", count: Photo.maximumCaptionLength + 1)) }
        #expect(try Photo.caption(parsing: String(repeating: "é", count: Photo.maximumCaptionLength)).count == 200)
    }

    @Test func theCaptionRoundTripsThroughTheSelectionFile() throws {
        let directory = try temporaryDirectory()
        let store = FileSelectionStore(directory: directory)
        let weird = Photo(fileSystemPath: Array("/p/caf".utf8) + [0xE9] + Array(".jpg".utf8))
        let photos = [photo("a.jpg").captioned("Été \"1962\""), photo("b.jpg"),
                      weird.captioned("x").focused(try PhotoFocus(x: 1, y: 0))]
        try store.update { $0 = photos }
        #expect(try FileSelectionStore(directory: directory).load() == photos)
        let text = try String(contentsOf: directory.appendingPathComponent("selection.json"), encoding: .utf8)
        #expect(text.contains("\"\(photo("b.jpg").path)\""), "a photo without a caption is still a plain string")
        #expect(text.contains("\"caption\""))
    }

    @MainActor func makeScreen() throws -> (CollageScreenViewModel, InMemorySelectionStore) {
        let store = InMemorySelectionStore([photo("a.jpg"), photo("b.jpg").captioned("Old")])
        let screen = CollageScreenViewModel(collage: try makeViewModel(store: store), previews: FakePreviews())
        return (screen, store)
    }

    @MainActor func type(_ text: String, into screen: CollageScreenViewModel) {
        for character in text { screen.handle(.character(character)) }
    }

    @MainActor @Test func eEditsTheHighlightedPhotosCaption() throws {
        let (screen, store) = try makeScreen()
        screen.handle(.down)
        screen.handle(.character("e"))
        #expect(screen.currentState.captioning == 1 && screen.currentState.prompt == "Old", "starts from the caption it has")
        screen.handle(.control("u"))
        type("Grandma, 1962", into: screen)
        screen.handle(.enter)
        #expect(try store.load()[1].caption == "Grandma, 1962")
        #expect(screen.currentState.prompt == nil && screen.currentState.captioning == nil)
        #expect(screen.currentState.message == "Photo 2 (b.jpg) is captioned \"Grandma, 1962\"")
        #expect(screen.currentState.photos[1].caption == "Grandma, 1962")
    }

    @MainActor @Test func anEmptyCaptionClearsItAndEscapeChangesNothing() throws {
        let (screen, store) = try makeScreen()
        screen.handle(.down)
        screen.handle(.character("e"))
        type("New", into: screen)
        screen.handle(.escape)
        #expect(try store.load()[1].caption == "Old")
        #expect(screen.currentState.message == "Caption unchanged" && screen.currentState.prompt == nil)
        screen.handle(.character("e"))
        screen.handle(.control("u"))
        screen.handle(.enter)
        #expect(try store.load()[1].caption == nil)
    }

    @MainActor @Test func aCaptionTooLongKeepsThePromptAndSaysWhy() throws {
        let (screen, store) = try makeScreen()
        screen.handle(.character("e"))
        type(String(repeating: "a", count: Photo.maximumCaptionLength + 1), into: screen)
        screen.handle(.enter)
        #expect(screen.currentState.captioning == 0, "the prompt stays open")
        #expect(screen.currentState.message?.contains("the limit is \(Photo.maximumCaptionLength)") == true)
        #expect(try store.load()[0].caption == nil)
    }
}
