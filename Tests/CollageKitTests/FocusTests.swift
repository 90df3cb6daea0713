import Foundation
import CollageTestSupport
import Testing
@testable import CollageKit

/// A photo's focus (issue #13): the rule in the view model, the store, the
/// batch list's `#focus` lines and the collage screen's keys.
@Suite struct FocusTests {
    func focus(_ x: Double, _ y: Double) -> PhotoFocus { try! PhotoFocus(x: x, y: y) }

    @Test func focusIsSetAndClearedByTheRulesAndTheOutputsFollow() throws {
        let store = InMemorySelectionStore([photo("a.jpg"), photo("b.jpg")])
        let viewModel = try makeViewModel(store: store)
        let photos = Recorder(viewModel.photos)
        #expect(viewModel.setFocus(focus(0.5, 0.2), at: 1) == .focused(photo("b.jpg").focused(focus(0.5, 0.2)), at: 1))
        #expect(try store.load()[1].focus == focus(0.5, 0.2))
        #expect(viewModel.setFocus(nil, at: 1) == .focused(photo("b.jpg"), at: 1))
        #expect(try store.load() == [photo("a.jpg"), photo("b.jpg")])
        #expect(viewModel.setFocus(focus(0, 0), at: 2) == .refused(.noSuchPhoto(position: 3, count: 2)))
        #expect(viewModel.setFocus(focus(0, 0), at: -1) == .refused(.noSuchPhoto(position: 0, count: 2)))
        #expect(photos.values.map { $0.map(\.focus) } == [[nil, nil], [nil, focus(0.5, 0.2)], [nil, nil]])
        let empty = try makeViewModel(store: InMemorySelectionStore())
        #expect(empty.setFocus(focus(0.5, 0.5), at: 0) == .refused(.nothingToFocus))
        #expect(CollageEvent.focused(photo("b.jpg").focused(focus(0.5, 0.25)), at: 1).message
            == "Photo 2 (b.jpg) is cropped around 0.5,0.25")
    }

    @Test func theEngineSaysWhereEachCropIsCentred() throws {
        let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("SampleImages")
        let astronaut = Photo(path: samples.appendingPathComponent("astronaut-eileen-collins.jpg").path)
        let cat = Photo(path: samples.appendingPathComponent("chelsea-the-cat.jpg").path)
        // Two 300 x 100 cells of the grid: the portrait's crop slides up and down.
        let options = try CollageRenderOptions(size: RequestedSize(CanvasSize(width: 600, height: 100)), layout: .grid)
        let smart = try ImageEngine().render([astronaut, cat], options: options).cropCentres
        #expect(smart[0].x == 0.5 && smart[0].y < 0.35, "smart keeps her head: \(smart[0])")
        var centreOptions = options
        centreOptions.crop = .centre
        let centre = try ImageEngine().render([astronaut, cat], options: centreOptions).cropCentres
        #expect(centre == [.centre, .centre])
        let focused = try ImageEngine().render([astronaut.focused(focus(0.5, 1)), cat], options: options).cropCentres
        // As low as the photo allows: the window is (341 / 512) / 3 of its height.
        #expect(abs(focused[0].y - (1 - 341.0 / 512 / 3 / 2)) < 1e-9)
    }

    @Test func aFocusIsTwoFractionsFromZeroToOne() throws {
        #expect(throws: ValueError.self) { try PhotoFocus(x: 1.01, y: 0.5) }
        #expect(throws: ValueError.self) { try PhotoFocus(x: 0.5, y: -0.1) }
        #expect(throws: ValueError.self) { try PhotoFocus(x: .nan, y: 0.5) }
        #expect(try PhotoFocus.fraction(parsing: "25%") == 0.25)
        #expect(try PhotoFocus.fraction(parsing: " 0.7 ") == 0.7)
        #expect(throws: ValueError.self) { try PhotoFocus.fraction(parsing: "top") }
        #expect(throws: ValueError.self) { try PhotoFocus.fraction(parsing: "inf") }
        #expect(focus(1, 0).moved(dx: 0.05, dy: -0.05) == focus(1, 0))
        #expect(focus(0.5, 0.5).moved(dx: -0.05, dy: 0.05).description == "0.45,0.55")
    }

    @Test func theFocusRoundTripsThroughTheSelectionFile() throws {
        let directory = try temporaryDirectory()
        let store = FileSelectionStore(directory: directory)
        let weird = Photo(fileSystemPath: Array("/p/caf".utf8) + [0xE9] + Array(".jpg".utf8))
        let photos = [photo("a.jpg").focused(focus(0.25, 0.75)), photo("b.jpg"), weird.focused(focus(1, 0))]
        try store.update { $0 = photos }
        #expect(try FileSelectionStore(directory: directory).load() == photos)
        // A photo without focus is still a plain string, as older versions wrote it.
        let text = try String(contentsOf: directory.appendingPathComponent("selection.json"), encoding: .utf8)
        #expect(text.contains("\"\(photo("b.jpg").path)\""))
        #expect(text.contains("\"focus\""))
    }

    @Test func aStoredFocusOutOfRangeIsACorruptSelection() throws {
        let directory = try temporaryDirectory()
        try Data(#"{"version": 1, "photos": [{"path": "/a.jpg", "focus": {"x": 3, "y": 0}}]}"#.utf8)
            .write(to: directory.appendingPathComponent("selection.json"))
        var notices: [String] = []
        let store = FileSelectionStore(directory: directory) { notices.append($0) }
        #expect(try store.load().isEmpty)
        #expect(notices.count == 1)
    }

    func parse(_ text: String) -> [BatchGroup] {
        var parser = BatchListParser(baseDirectory: "/lists")
        var groups: [BatchGroup] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let group = parser.consume(String(line), lineNumber: index + 1) { groups.append(group) }
        }
        if let last = parser.finish() { groups.append(last) }
        return groups
    }

    @Test func aFocusLineGivesItsPhotoAFocusWhateverTheFileIsCalled() {
        let groups = parse("""
            #focus 0.5 0.2 #focus 0.5 0.2.jpg
            # focus 0.1 0.1 a.jpg (a comment: the directive has no space after #)
            #focused on a.jpg (a comment too)
            0.3 0.3
            #focus 10% 90%   two  spaces .jpg
            #focus\t1\t0\t/abs/with\ttab.jpg
              ./#focus 0.5 0.5 plain.jpg  
            """)
        #expect(groups.count == 1)
        #expect(groups[0].problem == nil)
        let photos = groups[0].photos
        #expect(photos.map(\.path) == ["/lists/#focus 0.5 0.2.jpg", "/lists/0.3 0.3", "/lists/two  spaces .jpg",
                                       "/abs/with\ttab.jpg", "/lists/#focus 0.5 0.5 plain.jpg"])
        #expect(photos.map(\.focus) == [focus(0.5, 0.2), nil, focus(0.1, 0.9), focus(1, 0), nil])
    }

    @Test func aFocusLineKeepsANameThatIsNotUTF8() {
        var parser = BatchListParser(baseDirectory: "/lists")
        let line = Array("#focus 0.25 0.75 caf".utf8) + [0xE9] + Array(".jpg".utf8)
        #expect(parser.consume(bytes: line, lineNumber: 1) == nil)
        let group = parser.finish()
        #expect(group?.photos.first?.fileSystemPath == Array("/lists/caf".utf8) + [0xE9] + Array(".jpg".utf8))
        #expect(group?.photos.first?.focus == focus(0.25, 0.75))
    }

    @Test func aBadFocusLineSkipsItsCollageNamingTheLine() {
        let groups = parse("""
            a.jpg
            #focus 0.5 b.jpg
            c.jpg

            #focus 0.5 0.5

            d.jpg
            #focus 2 0 e.jpg
            """)
        #expect(groups.count == 3)
        #expect(groups[0].problem?.hasPrefix("line 2: write '#focus X Y PATH'") == true)
        #expect(groups[0].lineRange == "lines 1-3")
        #expect(groups[1].problem?.hasPrefix("line 5: write '#focus X Y PATH'") == true)
        #expect(groups[1].problem?.contains("no photo after X and Y") == true)
        #expect(groups[2].problem?.hasPrefix("line 8: ") == true)
        #expect(groups[2].photos.map(\.path) == ["/lists/d.jpg"])
    }

    @MainActor @Test func theCollageScreensCropKeysMoveTheHighlightedPhotosFocus() throws {
        let store = InMemorySelectionStore([photo("a.jpg"), photo("b.jpg")])
        let collage = try makeViewModel(store: store)
        let previews = FakePreviews()
        let screen = CollageScreenViewModel(collage: collage, previews: previews, workingDirectory: "/work",
                                            now: { Date(timeIntervalSince1970: 0) })
        screen.handle(.down)
        screen.handle(.character("L"))
        #expect(try store.load()[1].focus == focus(0.55, 0.5))
        #expect(screen.currentState.message == "Photo 2 (b.jpg) is cropped around 0.55,0.5")
        for _ in 0..<3 { screen.handle(.character("K")) }
        screen.handle(.character("H"))
        screen.handle(.character("J"))
        #expect(try store.load()[1].focus == focus(0.5, 0.4))
        #expect(try store.load()[0].focus == nil)
        // The screen's photos carry it, so the picture is redrawn with it.
        #expect(screen.currentState.photos[1].focus == focus(0.5, 0.4))
        screen.handle(.character("F"))
        #expect(try store.load()[1].focus == nil)
        // Without a focus, the keys start from where the picture's crop is.
        previews.centres = [.centre, focus(0.5, 0.21)]
        screen.handle(.character("K"))
        #expect(try store.load()[1].focus == focus(0.5, 0.16))
        // Nothing to move on an empty collage.
        let empty = CollageScreenViewModel(collage: try makeViewModel(store: InMemorySelectionStore()), previews: FakePreviews(),
                                           workingDirectory: "/work", now: { Date(timeIntervalSince1970: 0) })
        empty.handle(.character("L"))
        #expect(empty.currentState.message == "no photo to focus: the collage is empty")
    }
}
