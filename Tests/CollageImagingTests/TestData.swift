import Foundation
import Testing

/// Where the shared conformance data lives: `../shared/testdata/` beside the
/// repository (or `COLLAGE_TESTDATA`). Tests that need it say plainly when it
/// is absent instead of passing silently.
enum TestData {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let root: URL = {
        if let override = ProcessInfo.processInfo.environment["COLLAGE_TESTDATA"] {
            return URL(fileURLWithPath: override)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/testdata")
    }()

    static func folder(_ name: String) -> URL? {
        let url = root.appendingPathComponent(name)
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir), isDir.boolValue else {
            return nil
        }
        return url
    }

    /// On CI (or with COLLAGE_REQUIRE_TESTDATA=1) missing data is a failure,
    /// so conformance can never silently stop being tested there; elsewhere
    /// (a clone without `../shared/`) the tests say so and are skipped.
    static var isRequired: Bool {
        let environment = ProcessInfo.processInfo.environment
        return environment["CI"] != nil || environment["COLLAGE_REQUIRE_TESTDATA"] == "1"
    }

    /// Says that `name` is absent: an issue where the data is required, a
    /// plain line on stderr otherwise.
    static func reportAbsent(_ name: String) {
        if isRequired {
            Issue.record(Comment(rawValue: absentMessage(name)))
        } else {
            FileHandle.standardError.write(Data("note: \(absentMessage(name))\n".utf8))
        }
    }

    static func absentMessage(_ name: String) -> String {
        "conformance data \(root.appendingPathComponent(name).path) is absent: these tests did not run"
    }
}
