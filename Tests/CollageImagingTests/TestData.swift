import Foundation

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

    static func absentMessage(_ name: String) -> String {
        "conformance data \(root.appendingPathComponent(name).path) is absent: these tests did not run"
    }
}
