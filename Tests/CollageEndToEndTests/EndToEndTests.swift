import CollageImaging
import CollageKit
import CollageTestSupport
import Foundation
import Testing
@testable import CollageKit

@Suite(.serialized) struct EndToEndTests {
    @Test func theRulesFromAnEmptyCollageToASavedFile() throws {
        let cli = try CLI()
        var status = try cli.status()
        #expect(status["title"] as? String == "Collage")
        #expect(status["canAdd"] as? Bool == true)
        #expect(status["canClear"] as? Bool == false)
        #expect(status["canSave"] as? Bool == false)

        let cleared = try cli.run("clear")
        #expect(cleared.status != 0)
        #expect(cleared.stderr == "collage: nothing to clear: the collage is empty\n")

        #expect(try cli.run("add", CLI.jpegs[0]).status == 0)
        status = try cli.status()
        #expect(status["title"] as? String == "1 photo")
        #expect(status["photos"] as? [String] == [CLI.jpegs[0]])
        #expect(status["canSave"] as? Bool == false)

        let odd = try cli.run("save", "-o", "odd.jpg")
        #expect(odd.status != 0)
        #expect(odd.stderr.contains("even number"))
        #expect(!FileManager.default.fileExists(atPath: cli.workingDirectory.appendingPathComponent("odd.jpg").path))

        #expect(try cli.run("add", CLI.png).status == 0)
        status = try cli.status()
        #expect(status["title"] as? String == "2 photos")
        #expect(status["canSave"] as? Bool == true)

        let saved = try cli.run("save", "-o", "out.jpg")
        let target = cli.workingDirectory.appendingPathComponent("out.jpg").path
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stdout == "Saved \(target)\n")
        #expect(try cli.count() == 0, "a saved collage clears the selection")

        var info = ci_photo_info()
        var error = ci_error()
        #expect(ci_probe_file(target, &info, &error) == CI_OK)
        #expect(info.format == CI_FORMAT_JPEG)
        #expect(info.width == 1920 && info.height == 1080)
    }

    @Test func relativePathsAreRecordedAbsolute() throws {
        let cli = try CLI()
        try FileManager.default.copyItem(atPath: CLI.jpegs[0], toPath: cli.workingDirectory.appendingPathComponent("cat.jpg").path)
        #expect(try cli.run("add", "cat.jpg").status == 0)
        #expect(try cli.status()["photos"] as? [String] == [cli.workingDirectory.appendingPathComponent("cat.jpg").path])
    }

    @Test func neverOverwritesWithoutForce() throws {
        let cli = try CLI()
        let target = cli.workingDirectory.appendingPathComponent("c.png")
        try Data("keep me".utf8).write(to: target)
        try cli.run(["add", CLI.jpegs[0], CLI.jpegs[1]])
        let refused = try cli.run("save", "-o", "c.png", "--size", "200x100")
        #expect(refused.status != 0)
        #expect(refused.stderr == "collage: cannot save \(target.path): \(target.path) already exists (use --force to replace it)\n")
        #expect(try String(contentsOf: target, encoding: .utf8) == "keep me")
        #expect(try cli.count() == 2, "a failed save keeps the selection")

        let forced = try cli.run("save", "-o", "c.png", "--size", "200x100", "--force")
        #expect(forced.status == 0, "\(forced.stderr)")
        var info = ci_photo_info()
        var error = ci_error()
        #expect(ci_probe_file(target.path, &info, &error) == CI_OK)
        #expect(info.format == CI_FORMAT_PNG)
        #expect(info.width == 200 && info.height == 100)
        #expect(try cli.count() == 0)
    }

    @Test func badFilesAreRefusedAndNothingIsAdded() throws {
        let cli = try CLI()
        let text = cli.workingDirectory.appendingPathComponent("notes.jpg")
        try Data("this is text, whatever the name says".utf8).write(to: text)
        let output = try cli.run("add", CLI.jpegs[0], text.path, CLI.jpegs[1])
        #expect(output.status != 0)
        #expect(output.stderr == "collage: \(text.path): \(EngineWording.notAnImage)\n")
        #expect(try cli.count() == 0)

        let missing = try cli.run("add", "/nonexistent/photo.jpg")
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("/nonexistent/photo.jpg"))
        #expect(try cli.count() == 0)
    }

    @Test func aSeventhPhotoIsRefused() throws {
        let cli = try CLI()
        #expect(try cli.run(CLI.jpegs.prefix(4).reduce(["add"]) { $0 + [$1] }).status == 0)
        let tooMany = try cli.run("add", CLI.jpegs[0], CLI.jpegs[1], CLI.jpegs[2])
        #expect(tooMany.status != 0)
        #expect(tooMany.stderr.contains("at most 6 photos"))
        #expect(try cli.count() == 4)
        #expect(try cli.run("add", CLI.jpegs[0], CLI.jpegs[1]).status == 0)
        let status = try cli.status()
        #expect(status["count"] as? Int == 6)
        #expect(status["canAdd"] as? Bool == false)
    }

    @Test func aVanishedPhotoFailsTheSaveAndKeepsTheSelection() throws {
        let cli = try CLI()
        let copy = cli.workingDirectory.appendingPathComponent("soon-gone.jpg")
        try FileManager.default.copyItem(atPath: CLI.jpegs[1], toPath: copy.path)
        try cli.run("add", CLI.jpegs[0], copy.path)
        try FileManager.default.removeItem(at: copy)
        // Marked missing (issue #11), and the save refused up front naming it.
        #expect(try cli.status()["missing"] as? [String] == [copy.path])
        #expect(try cli.run("status").stdout.contains("  2. \(copy.path)  (missing)"))
        let output = try cli.run("save", "-o", "x.jpg")
        #expect(output.status == 1)
        #expect(output.stderr == "collage: photo 2 is missing: \(copy.path) (remove it, or put the file back)\n")
        #expect(try cli.count() == 2)
        #expect(!FileManager.default.fileExists(atPath: cli.workingDirectory.appendingPathComponent("x.jpg").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.workingDirectory.path).isEmpty,
                "no temporary file is left behind")
    }

    @Test func aCorruptStateFileIsMovedAside() throws {
        let cli = try CLI()
        let folder = cli.state.appendingPathComponent("collage")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("garbage".utf8).write(to: folder.appendingPathComponent("selection.json"))
        let output = try cli.run("status")
        #expect(output.status == 0)
        #expect(output.stderr.hasPrefix("collage: the state file was corrupt: moved it to \(folder.path)/selection.json.corrupt-"))
        #expect(output.stdout.hasPrefix("Collage\n"))
    }

    @Test func twentyConcurrentAddsLoseNothingAndNeverExceedSix() throws {
        let cli = try CLI()
        let statuses = Locked([Int32](repeating: -1, count: 20))
        DispatchQueue.concurrentPerform(iterations: 20) { index in
            let status = (try? cli.run("add", CLI.jpegs[index % CLI.jpegs.count]).status) ?? -1
            statuses.withLock { $0[index] = status }
        }
        let outputs = statuses.current
        #expect(outputs.filter { $0 == 0 }.count == 6)
        #expect(outputs.filter { $0 == 1 }.count == 14)
        #expect(try cli.count() == 6)
    }

    @Test func unknownOutputExtensionIsRefused() throws {
        let cli = try CLI()
        try cli.run("add", CLI.jpegs[0], CLI.jpegs[1])
        let output = try cli.run("save", "-o", "c.gif")
        #expect(output.status != 0)
        #expect(output.stderr.contains("use .jpg, .jpeg, .png, .avif, .webp or .pdf"))
        #expect(try cli.count() == 2)
    }
}

/// `remove`, `move` and missing photos on the command line (issue #11).
@Suite struct EditingEndToEndTests {
    @Test func removeAndMoveByTheNumbersStatusShows() throws {
        let cli = try CLI()
        try cli.run("add", CLI.jpegs[0], CLI.jpegs[1], CLI.jpegs[2])
        let moved = try cli.run("move", "3", "1")
        #expect(moved.status == 0 && moved.stdout == "Moved astronaut-eileen-collins.jpg to 1\n")
        #expect(try cli.status()["photos"] as? [String] == [CLI.jpegs[2], CLI.jpegs[0], CLI.jpegs[1]])
        let wrong = try cli.run("remove", "2", "4")
        #expect(wrong.status == 1 && wrong.stderr == "collage: there is no photo 4: the collage has 3 photos\n")
        #expect(try cli.count() == 3, "all or nothing")
        let removed = try cli.run("remove", "2", "3")
        #expect(removed.status == 0 && removed.stdout == "Removed 2 photos\n")
        #expect(try cli.status()["photos"] as? [String] == [CLI.jpegs[2]])
        #expect(try cli.run("move", "1", "2").stderr == "collage: there is no photo 2: the collage has 1 photo\n")
    }
}
