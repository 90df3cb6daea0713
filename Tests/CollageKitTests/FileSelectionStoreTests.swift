import Foundation
import Testing
import CollageTestSupport
@testable import CollageKit

@Suite struct FileSelectionStoreTests {
    @Test func startsEmptyAndKeepsChangesAcrossInstances() throws {
        let directory = try temporaryDirectory()
        let store = FileSelectionStore(directory: directory)
        #expect(try store.load().isEmpty)
        try store.update { $0 = [photo("a.jpg"), photo("b b.png")] }
        #expect(try FileSelectionStore(directory: directory).load() == [photo("a.jpg"), photo("b b.png")])
    }

    @Test func aCorruptFileIsMovedAsideAndANewSelectionStarts() throws {
        let directory = try temporaryDirectory()
        let state = directory.appendingPathComponent("selection.json")
        try Data("{ not json".utf8).write(to: state)
        var notices: [String] = []
        let store = FileSelectionStore(directory: directory) { notices.append($0) }
        #expect(try store.load().isEmpty)
        #expect(notices.count == 1)
        let moved = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix("selection.json.corrupt-") }
        #expect(moved.count == 1)
        #expect(notices.first?.contains(moved.first ?? "?") == true)
        #expect(try String(contentsOf: directory.appendingPathComponent(moved[0]), encoding: .utf8) == "{ not json")
        #expect(!FileManager.default.fileExists(atPath: state.path))
    }

    @Test func relativePathsInTheFileCountAsCorrupt() throws {
        let directory = try temporaryDirectory()
        try Data(#"{"version":1,"photos":["relative.jpg"]}"#.utf8)
            .write(to: directory.appendingPathComponent("selection.json"))
        var notices: [String] = []
        #expect(try FileSelectionStore(directory: directory) { notices.append($0) }.load().isEmpty)
        #expect(notices.count == 1)
    }

    @Test func concurrentUpdatesLoseNothing() throws {
        let directory = try temporaryDirectory()
        // Separate instances open separate lock descriptors, as separate processes do.
        DispatchQueue.concurrentPerform(iterations: 40) { index in
            _ = try? FileSelectionStore(directory: directory).update { $0.append(photo("\(index).jpg")) }
        }
        let photos = try FileSelectionStore(directory: directory).load()
        #expect(photos.count == 40)
        #expect(Set(photos).count == 40)
    }

    @Test func leavesNoTemporaryFiles() throws {
        let directory = try temporaryDirectory()
        let store = FileSelectionStore(directory: directory)
        for index in 0..<5 { try store.update { $0.append(photo("\(index).jpg")) } }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            == ["selection.json", "selection.lock"])
    }

    @Test func defaultDirectoryFollowsXDG() {
        #expect(FileSelectionStore.defaultDirectory(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]).path == "/s/collage")
        #expect(FileSelectionStore.defaultDirectory(environment: ["HOME": "/h"]).path == "/h/.local/state/collage")
        // A relative XDG_STATE_HOME is invalid by the specification and ignored.
        #expect(FileSelectionStore.defaultDirectory(environment: ["XDG_STATE_HOME": "rel", "HOME": "/h"]).path
            == "/h/.local/state/collage")
    }
}
