import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif
import CollageTestSupport
import Testing
@testable import CollageKit

/// The collage's own title, kept in the selection (issue #41, "A stored
/// title"): the rule sequence in the view model, the selection file, and `t`.
@Suite struct StoredTitleTests {
    func title(_ text: String) throws -> CollageTitle { try CollageTitle(text) }

    @Test func theTitleIsSetClearedAndEmptiedWithTheSelection() throws {
        let store = InMemorySelectionStore([photo("a.jpg"), photo("b.jpg")])
        let viewModel = try makeViewModel(store: store)
        let states = Recorder(viewModel.state)
        #expect(viewModel.setTitle(try title("Summer")) == .titled(try title("Summer")))
        #expect(try store.loadSelection().title == title("Summer"))
        #expect(viewModel.currentState.collageTitle == (try title("Summer")))
        #expect(viewModel.currentState.title == "2 photos", "the rules' title is apart")
        #expect(viewModel.setTitle(nil) == .titled(nil))
        #expect(try store.loadSelection() == Selection(photos: [photo("a.jpg"), photo("b.jpg")]))
        // A title needs no photos; with only a title, clear has that to clear.
        viewModel.setTitle(try title("Winter"))
        #expect(viewModel.clear() == .cleared)
        #expect(try store.loadSelection() == Selection())
        #expect(viewModel.setTitle(try title("Alone")) == .titled(try title("Alone")))
        #expect(viewModel.currentState.canClear && !viewModel.currentState.canSave)
        #expect(viewModel.clear() == .cleared)
        #expect(viewModel.clear() == .refused(.nothingToClear))
        #expect(states.values.map { $0.collageTitle?.text } == [nil, "Summer", nil, "Winter", nil, "Alone", nil])
        #expect(CollageEvent.titled(try title("Hi")).message == "The collage is titled \"Hi\"")
        #expect(CollageEvent.titled(nil).message == "The collage has no title of its own")
    }

    @Test func aSaveDrawsTheStoredTitleUnlessTheOptionsGiveOneAndEmptiesIt() throws {
        let renderer = FakeRenderer()
        let store = InMemorySelectionStore([photo("a.jpg"), photo("b.jpg")], title: try title("Kyoto"))
        let viewModel = try makeViewModel(store: store, renderer: renderer)
        let out = URL(fileURLWithPath: "/out/c.jpg")
        try viewModel.save(to: out, options: .defaults, overwrite: false, keep: true).waitForCompletion().get()
        #expect(try store.loadSelection().title == title("Kyoto"), "--keep keeps the title too")
        let once = try CollageRenderOptions(title: title("Just this once"))
        try viewModel.save(to: out, options: once, overwrite: false, keep: true).waitForCompletion().get()
        guard case .success = viewModel.plan(options: .defaults) else { Issue.record("no plan"); return }
        #expect(renderer.renderedOptions.map { $0.title?.text } == ["Kyoto", "Just this once", "Kyoto"])
        try viewModel.save(to: out, options: .defaults, overwrite: false).waitForCompletion().get()
        #expect(try store.loadSelection() == Selection(), "a save empties the photos and the title")
        #expect(viewModel.currentState.collageTitle == nil)
    }

    @Test func aTitleSetWhileSavingIsKept() throws {
        let work = DispatchQueue(label: "test.save")
        let store = InMemorySelectionStore([photo("a.jpg"), photo("b.jpg")], title: try title("Old"))
        let viewModel = try makeViewModel(store: store, workQueue: work)
        let done = Locked(false)
        work.suspend()
        let saving = viewModel.save(to: URL(fileURLWithPath: "/out/c.jpg"), options: .defaults, overwrite: false)
            .sink(receiveCompletion: { _ in done.withLock { $0 = true } }, receiveValue: { _ in })
        // Another shell titles the collage again while this one draws.
        try store.updateSelection { $0.title = try title("New") }
        work.resume()
        work.sync {}
        #expect(done.current)
        #expect(try store.loadSelection() == Selection(title: try title("New")))
        _ = saving
    }

    @Test func theTitleRoundTripsThroughTheSelectionFileAndOldFilesStillRead() throws {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("selection.json")
        let store = FileSelectionStore(directory: directory)
        let stored = Selection(photos: [photo("a.jpg")], title: try title("Été \"2026\" · 日本"))
        try store.updateSelection { $0 = stored }
        #expect(try FileSelectionStore(directory: directory).loadSelection() == stored)
        #expect(try String(contentsOf: file, encoding: .utf8).contains("\"title\" : \"Été \\\"2026\\\" · 日本\""))
        // Photos changed alone keep the title.
        try store.update { $0.append(photo("b.jpg")) }
        #expect(try store.loadSelection().title == stored.title)
        // Without a title the file is as older versions wrote it: no key.
        try store.updateSelection { $0.title = nil }
        #expect(!(try String(contentsOf: file, encoding: .utf8).contains("title")))
        // A file an older version wrote reads, without a title.
        try Data(#"{"version": 1, "photos": ["/old/a.jpg"]}"#.utf8).write(to: file)
        #expect(try store.loadSelection() == Selection(photos: [Photo(path: "/old/a.jpg")]))
    }

    @Test("a stored title that is no title is a corrupt file, moved aside", arguments: [
        #""title": """#, #""title": "a\nb""#, #""title": 3"#,
        "\"title\": \"\(String(repeating: "a", count: CollageTitle.maximumCharacters + 1))\"",
    ])
    func aBadStoredTitle(title: String) throws {
        let directory = try temporaryDirectory()
        try Data(#"{"version": 1, "photos": ["/a.jpg"], \#(title)}"#.utf8)
            .write(to: directory.appendingPathComponent("selection.json"))
        var notices: [String] = []
        #expect(try FileSelectionStore(directory: directory) { notices.append($0) }.loadSelection() == Selection())
        #expect(notices.count == 1 && notices[0].contains("corrupt"), "\(notices)")
    }

    // MARK: t on the collage screen

    @MainActor func makeScreen(_ store: InMemorySelectionStore, options: CollageRenderOptions = .defaults,
                    previews: FakePreviews = FakePreviews()) throws -> CollageScreenViewModel {
        let screen = CollageScreenViewModel(collage: try makeViewModel(store: store), previews: previews,
                                            renderOptions: options)
        screen.setPreviewSize(columns: 40, rows: 12)
        return screen
    }

    @MainActor func type(_ text: String, into screen: CollageScreenViewModel) {
        for character in text { screen.handle(.character(character)) }
    }

    @MainActor @Test func tStoresTheTitleSoItOutlivesTheScreen() throws {
        let store = InMemorySelectionStore([photo("a.jpg"), photo("b.jpg")])
        let screen = try makeScreen(store)
        screen.handle(.character("t"))
        type("Summer in Kyoto", into: screen)
        screen.handle(.enter)
        #expect(try store.loadSelection().title == title("Summer in Kyoto"))
        #expect(screen.currentState.drawnTitle == "Summer in Kyoto")
        #expect(screen.currentState.message == "The collage is titled \"Summer in Kyoto\"")
        screen.handle(.character("q"))
        // The next screen (the next `collage`) starts with it.
        let previews = FakePreviews()
        let next = try makeScreen(store, previews: previews)
        #expect(next.currentState.drawnTitle == "Summer in Kyoto")
        #expect(previews.collageOptions.map { $0.title?.text } == ["Summer in Kyoto"], "the picture draws it")
        next.handle(.character("t"))
        #expect(next.currentState.prompt == "Summer in Kyoto")
    }

    @MainActor @Test func tReplacesATitleGivenAtStartAndAnotherShellsTitleIsDrawn() throws {
        let store = InMemorySelectionStore([photo("a.jpg"), photo("b.jpg")], title: try title("Stored"))
        let previews = FakePreviews()
        let screen = try makeScreen(store, options: try CollageRenderOptions(title: title("Given")), previews: previews)
        #expect(screen.currentState.drawnTitle == "Given", "--title wins over the stored one")
        screen.handle(.character("t"))
        #expect(screen.currentState.prompt == "Given")
        screen.handle(.control("u"))
        type("Stored", into: screen)
        screen.handle(.enter)
        #expect(screen.currentState.drawnTitle == "Stored" && screen.renderOptions.title == nil)
        #expect(previews.collageOptions.map { $0.title?.text } == ["Given", "Stored"])
        // `collage title` in another shell: the screen follows on reload.
        try store.updateSelection { $0.title = try title("Elsewhere") }
        screen.collage.reload()
        #expect(screen.currentState.drawnTitle == "Elsewhere")
        #expect(previews.collageOptions.map { $0.title?.text } == ["Given", "Stored", "Elsewhere"])
    }

    @MainActor @Test func cClearsATitleWithoutPhotosAfterAsking() throws {
        let store = InMemorySelectionStore([], title: try title("Alone"))
        let screen = try makeScreen(store)
        #expect(screen.currentState.actions.first { $0.key == "c" }?.isEnabled == true)
        #expect(screen.currentState.actions.first { $0.key == "x" }?.isEnabled == false)
        screen.handle(.character("c"))
        #expect(screen.currentState.message == "Clear the title? Press c or y to clear it; any other key keeps it")
        screen.handle(.character("n"))
        #expect(screen.currentState.message == "Kept the title: nothing cleared")
        screen.handle(.character("c"))
        screen.handle(.character("y"))
        #expect(try store.loadSelection() == Selection())
        #expect(screen.currentState.drawnTitle == nil)
    }
}
