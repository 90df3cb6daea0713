import Foundation
import Testing

/// A format plugs in at one place (issue #21): counted for WebP, the files
/// of Sources/ outside the system-library shims (Sources/SystemLibraries) that name it are
/// its loader, its writer, the two tables (loaders', writers') and the
/// format enum, and no more.
@Suite struct FormatPlacesTests {
    @Test func webPIsNamedInFiveFilesOfSources() throws {
        let sources = TestData.packageRoot.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }
            .filter { ["swift", "c", "h", "cpp"].contains($0.pathExtension) }
            .filter { !$0.path.hasPrefix(sources.appendingPathComponent("SystemLibraries").path + "/") } ?? []
        let naming = try files.filter { try String(contentsOf: $0, encoding: .utf8).lowercased().contains("webp") }
            .map { $0.lastPathComponent }.sorted()
        #expect(naming == ["collage_imaging.h", "table.c", "webp_load.c", "webp_save.c", "writers.c"])
    }

    /// The top of Sources/ is the layers and one folder of system-library
    /// shims, which holds only those.
    @Test func theShimsHaveAFolderOfTheirOwn() throws {
        let sources = TestData.packageRoot.appendingPathComponent("Sources")
        let top = try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
        #expect(top == ["CollageFaces", "CollageImaging", "CollageKit", "CollagePlaces", "CollageSystem", "CollageTerminal",
                        "SystemLibraries", "collage"])
        let shims = try FileManager.default.contentsOfDirectory(atPath: sources.appendingPathComponent("SystemLibraries").path)
        #expect(shims.count == 14 && shims.allSatisfy { $0.hasPrefix("C") }, "\(shims)")
    }
}
