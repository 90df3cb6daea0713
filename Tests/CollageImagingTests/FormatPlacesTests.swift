import Foundation
import Testing

/// A format plugs in at one place (issue #21): counted for WebP, the files
/// of Sources/ outside the system-library shims (Sources/C*) that name it are
/// its loader, its saver, the table and the format enum, and no more.
@Suite struct FormatPlacesTests {
    @Test func webPIsNamedInFourFilesOfSources() throws {
        let sources = TestData.packageRoot.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }
            .filter { ["swift", "c", "h", "cpp"].contains($0.pathExtension) }
            .filter { !isShim(String($0.path.dropFirst(sources.path.count + 1).prefix { $0 != "/" })) } ?? []
        let naming = try files.filter { try String(contentsOf: $0, encoding: .utf8).lowercased().contains("webp") }
            .map { $0.lastPathComponent }.sorted()
        #expect(naming == ["collage_imaging.h", "table.c", "webp_load.c", "webp_save.c"])
    }

    /// A system-library target: C and a capital (CWEBP, CJPEG), not Collage*.
    func isShim(_ target: String) -> Bool {
        let letters = Array(target)
        return letters.count > 1 && letters[0] == "C" && letters[1].isUppercase
    }
}
