import Dispatch
import Foundation
import Testing
import CollageTestSupport
@testable import CollageKit

/// The collage screen's layout key, the question before a clear, the list of
/// keys and where a save goes (issue #19, "On screen").
@MainActor @Suite struct CollageScreenKeysTests {
    /// Saves run here; `await settle(work)` waits for one.
    let work = DispatchQueue(label: "test.save")

    struct Screen {
        let screen: CollageScreenViewModel
        let store: InMemorySelectionStore
        let previews: FakePreviews
        let renderer: FakeRenderer
        let writer: FakeWriter
    }

    func makeScreen(_ names: [String], options: CollageRenderOptions = .defaults) throws -> Screen {
        let store = InMemorySelectionStore(names.map(photo))
        let previews = FakePreviews(), renderer = FakeRenderer(), writer = FakeWriter()
        let collage = try makeViewModel(store: store, renderer: renderer, writer: writer, workQueue: work)
        let screen = CollageScreenViewModel(collage: collage, previews: previews, workingDirectory: "/work",
                                            renderOptions: options,
                                            now: { Date(timeIntervalSince1970: 0) })
        screen.setPreviewSize(columns: 40, rows: 12)
        return Screen(screen: screen, store: store, previews: previews, renderer: renderer, writer: writer)
    }

    // MARK: l: the layouts

    @Test func lCyclesTheLayoutsAndThePictureIsDrawnInEach() throws {
        let t = try makeScreen(["a.jpg", "b.jpg"])
        #expect(t.screen.currentState.layout == .auto)
        #expect(t.previews.collageOptions.map(\.layout) == [.auto])
        var seen: [LayoutMode] = []
        for _ in 0..<4 {
            t.screen.handle(.character("l"))
            seen.append(t.screen.currentState.layout)
        }
        #expect(seen == [.grid, .rows, .columns, .auto])
        // A new picture for every layout, with every other option kept.
        #expect(t.previews.collageOptions.map(\.layout) == [.auto, .grid, .rows, .columns, .auto])
        #expect(t.previews.collageOptions.allSatisfy { $0.size == CollageRenderOptions.defaults.size })
        #expect(t.screen.currentState.message == nil)
        #expect(t.screen.currentState.preview == .picture(
            TerminalPicture(kind: .symbols, columns: 40, rows: 12, lines: ["a.jpg+b.jpg"])))
    }

    @Test func theCropKeysAndASaveUseTheLayoutShown() async throws {
        let t = try makeScreen(["a.jpg", "b.jpg"])
        t.screen.handle(.character("l"))
        t.screen.handle(.character("L"))
        #expect(t.previews.cropOptions.map(\.layout) == [.grid])
        t.screen.handle(.character("s"))
        t.screen.handle(.enter)
        await settle(work)
        #expect(t.screen.currentState.message == "Saved /work/collage-19700101-000000.jpg")
        #expect(t.renderer.renderedOptions.map(\.layout) == [.grid])
    }

    /// A size on paper is shown as asked, with the resolution and the pixels it makes.
    @Test func aSizeOnPaperIsShownWithItsResolutionAndPixels() throws {
        var options = CollageRenderOptions.defaults
        try options.resize(to: SizeRequest(parsing: "A4-landscape"), dpi: PrintResolution(parsing: "150"))
        let t = try makeScreen(["a.jpg", "b.jpg"], options: options)
        #expect(t.screen.currentState.canvas == "A4-landscape at 150 dpi, 1754x1240")
        #expect(try makeScreen(["a.jpg"]).screen.currentState.canvas == "1920x1080")
    }

    @Test func aSizeOnlyOneLayoutCanDrawIsNotCycledAway() throws {
        let options = try CollageRenderOptions(size: RequestedSize(parsing: "1920x"), layout: .rows)
        let t = try makeScreen(["a.jpg", "b.jpg"], options: options)
        #expect(t.screen.currentState.canvas == "1920 wide")
        t.screen.handle(.character("l"))
        #expect(t.screen.currentState.layout == .rows)
        #expect(t.screen.currentState.message
            == "Only the rows layout can draw the size 1920x: the others need both sides")
        #expect(t.previews.collageOptions.map(\.layout) == [.rows], "no picture asked for a layout that cannot be drawn")
        // And the same turned.
        let turned = try makeScreen(["a.jpg"], options: CollageRenderOptions(size: RequestedSize(parsing: "x1080"),
                                                                            layout: .columns))
        turned.screen.handle(.character("l"))
        #expect(turned.screen.currentState.layout == .columns)
        #expect(turned.screen.currentState.canvas == "1080 high")
    }

    @Test func theLayoutRuleIsTheLayoutModelsOwn() throws {
        let full = RequestedSize.default, wide = try RequestedSize(parsing: "1920x"), high = try RequestedSize(parsing: "x1080")
        #expect(LayoutMode.allCases.allSatisfy { CollageRules.layoutRefusal($0, size: full) == nil })
        #expect(LayoutMode.allCases.filter { CollageRules.layoutRefusal($0, size: wide) == nil } == [.rows])
        #expect(LayoutMode.allCases.filter { CollageRules.layoutRefusal($0, size: high) == nil } == [.columns])
        #expect(CollageRules.layoutRefusal(.columns, size: wide)?.description
            == "the columns layout cannot draw the size 1920x: it leaves the height to the photos, which only rows does")
    }

    // MARK: c: asked first

    @Test func cAsksAndAnyOtherKeyKeepsThePhotosWithoutActing() throws {
        let t = try makeScreen(["a.jpg", "b.jpg"])
        t.screen.handle(.character("c"))
        #expect(t.screen.currentState.confirmingClear)
        #expect(t.screen.currentState.message == "Clear all 2 photos? Press c or y to clear; any other key keeps them")
        #expect(try t.store.load().count == 2, "nothing cleared yet")
        // x would remove the highlighted photo: here it only answers no.
        t.screen.handle(.character("x"))
        #expect(!t.screen.currentState.confirmingClear)
        #expect(t.screen.currentState.message == "Kept 2 photos: nothing cleared")
        #expect(try t.store.load().map(\.fileName) == ["a.jpg", "b.jpg"])
        // The next key acts again.
        t.screen.handle(.character("x"))
        #expect(try t.store.load().map(\.fileName) == ["b.jpg"])
    }

    @Test("c, then c or y, clears", arguments: ["c", "y"])
    func cThenYesClears(answer: Character) throws {
        let t = try makeScreen(["a.jpg"])
        t.screen.handle(.character("c"))
        #expect(t.screen.currentState.message == "Clear the photo? Press c or y to clear it; any other key keeps it")
        t.screen.handle(.character(answer))
        #expect(try t.store.load().isEmpty)
        #expect(t.screen.currentState.message == "Cleared")
        #expect(!t.screen.currentState.confirmingClear)
        // Empty: refused at once by the rules, nothing asked.
        t.screen.handle(.character("c"))
        #expect(!t.screen.currentState.confirmingClear)
        #expect(t.screen.currentState.message == "nothing to clear: the collage is empty")
    }

    @Test func escapeAndQuitAnswerNoRatherThanLeave() throws {
        let t = try makeScreen(["a.jpg", "b.jpg"])
        let routes = Recorder(t.screen.routes)
        for key in [Key.escape, .character("q")] {
            t.screen.handle(.character("c"))
            t.screen.handle(key)
            #expect(t.screen.currentState.message == "Kept 2 photos: nothing cleared")
        }
        #expect(routes.values.isEmpty)
        #expect(try t.store.load().count == 2)
    }

    // MARK: ?: every key

    @Test func questionMarkListsEveryKeyAndAnyKeyClosesIt() throws {
        let t = try makeScreen(["a.jpg", "b.jpg"])
        #expect(t.screen.currentState.actions.map(\.key) == ["↑↓", "a", "x", "[]", "HJKL", "F", "e", "t", "l", "c", "s", "q", "?"])
        t.screen.handle(.character("?"))
        #expect(t.screen.currentState.showingKeys)
        t.screen.handle(.character("c"))
        #expect(!t.screen.currentState.showingKeys)
        #expect(!t.screen.currentState.confirmingClear, "the key that closes the list does nothing else")
        #expect(t.screen.currentState.message == nil)
    }

    // MARK: t: the title

    func type(_ text: String, into screen: CollageScreenViewModel) {
        for character in text { screen.handle(.character(character)) }
    }

    @Test func tSetsTheTitleThePictureAndASaveUse() async throws {
        let t = try makeScreen(["a.jpg", "b.jpg"])
        #expect(t.screen.currentState.drawnTitle == nil)
        t.screen.handle(.character("t"))
        #expect(t.screen.currentState.prompt == "" && t.screen.currentState.promptPurpose == .title)
        #expect(t.screen.currentState.captioning == nil)
        type("Summer in Kyoto · 2026", into: t.screen)
        t.screen.handle(.enter)
        #expect(t.screen.currentState.prompt == nil)
        #expect(t.screen.currentState.message == "The collage is titled \"Summer in Kyoto · 2026\"")
        #expect(t.screen.currentState.drawnTitle == "Summer in Kyoto · 2026")
        #expect(try t.store.loadSelection().title?.text == "Summer in Kyoto · 2026", "kept with the selection")
        // The picture is drawn again with it, every other option kept.
        #expect(t.previews.collageOptions.map { $0.title?.text } == [nil, "Summer in Kyoto · 2026"])
        #expect(t.previews.collageOptions.last?.layout == CollageRenderOptions.defaults.layout)
        t.screen.handle(.character("s"))
        #expect(t.screen.currentState.promptPurpose == .save)
        t.screen.handle(.enter)
        await settle(work)
        #expect(t.screen.currentState.message == "Saved /work/collage-19700101-000000.jpg")
        #expect(t.renderer.renderedOptions.map { $0.title?.text } == ["Summer in Kyoto · 2026"])
    }

    @Test func theTitlePromptStartsFromTheTitleAndEmptyClearsIt() throws {
        let options = try CollageRenderOptions(title: CollageTitle("Old"))
        let t = try makeScreen(["a.jpg", "b.jpg"], options: options)
        #expect(t.screen.currentState.drawnTitle == "Old")
        t.screen.handle(.character("t"))
        #expect(t.screen.currentState.prompt == "Old")
        type("er", into: t.screen)
        t.screen.handle(.escape)
        #expect(t.screen.currentState.message == "Title unchanged" && t.screen.currentState.prompt == nil)
        #expect(t.screen.renderOptions.title?.text == "Old")
        #expect(t.screen.currentState.drawnTitle == "Old")
        t.screen.handle(.character("t"))
        t.screen.handle(.control("u"))
        type("  ", into: t.screen)
        t.screen.handle(.enter)
        #expect(t.screen.currentState.prompt == nil && t.screen.currentState.drawnTitle == nil)
        #expect(try t.screen.renderOptions.title == nil && t.store.loadSelection().title == nil)
        #expect(t.previews.collageOptions.map { $0.title?.text } == ["Old", nil])
    }

    @Test func aTitleTooLongKeepsThePromptAndSaysWhy() throws {
        let t = try makeScreen([])
        t.screen.handle(.character("t"))
        type(String(repeating: "a", count: CollageTitle.maximumCharacters + 1), into: t.screen)
        t.screen.handle(.enter)
        #expect(t.screen.currentState.promptPurpose == .title && t.screen.currentState.prompt != nil, "the prompt stays open")
        #expect(t.screen.currentState.message == "the title has 1001 characters, over the limit of 1000")
        #expect(try t.screen.renderOptions.title == nil && t.store.loadSelection().title == nil)
        // A title needs no photos: it waits for them.
        t.screen.handle(.backspace)
        t.screen.handle(.enter)
        #expect(t.screen.currentState.prompt == nil && t.screen.currentState.drawnTitle?.count == 1000)
    }

    @Test func tIsInTheKeyBarAndTheListOfKeys() throws {
        let t = try makeScreen([])
        let action = try #require(t.screen.currentState.actions.first { $0.key == "t" })
        #expect(action.label == "title" && action.isEnabled)
        #expect(action.help == "edit the title across the top of the collage")
    }

    // MARK: s: where a save goes

    @Test func theSavePromptOffersTheFolderLastBrowsed() async throws {
        let browser = FakeBrowser(["/p": ["alpha/"], "/p/alpha": ["a.jpg", "b.jpg"]])
        let scan = DispatchQueue(label: "test.scan")
        let writer = FakeWriter()
        let coordinator = AppCoordinator(collage: try makeViewModel(writer: writer, workQueue: work), browser: browser,
                                         startDirectory: "/work", scanQueue: scan)
        // Before any browsing: the working directory, as the bare name.
        coordinator.handle(.character("s"))
        #expect(coordinator.collageScreen.currentState.prompt == nil, "nothing to save yet")
        coordinator.openPhotos(at: Photo(path: "/p"))
        await settle(scan)
        coordinator.handle(.enter)  // into alpha/
        await settle(scan)
        coordinator.handle(.enter)
        coordinator.handle(.character("j"))
        coordinator.handle(.enter)
        coordinator.handle(.character("q"))
        #expect(coordinator.currentScene == .collage)
        coordinator.handle(.character("s"))
        let prompt = try #require(coordinator.collageScreen.currentState.prompt)
        #expect(prompt.hasPrefix("/p/alpha/collage-") && prompt.hasSuffix(".jpg"))
        coordinator.handle(.enter)
        await settle(work)
        #expect(writer.saved.first?.path.hasPrefix("/p/alpha/collage-") == true)
    }

    @Test func withoutBrowsingThePromptIsTheBareName() throws {
        let t = try makeScreen(["a.jpg", "b.jpg"])
        t.screen.handle(.character("s"))
        #expect(t.screen.currentState.prompt == "collage-19700101-000000.jpg")
    }

    @Test func aFolderWhoseNameIsNotUTF8IsNotOffered() throws {
        let t = try makeScreen(["a.jpg", "b.jpg"])
        t.screen.browsed(folder: Photo(fileSystemPath: Array("/p/d".utf8) + [0xE9]))
        t.screen.handle(.character("s"))
        #expect(t.screen.currentState.prompt == "collage-19700101-000000.jpg")
        t.screen.handle(.escape)
        t.screen.browsed(folder: Photo(path: "/"))
        t.screen.handle(.character("s"))
        #expect(t.screen.currentState.prompt == "/collage-19700101-000000.jpg")
    }
}
