import CollageTestSupport
import Foundation
import Testing
@testable import CollageKit

/// Where `save -o` writes (issue #14).
@Suite struct SaveDestinationTests {
    let noon = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14 22:13:20 UTC

    func destination(_ output: String?, folders: Set<String> = []) -> SaveDestination {
        SaveDestination(output: output, workingDirectory: "/work") { folders.contains($0) }
    }

    @Test func aFileIsWrittenAsNamed() {
        let target = destination("out/x.png")
        #expect(target.path(now: noon) == "/work/out/x.png")
        #expect(!target.usesDefaultName)
        #expect(target.path(now: noon, attempt: 2) == "/work/out/x.png", "a name given is never changed")
    }

    @Test func aFolderGetsTheDefaultNameAndTakenNamesMoveOn() {
        let slash = destination("albums/")
        #expect(slash.usesDefaultName && slash.folder == "/work/albums")
        let existing = destination("albums", folders: ["/work/albums"])
        #expect(existing == slash)
        let name = defaultCollageFileName(now: noon)
        #expect(existing.path(now: noon) == "/work/albums/\(name)")
        #expect(existing.path(now: noon, attempt: 2) == "/work/albums/" + name.replacingOccurrences(of: ".jpg", with: "-2.jpg"))
        #expect(destination(nil).path(now: noon, attempt: 3).hasSuffix("-3.jpg"))
        #expect(destination(nil).folder == "/work")
    }
}
