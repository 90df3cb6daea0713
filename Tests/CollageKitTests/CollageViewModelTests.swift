import Foundation
import CollageTestSupport
import Testing
@testable import CollageKit
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

@Suite struct CollageViewModelTests {
    /// Adds photos one pick at a time, 0 to 7, through a pick source, and
    /// checks every output's exact sequence.
    @Test func outputsForEveryCountFromZeroToSeven() throws {
        let viewModel = try makeViewModel()
        let titles = Recorder(viewModel.title)
        let canAdd = Recorder(viewModel.canAdd)
        let canClear = Recorder(viewModel.canClear)
        let canSave = Recorder(viewModel.canSave)
        let counts = Recorder(viewModel.photos.map(\.count))
        let events = Recorder(viewModel.events)

        let source = CommandLinePhotoSource()
        viewModel.bind(picks: source.selectedPhotos)
        for index in 1...7 { source.pick([photo("\(index).jpg")]) }
        source.close()

        #expect(titles.values == ["Collage", "1 photo", "2 photos", "3 photos", "4 photos", "5 photos", "6 photos"])
        #expect(counts.values == [0, 1, 2, 3, 4, 5, 6])
        #expect(canAdd.values == [true, false])
        #expect(canClear.values == [false, true])
        #expect(canSave.values == [false, true, false, true, false, true])
        #expect(events.values.count == 7)
        #expect(events.values.last == .refused(.full(count: 6, adding: 1)))
        #expect(viewModel.currentState.photos.map(\.fileName) == ["1.jpg", "2.jpg", "3.jpg", "4.jpg", "5.jpg", "6.jpg"])
    }

    @Test("derived state for each count", arguments: 0...7)
    func stateForCount(count: Int) {
        let state = CollageState(photos: (0..<count).map { photo("\($0).jpg") })
        #expect(state.title == ["Collage", "1 photo", "2 photos", "3 photos", "4 photos", "5 photos", "6 photos", "7 photos"][count])
        #expect(state.canAdd == (count < 6))
        #expect(state.canClear == (count > 0))
        #expect(state.canSave == [false, false, true, false, true, false, true, false][count])
    }

    @Test func aPickThatWouldOverflowAddsNothing() throws {
        let store = InMemorySelectionStore((1...5).map { photo("\($0).jpg") })
        let viewModel = try makeViewModel(store: store)
        let states = Recorder(viewModel.state)
        let outcome = viewModel.add([photo("a.jpg"), photo("b.jpg")])
        #expect(outcome == .refused(.full(count: 5, adding: 2)))
        #expect(try store.load().count == 5)
        #expect(states.values.count == 1, "a refused action publishes no new state")
    }

    @Test func oneUnreadablePhotoAddsNothing() throws {
        let store = InMemorySelectionStore()
        let viewModel = try makeViewModel(store: store)
        let outcome = viewModel.add([photo("good.jpg"), photo("bad.txt"), photo("other.jpg")])
        #expect(outcome == .refused(.unreadablePhoto(path: "/photos/bad.txt", reason: "/photos/bad.txt: not a JPEG, PNG, HEIF or WebP file")))
        #expect(outcome.message == "/photos/bad.txt: not a JPEG, PNG, HEIF or WebP file")
        #expect(try store.load().isEmpty)
    }

    @Test func anEmptyPickIsRefused() throws {
        let viewModel = try makeViewModel()
        #expect(viewModel.add([]) == .refused(.nothingToAdd))
    }

    @Test func clearRefusedWhenEmptyAndEmptiesOtherwise() throws {
        let store = InMemorySelectionStore()
        let viewModel = try makeViewModel(store: store)
        #expect(viewModel.clear() == .refused(.nothingToClear))
        viewModel.add([photo("a.jpg"), photo("b.jpg"), photo("c.jpg")])
        let titles = Recorder(viewModel.title)
        #expect(viewModel.clear() == .cleared)
        #expect(try store.load().isEmpty)
        #expect(titles.values == ["3 photos", "Collage"])
    }

    @Test("save is refused for an empty or odd selection, and nothing is written", arguments: [0, 1, 3, 5])
    func saveRefused(count: Int) throws {
        let store = InMemorySelectionStore((0..<count).map { photo("\($0).jpg") })
        let renderer = FakeRenderer()
        let writer = FakeWriter()
        let viewModel = try makeViewModel(store: store, renderer: renderer, writer: writer)
        let result = viewModel.save(to: URL(fileURLWithPath: "/out/c.jpg"), options: try CollageRenderOptions(), overwrite: false)
            .waitForCompletion()
        let expected: CollageRefusal = count == 0 ? .nothingToSave : .oddCount(count)
        #expect(throws: CollageActionError.refused(expected)) { try result.get() }
        #expect(renderer.rendered.isEmpty)
        #expect(writer.saved.isEmpty)
        #expect(try store.load().count == count)
    }

    @Test func saveToStandardOutputSendsThenClearsAndAFailureKeeps() throws {
        let store = InMemorySelectionStore([photo("a.jpg"), photo("b.jpg")])
        let writer = FakeWriter()
        let viewModel = try makeViewModel(store: store, writer: writer)
        let events = Recorder(viewModel.events)
        writer.failure = StandardOutput.WriteError(description: "Broken pipe")
        let failed = viewModel.save(to: .standardOutput(.avif), options: try CollageRenderOptions(), overwrite: false)
            .waitForCompletion()
        #expect(throws: CollageActionError.self) { try failed.get() }
        #expect(events.values.last?.message == "cannot save to standard output: Broken pipe")
        #expect(try store.load().count == 2)
        writer.failure = nil
        try viewModel.save(to: .standardOutput(.avif), options: try CollageRenderOptions(), overwrite: false)
            .waitForCompletion().get()
        #expect(writer.sent == [.avif] && writer.saved.isEmpty)
        #expect(events.values.last == .saved(path: "standard output"))
        #expect(try store.load().isEmpty)
    }

    @Test func saveWithKeepWritesAndKeepsTheSelection() throws {
        let photos = (0..<4).map { photo("\($0).jpg") }
        let store = InMemorySelectionStore(photos)
        let writer = FakeWriter()
        let viewModel = try makeViewModel(store: store, writer: writer)
        let events = Recorder(viewModel.events)
        let result = viewModel.save(to: URL(fileURLWithPath: "/out/c.jpg"), options: try CollageRenderOptions(),
                                    overwrite: false, keep: true).waitForCompletion()
        #expect(throws: Never.self) { try result.get() }
        #expect(writer.saved == [URL(fileURLWithPath: "/out/c.jpg")])
        #expect(try store.load() == photos)
        #expect(viewModel.currentState.count == 4)
        #expect(events.values == [.saved(path: "/out/c.jpg")])
    }

    @Test func thePlanIsThePhotosCellsAndWritesNothing() throws {
        // FakeInspector's photos are 4 x 3: four of them on a 800 x 300 canvas in auto go side by side.
        let photos = (0..<4).map { photo("\($0).jpg") }
        let store = InMemorySelectionStore(photos)
        let writer = FakeWriter()
        let viewModel = try makeViewModel(store: store, writer: writer)
        let options = try CollageRenderOptions(size: RequestedSize(width: 1600, height: 300), layout: .auto)
        let plan = try viewModel.plan(options: options).get()
        #expect(plan.canvas == (try CanvasSize(width: 1600, height: 300)) && plan.layout == .auto)
        #expect(plan.photos.map(\.photo) == photos)
        #expect(plan.photos.map(\.cell) == (0..<4).map { CellRect(x: $0 * 400, y: 0, width: 400, height: 300) })
        #expect(plan.photos.allSatisfy { $0.shape == PhotoShape(width: 4, height: 3) && $0.shown == CellRect(x: 0, y: 0, width: 4, height: 3) })
        #expect(writer.saved.isEmpty)
        #expect(try store.load() == photos)
    }

    /// Whether a file is whole is asked when it is added, and only then: the
    /// plan (`save --dry-run`) reads the photos' headers, which a file cut
    /// short after them still has.
    @Test func onlyAddAsksWhetherAFileIsWhole() throws {
        final class CutShort: PhotoInspecting, Sendable {
            let asked = Locked<[String]>([])
            func absence(of photo: Photo) -> PhotoAbsence? { nil }
            func inspect(_ photo: Photo) throws -> PhotoInfo {
                asked.withLock { $0.append("inspect \(photo.fileName)") }
                return FakeInspector.info
            }
            func admit(_ photo: Photo) throws -> Admission {
                asked.withLock { $0.append("admit \(photo.fileName)") }
                guard !photo.fileName.hasPrefix("cut") else {
                    throw ImageEngineError(kind: .corrupt, message: "\(photo.path): the file is cut short (no end)")
                }
                return Admission(info: FakeInspector.info)
            }
        }
        let inspector = CutShort()
        let store = InMemorySelectionStore()
        let viewModel = try CollageViewModel(store: store, inspector: inspector, renderer: FakeRenderer(), writer: FakeWriter())
        #expect(viewModel.add([photo("cut.jpg")]) == .refused(.unreadablePhoto(path: "/photos/cut.jpg",
                                                                           reason: "/photos/cut.jpg: the file is cut short (no end)")))
        #expect(viewModel.add([photo("a.jpg"), photo("b.jpg")]).isSuccess)
        #expect(Set(inspector.asked.current) == ["admit cut.jpg", "admit a.jpg", "admit b.jpg"])

        // Cut short since it was added: the plan does not ask.
        try store.update { $0 = [photo("a.jpg"), photo("cut.jpg")] }
        inspector.asked.withLock { $0 = [] }
        let options = try CollageRenderOptions(size: RequestedSize(width: 800, height: 300), layout: .auto)
        #expect(try viewModel.plan(options: options).get().photos.count == 2)
        #expect(inspector.asked.current == ["inspect a.jpg", "inspect cut.jpg"])
    }

    /// What `admit` tells of a photo it accepts (corrupt data its decoder
    /// reads past) is said when the pick is recorded, in the pick's order,
    /// and not when the pick is refused: then the refusal is what to read.
    @Test func anAcceptedPhotosNoticesAreSaidWhenItIsRecorded() throws {
        struct Damaged: PhotoInspecting {
            func inspect(_ photo: Photo) throws -> PhotoInfo { FakeInspector.info }
            func admit(_ photo: Photo) throws -> Admission {
                if photo.fileName.hasPrefix("gone") { throw ImageEngineError(kind: .open, message: "\(photo.path): gone") }
                let damaged = photo.fileName.hasPrefix("damaged")
                return Admission(info: FakeInspector.info, notices: damaged ? [.corruptData(photo, count: 3)] : [])
            }
        }
        let told = Locked<[PhotoNotice]>([])
        let viewModel = try CollageViewModel(store: InMemorySelectionStore(), inspector: Damaged(), renderer: FakeRenderer(),
                                             writer: FakeWriter(), notice: { notice in told.withLock { $0.append(notice) } })
        #expect(viewModel.add([photo("damaged-1.jpg"), photo("a.jpg"), photo("damaged-2.jpg")]).isSuccess)
        #expect(told.current == [.corruptData(photo("damaged-1.jpg"), count: 3), .corruptData(photo("damaged-2.jpg"), count: 3)])
        told.withLock { $0 = [] }
        #expect(!viewModel.add([photo("damaged-3.jpg"), photo("gone.jpg")]).isSuccess)
        #expect(told.current.isEmpty)
        // Refused by the rules (a seventh photo), after the files were read: not said either.
        #expect(viewModel.add([photo("b.jpg"), photo("c.jpg"), photo("d.jpg")]).isSuccess)
        #expect(!viewModel.add([photo("damaged-4.jpg")]).isSuccess)
        #expect(told.current.isEmpty)
    }

    @Test("the plan is refused as a save would be", arguments: [0, 3])
    func planRefused(count: Int) throws {
        let viewModel = try makeViewModel(store: InMemorySelectionStore((0..<count).map { photo("\($0).jpg") }))
        let expected: CollageRefusal = count == 0 ? .nothingToSave : .oddCount(count)
        #expect(throws: CollageActionError.refused(expected)) { try viewModel.plan(options: .defaults).get() }
    }

    @Test("save writes then clears", arguments: [2, 4, 6])
    func saveWritesThenClears(count: Int) throws {
        let photos = (0..<count).map { photo("\($0).jpg") }
        let store = InMemorySelectionStore(photos)
        let renderer = FakeRenderer()
        let writer = FakeWriter()
        let viewModel = try makeViewModel(store: store, renderer: renderer, writer: writer)
        let events = Recorder(viewModel.events)
        let titles = Recorder(viewModel.title)
        let result = viewModel.save(to: URL(fileURLWithPath: "/out/c.png"), options: try CollageRenderOptions(), overwrite: false)
            .waitForCompletion()
        #expect(throws: Never.self) { try result.get() }
        #expect(renderer.rendered == [photos])
        #expect(writer.saved == [URL(fileURLWithPath: "/out/c.png")])
        #expect(try store.load().isEmpty)
        #expect(events.values == [.saved(path: "/out/c.png")])
        #expect(titles.values == ["\(count) photos", "Collage"])
    }

    @Test func aFailedWriteKeepsTheSelection() throws {
        let photos = [photo("a.jpg"), photo("b.jpg")]
        let store = InMemorySelectionStore(photos)
        let writer = FakeWriter()
        writer.failure = FileWriteError.exists(path: "/out/c.jpg")
        let viewModel = try makeViewModel(store: store, writer: writer)
        let result = viewModel.save(to: URL(fileURLWithPath: "/out/c.jpg"), options: try CollageRenderOptions(), overwrite: false)
            .waitForCompletion()
        #expect(throws: CollageActionError.self) { try result.get() }
        if case let .failure(error) = result {
            #expect("\(error)" == "cannot save /out/c.jpg: /out/c.jpg already exists")
            #expect((error as? CollageActionError)?.failure?.kind == .outputExists)
            #expect((error as? CollageActionError)?.failure?.path == "/out/c.jpg")
        }
        #expect(try store.load() == photos)
    }

    /// A file that exists (without overwrite) is refused before the photos
    /// are drawn, not after drawing them all; with overwrite it is drawn and
    /// saved.
    @Test func anExistingFileIsRefusedBeforeAnythingIsDrawn() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let existing = folder.appendingPathComponent("c.jpg")
        try Data([1]).write(to: existing)
        let photos = [photo("a.jpg"), photo("b.jpg")]
        let store = InMemorySelectionStore(photos)
        let renderer = FakeRenderer()
        let writer = FakeWriter()
        let viewModel = try makeViewModel(store: store, renderer: renderer, writer: writer)
        let refused = viewModel.save(to: existing, options: try CollageRenderOptions(), overwrite: false)
            .waitForCompletion()
        guard case let .failure(error) = refused else { Issue.record("saved over \(existing.path)"); return }
        #expect("\(error)" == "cannot save \(existing.path): \(existing.path) already exists")
        #expect((error as? CollageActionError)?.failure?.kind == .outputExists)
        #expect(renderer.rendered.isEmpty)
        #expect(writer.saved.isEmpty)
        #expect(try store.load() == photos)

        let replaced = viewModel.save(to: existing, options: try CollageRenderOptions(), overwrite: true)
            .waitForCompletion()
        #expect(throws: Never.self) { try replaced.get() }
        #expect(renderer.rendered == [photos])
        #expect(writer.saved == [existing])
    }

    /// An error no service names is not passed off as a failed write (or any
    /// other kind it may not be): it is unexpected, in its own words (issue #21).
    @Test func anErrorNoServiceNamesIsUnexpected() throws {
        struct Odd: Error, CustomStringConvertible { var description: String { "something odd" } }
        let store = InMemorySelectionStore([photo("a.jpg"), photo("b.jpg")])
        let writer = FakeWriter()
        writer.failure = Odd()
        let viewModel = try makeViewModel(store: store, writer: writer)
        let result = viewModel.save(to: URL(fileURLWithPath: "/out/c.jpg"), options: try CollageRenderOptions(), overwrite: false)
            .waitForCompletion()
        guard case let .failure(error) = result else { Issue.record("saved"); return }
        let failure = try #require((error as? CollageActionError)?.failure)
        #expect(failure.kind == .unexpected && failure.message == "cannot save /out/c.jpg: something odd")
        #expect(CollageFailure(FileWriteError.io(path: "/out/c.jpg", reason: "No space left on device")).kind == .write)
        #expect(try store.load().count == 2)
    }

    @Test func aVanishedPhotoFailsTheSaveNamingItAndKeepsTheSelection() throws {
        let photos = [photo("a.jpg"), photo("gone.jpg")]
        let store = InMemorySelectionStore(photos)
        let viewModel = try makeViewModel(store: store)
        let result = viewModel.save(to: URL(fileURLWithPath: "/out/c.jpg"), options: try CollageRenderOptions(), overwrite: false)
            .waitForCompletion()
        guard case let .failure(error) = result else {
            Issue.record("the save should have failed")
            return
        }
        #expect("\(error)".contains("/photos/gone.jpg"))
        #expect(try store.load() == photos)
    }

    @Test func anUnsupportedExtensionIsRefusedBeforeRendering() throws {
        let renderer = FakeRenderer()
        let viewModel = try makeViewModel(store: InMemorySelectionStore([photo("a.jpg"), photo("b.jpg")]), renderer: renderer)
        let result = viewModel.save(to: URL(fileURLWithPath: "/out/c.gif"), options: try CollageRenderOptions(), overwrite: false)
            .waitForCompletion()
        #expect(throws: CollageActionError.failed(CollageFailure(.options, message: "cannot save as '.gif': use .jpg, .jpeg, .png, .avif, .webp or .pdf"))) {
            try result.get()
        }
        #expect(renderer.rendered.isEmpty)
    }

    @Test func photosAddedDuringASaveAreKept() throws {
        let store = InMemorySelectionStore([photo("a.jpg"), photo("b.jpg")])
        let writer = FakeWriter()
        // Another shell adds a photo while this one writes the file.
        writer.during = { _ = try? store.update { $0.append(photo("late.jpg")) } }
        let viewModel = try makeViewModel(store: store, writer: writer)
        _ = viewModel.save(to: URL(fileURLWithPath: "/out/c.jpg"), options: try CollageRenderOptions(), overwrite: false)
            .waitForCompletion()
        #expect(try store.load() == [photo("late.jpg")])
        #expect(viewModel.currentState.photos == [photo("late.jpg")])
    }

    /// The original app leaked a subscription per visit to the photos screen;
    /// completing `selectedPhotos` when the screen closes fixes it.
    @Test func pickSubscriptionsEndWhenTheSourceCompletes() throws {
        let viewModel = try makeViewModel()
        #expect(viewModel.livePickSubscriptions == 0)
        for cycle in 1...20 {
            let source = CommandLinePhotoSource()
            viewModel.bind(picks: source.selectedPhotos)
            #expect(viewModel.livePickSubscriptions == 1)
            if cycle <= 6 { source.pick([photo("\(cycle).jpg")]) }
            source.close()
            #expect(viewModel.livePickSubscriptions == 0)
        }
        #expect(viewModel.currentState.count == 6)
    }

    @Test func aSourceThatAlreadyCompletedLeavesNoSubscription() throws {
        let viewModel = try makeViewModel()
        viewModel.bind(picks: Just([photo("a.jpg")]))
        #expect(viewModel.livePickSubscriptions == 0)
        #expect(viewModel.currentState.count == 1)
    }
}
