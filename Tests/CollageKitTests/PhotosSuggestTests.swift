import Dispatch
import Foundation
import Testing
import CollageTestSupport
@testable import CollageKit

/// A suggester that answers with the folder's photos it is given.
struct FakeSuggester: PhotoSuggesting {
    let answer: [String: [String]]
    func suggest(in folder: Photo) throws -> [Photo] {
        guard let names = answer[folder.path] else {
            throw CollageFailure(.folder, path: folder.path, message: "fewer than two photos worth showing here")
        }
        return names.map { folder.appending(Array($0.utf8)) }
    }
}

/// `S` on the photos screen (issue #33).
@Suite struct PhotosSuggestTests {
    let browser = FakeBrowser(["/p": ["a.jpg", "b.jpg", "c.jpg", "d.jpg"], "/q": ["x.jpg"]])
    let suggester = FakeSuggester(answer: ["/p": ["b.jpg", "d.jpg"]])

    @Test func suggestionsAreMarkedAndEnterAddsThemAsOnePick() throws {
        let collage = try makeViewModel()
        let (screen, scan) = makePhotosScreen(browser, at: "/p", collage: collage, suggester: suggester)
        screen.handle(.character("S"))
        scan.sync {}
        #expect(screen.currentState.suggested.map(\.path) == ["/p/b.jpg", "/p/d.jpg"])
        #expect(screen.currentState.message == "Suggested 2 photos (★): Enter adds them, any other key leaves them")
        screen.handle(.enter)
        #expect(screen.currentState.suggested.isEmpty)
        #expect(collage.currentState.photos.map(\.path) == ["/p/b.jpg", "/p/d.jpg"])
    }

    @Test func anyOtherKeyLeavesThemAndDoesNothingElse() throws {
        let collage = try makeViewModel()
        let (screen, scan) = makePhotosScreen(browser, at: "/p", collage: collage, suggester: suggester)
        screen.handle(.character("S"))
        scan.sync {}
        let highlighted = screen.currentState.highlighted
        screen.handle(.down)
        #expect(screen.currentState.suggested.isEmpty)
        #expect(screen.currentState.highlighted == highlighted)
        #expect(collage.currentState.photos.isEmpty)
    }

    @Test func aFolderWithTooFewSaysSo() throws {
        let collage = try makeViewModel()
        let (screen, scan) = makePhotosScreen(browser, at: "/q", collage: collage, suggester: suggester)
        screen.handle(.character("S"))
        scan.sync {}
        #expect(screen.currentState.suggested.isEmpty)
        #expect(screen.currentState.message == "fewer than two photos worth showing here")
    }
}
