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

@MainActor @Suite struct AppCoordinatorTests {
    let browser = FakeBrowser(["/p": ["a.jpg", "b.jpg", "c.png"]])
    /// Folders are judged here; `await settle(scan)` waits until a list is complete.
    let scan = DispatchQueue(label: "test.scan")

    func makeCoordinator() throws -> AppCoordinator {
        AppCoordinator(collage: try makeViewModel(), browser: browser, startDirectory: "/p",
                       scanQueue: scan)
    }

    @Test func addPicksAndComesBack() async throws {
        let coordinator = try makeCoordinator()
        let scenes = Recorder(coordinator.scene)
        coordinator.handle(.character("a"))
        #expect(coordinator.currentScene == .photos)
        await settle(scan)
        #expect(coordinator.photosScreen?.currentState.entries.count == 3)
        coordinator.handle(.enter)
        coordinator.handle(.down)
        coordinator.handle(.enter)
        coordinator.handle(.character("q"))
        #expect(coordinator.currentScene == .collage)
        #expect(scenes.values == [.collage, .photos, .collage])
        #expect(coordinator.collage.currentState.photos == [Photo(path: "/p/a.jpg"), Photo(path: "/p/b.jpg")])
        #expect(coordinator.collageScreen.currentState.title == "2 photos")
    }

    /// A refusal on the photos screen (a seventh photo) is that screen's:
    /// back on the collage screen it is not shown again.
    @Test func aMessageFromThePhotosScreenDoesNotStayOnTheCollageScreen() async throws {
        let coordinator = try makeCoordinator()
        coordinator.handle(.character("a"))
        await settle(scan)
        for _ in 0..<7 { coordinator.handle(.enter) }
        #expect(coordinator.collage.currentState.count == 6)
        #expect(coordinator.photosScreen?.currentState.message == "the collage is full: it holds at most 6 photos")
        coordinator.handle(.character("q"))
        #expect(coordinator.currentScene == .collage)
        #expect(coordinator.collageScreen.currentState.message == nil)
    }

    /// The original app's leak: every visit to the photos screen left a
    /// subscription behind. Here the count returns to where it was.
    @Test func resourcesStayFlatAcrossOpenCloseCycles() throws {
        let coordinator = try makeCoordinator()
        let baseline = coordinator.resources
        var whileOpen: Set<Int> = []
        for _ in 0..<25 {
            coordinator.handle(.character("a"))
            whileOpen.insert(coordinator.resources)
            coordinator.handle(.escape)
            #expect(coordinator.resources == baseline)
        }
        #expect(whileOpen.count == 1, "the same number of subscriptions on every visit")
        #expect(whileOpen.first! > baseline)
        #expect(coordinator.collage.livePickSubscriptions == 0)
    }

    @Test func controlCQuitsFromAnyScreen() throws {
        let coordinator = try makeCoordinator()
        let quits = Recorder(coordinator.quit)
        coordinator.handle(.character("a"))
        coordinator.handle(.control("c"))
        #expect(quits.values == [.interrupted])
        coordinator.handle(.escape)
        coordinator.handle(.character("q"))
        #expect(quits.values == [.interrupted, .asked])
    }
}
