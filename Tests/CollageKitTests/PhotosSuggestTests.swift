import Dispatch
import Foundation
import Testing
import CollageTestSupport
@testable import CollageKit

/// A suggester that answers with the folder's photos it is given.
/// What it was asked is kept, to be looked at.
final class FakeSuggester: PhotoSuggesting, Sendable {
    let answer: [String: [String]]
    private let asked = Locked([[Photo]]())
    init(answer: [String: [String]]) { self.answer = answer }
    var alreadyIn: [[Photo]] { asked.current }
    func suggest(in folder: Photo, alreadyIn: [Photo]) throws -> [Photo] {
        asked.withLock { $0.append(alreadyIn) }
        guard let names = answer[folder.path] else {
            throw CollageFailure(.folder, path: folder.path, message: "fewer than two photos worth showing here")
        }
        return names.map { folder.appending(Array($0.utf8)) }.filter { !alreadyIn.contains($0) }
    }
}

/// `S` on the photos screen (issue #33).
@MainActor @Suite struct PhotosSuggestTests {
    let browser = FakeBrowser(["/p": ["a.jpg", "b.jpg", "c.jpg", "d.jpg"], "/q": ["x.jpg"]])
    let suggester = FakeSuggester(answer: ["/p": ["b.jpg", "d.jpg"]])

    @Test func suggestionsAreMarkedAndEnterAddsThemAsOnePick() async throws {
        let collage = try makeViewModel()
        let (screen, scan) = await makePhotosScreen(browser, at: "/p", collage: collage, suggester: suggester)
        screen.handle(.character("S"))
        await settle(scan)
        #expect(screen.currentState.suggested.map(\.path) == ["/p/b.jpg", "/p/d.jpg"])
        #expect(screen.currentState.message == "Suggested 2 photos (★): Enter adds them, any other key leaves them")
        screen.handle(.enter)
        #expect(screen.currentState.suggested.isEmpty)
        #expect(collage.currentState.photos.map(\.path) == ["/p/b.jpg", "/p/d.jpg"])
    }

    @Test func anyOtherKeyLeavesThemAndDoesNothingElse() async throws {
        let collage = try makeViewModel()
        let (screen, scan) = await makePhotosScreen(browser, at: "/p", collage: collage, suggester: suggester)
        screen.handle(.character("S"))
        await settle(scan)
        let highlighted = screen.currentState.highlighted
        screen.handle(.down)
        #expect(screen.currentState.suggested.isEmpty)
        #expect(screen.currentState.highlighted == highlighted)
        #expect(collage.currentState.photos.isEmpty)
    }

    /// With photos in the collage, `S` asks for the free places only,
    /// naming those in, and says what the collage will hold (issue #41).
    @Test func withPhotosInTheCollageItFillsTheFreePlacesAndSaysSo() async throws {
        let collage = try makeViewModel()
        let (screen, scan) = await makePhotosScreen(browser, at: "/p", collage: collage, suggester: suggester)
        screen.handle(.character("S"))
        await settle(scan)
        screen.handle(.enter)
        #expect(collage.currentState.photos.count == 2)
        let fill = FakeSuggester(answer: ["/p": ["a.jpg", "b.jpg", "c.jpg"]])
        let (again, scanAgain) = await makePhotosScreen(browser, at: "/p", collage: collage, suggester: fill)
        again.handle(.character("S"))
        await settle(scanAgain)
        #expect(Set(fill.alreadyIn.last ?? []) == [Photo(path: "/p/b.jpg"), Photo(path: "/p/d.jpg")])
        #expect(again.currentState.suggested.map(\.path) == ["/p/a.jpg", "/p/c.jpg"])
        #expect(again.currentState.message
                == "Suggested 2 photos (★) to add to the 2 in the collage, making 4: Enter adds them, any other key leaves them")
        again.handle(.enter)
        #expect(collage.currentState.photos.map(\.path) == ["/p/b.jpg", "/p/d.jpg", "/p/a.jpg", "/p/c.jpg"])
    }

    /// The service's own answer for a full collage, before any folder is read.
    @Test func aFullCollageIsSaidNotSearched() throws {
        let service = SuggestService(measurer: ImageEngine(), cache: nil)
        let six = (1...6).map { Photo(path: "/p/\($0).jpg") }
        #expect(throws: CollageFailure.self) { try service.suggest(in: Photo(path: "/nowhere"), alreadyIn: six) }
        do {
            _ = try service.suggest(in: Photo(path: "/nowhere"), alreadyIn: six)
        } catch {
            #expect("\(error)" == "the collage is full (6 photos): nothing to add")
        }
    }

    @Test func aFolderWithTooFewSaysSo() async throws {
        let collage = try makeViewModel()
        let (screen, scan) = await makePhotosScreen(browser, at: "/q", collage: collage, suggester: suggester)
        screen.handle(.character("S"))
        await settle(scan)
        #expect(screen.currentState.suggested.isEmpty)
        #expect(screen.currentState.message == "fewer than two photos worth showing here")
    }
}
