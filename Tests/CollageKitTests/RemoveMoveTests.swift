import Dispatch
import Foundation
import CollageTestSupport
import Testing
@testable import CollageKit

/// Remove, reorder and missing photos (issue #11): rules in the view model,
/// through the locked store update, outputs following.
@Suite struct RemoveMoveTests {
    func collage(_ names: [String]) throws -> (CollageViewModel, InMemorySelectionStore) {
        let store = InMemorySelectionStore(names.map(photo))
        return (try makeViewModel(store: store), store)
    }

    @Test func removeTakesPhotosOutAndTheOutputsFollow() throws {
        let (viewModel, store) = try collage(["a.jpg", "b.jpg", "c.jpg", "d.jpg"])
        let titles = Recorder(viewModel.title)
        let canSave = Recorder(viewModel.canSave)
        #expect(viewModel.remove(at: [3, 1]) == .removed([photo("b.jpg"), photo("d.jpg")]))
        #expect(try store.load() == [photo("a.jpg"), photo("c.jpg")])
        #expect(viewModel.remove(at: [0]) == .removed([photo("a.jpg")]))
        #expect(viewModel.remove(at: [0]) == .removed([photo("c.jpg")]))
        #expect(viewModel.remove(at: [0]) == .refused(.nothingToRemove))
        #expect(titles.values == ["4 photos", "2 photos", "1 photo", "Collage"])
        #expect(canSave.values == [true, false])
    }

    @Test func anIndexOutOfRangeIsRefusedAndChangesNothing() throws {
        let (viewModel, store) = try collage(["a.jpg", "b.jpg"])
        #expect(viewModel.remove(at: [0, 2]) == .refused(.noSuchPhoto(position: 3, count: 2)))
        #expect(viewModel.move(from: 0, to: 5) == .refused(.noSuchPhoto(position: 6, count: 2)))
        #expect(viewModel.move(from: -1, to: 0) == .refused(.noSuchPhoto(position: 0, count: 2)))
        #expect(try store.load() == [photo("a.jpg"), photo("b.jpg")])
        #expect(CollageRefusal.noSuchPhoto(position: 3, count: 2).description == "there is no photo 3: the collage has 2 photos")
        #expect(CollageRefusal.noSuchPhoto(position: 0, count: 2).description == "photos are numbered from 1, not 0")
    }

    @Test func moveShiftsThePhotosBetween() throws {
        let (viewModel, store) = try collage(["a.jpg", "b.jpg", "c.jpg", "d.jpg"])
        #expect(viewModel.move(from: 3, to: 0) == .moved(photo("d.jpg"), to: 0))
        #expect(try store.load().map(\.fileName) == ["d.jpg", "a.jpg", "b.jpg", "c.jpg"])
        #expect(viewModel.move(from: 1, to: 2).message == "Moved a.jpg to 3")
        #expect(try store.load().map(\.fileName) == ["d.jpg", "b.jpg", "a.jpg", "c.jpg"])
        #expect(try makeViewModel().move(from: 0, to: 0) == .refused(.nothingToMove))
    }

    /// Another shell's change is in the store; the view model works on the
    /// latest selection, not on what it last saw.
    @Test func removeAndMoveActOnTheLatestStoredSelection() throws {
        let store = InMemorySelectionStore([photo("a.jpg"), photo("b.jpg")])
        let here = try makeViewModel(store: store)
        let elsewhere = try makeViewModel(store: store)
        elsewhere.add([photo("c.jpg")])
        #expect(here.remove(at: [2]) == .removed([photo("c.jpg")]))
        #expect(here.currentState.photos == [photo("a.jpg"), photo("b.jpg")])
    }

    @Test func aMissingPhotoIsReportedAndSaveIsRefusedNamingIt() throws {
        let store = InMemorySelectionStore([photo("a.jpg"), photo("gone.jpg")])
        let writer = FakeWriter()
        let renderer = FakeRenderer()
        let viewModel = try makeViewModel(store: store, renderer: renderer, writer: writer)
        #expect(viewModel.currentState.missing == [photo("gone.jpg")])
        let result = viewModel.save(to: URL(fileURLWithPath: "/out/c.jpg"), options: try CollageRenderOptions(), overwrite: false)
            .waitForCompletion()
        #expect(throws: CollageActionError.refused(.missingPhoto(path: "/photos/gone.jpg", position: 2))) { try result.get() }
        #expect(renderer.rendered.isEmpty, "refused before any work")
        #expect(viewModel.remove(at: [1]).isSuccess)
        #expect(viewModel.currentState.missing.isEmpty)
    }

    /// A file the system refuses to read (permissions) is not "missing":
    /// putting it back, the advice for a deleted one, would not help.
    @Test func anUnreadablePhotoIsToldFromAMissingOneWithItsReason() throws {
        let store = InMemorySelectionStore([photo("locked.jpg"), photo("gone.jpg")])
        let viewModel = try makeViewModel(store: store)
        #expect(viewModel.currentState.missing == [photo("locked.jpg"), photo("gone.jpg")])
        #expect(viewModel.currentState.absences == [photo("locked.jpg"): .unreadable(reason: "Permission denied"),
                                                    photo("gone.jpg"): .missing])
        #expect(viewModel.saveRefusal?.description
            == "photo 1 is unreadable (Permission denied): /photos/locked.jpg (remove it, or make it readable)")
        #expect(viewModel.remove(at: [0]).isSuccess)
        #expect(viewModel.saveRefusal?.description == "cannot save 1 photo: a collage needs an even number of photos")
        #expect(CollageRefusal.missingPhoto(path: "/photos/gone.jpg", position: 1, absence: .missing).description
            == "photo 1 is missing: /photos/gone.jpg (remove it, or put the file back)")
    }

    /// The system's reason, told from a file that has gone.
    @Test func aPhotosAbsenceIsReadFromTheFileSystem() throws {
        let folder = try temporaryDirectory()
        let file = folder.appendingPathComponent("a.jpg")
        try Data("x".utf8).write(to: file)
        #expect(Photo(path: file.path).absence == nil)
        #expect(Photo(path: folder.appendingPathComponent("gone.jpg").path).absence == .missing)
        #expect(Photo(path: file.path + "/under-a-file.jpg").absence == .missing)
        #expect(PhotoAbsence.unreadable(reason: "Permission denied").description == "unreadable (Permission denied)")
        // Root reads any file whatever its mode: only others see the refusal.
        if geteuid() != 0 {
            try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: file.path)
            #expect(Photo(path: file.path).absence == .unreadable(reason: "Permission denied"))
        }
    }

    /// A change made from another shell shows on the open screens within a
    /// tick of the live updates, without a key press.
    @MainActor @Test func liveUpdatesShowAnotherShellsChange() async throws {
        let store = InMemorySelectionStore([photo("a.jpg")])
        let coordinator = AppCoordinator(collage: try makeViewModel(store: store), browser: FakeBrowser([:]),
                                         startDirectory: "/")
        coordinator.startLiveUpdates(every: .milliseconds(20))
        try makeViewModel(store: store).add([photo("b.jpg")])
        // The ticks run on the main actor: sleeping here (not blocking) lets them.
        var seen = coordinator.collageScreen.currentState.title
        for _ in 0..<100 where seen != "2 photos" {
            try await Task.sleep(for: .milliseconds(10))
            seen = coordinator.collageScreen.currentState.title
        }
        #expect(seen == "2 photos")
    }
}
