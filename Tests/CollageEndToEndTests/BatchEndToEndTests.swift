import CollageImaging
import CollageKit
import CollageTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct BatchEndToEndTests {
    /// A list in `folder` whose groups use sample photos copied beside it
    /// under relative names (one with a space).
    func makeList(in folder: URL, groups: [[String]]) throws -> URL {
        let photos = folder.appendingPathComponent("my photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for path in CLI.jpegs + [CLI.png] {
            let name = URL(fileURLWithPath: path).lastPathComponent
            try? FileManager.default.copyItem(atPath: path, toPath: photos.appendingPathComponent(name).path)
        }
        let text = groups.map { $0.map { "my photos/\($0)" }.joined(separator: "\n") }.joined(separator: "\n\n")
        let list = folder.appendingPathComponent("list.txt")
        try Data(("# made by the tests\n" + text).utf8).write(to: list)
        return list
    }

    let two = ["chelsea-the-cat.jpg", "coffee-cup.jpg"]
    let four = ["astronaut-eileen-collins.jpg", "cameraman-grayscale.jpg", "rocket-exif-orientation-6.jpg", "retina-round-alpha.png"]

    @Test func pathsAreRelativeToTheListAndTheSelectionIsUntouched() throws {
        let cli = try CLI()
        try cli.run("add", CLI.jpegs[0])
        let stateFile = cli.state.appendingPathComponent("collage/selection.json")
        let stateBefore = try Data(contentsOf: stateFile)

        let listFolder = try temporaryDirectory()
        let list = try makeList(in: listFolder, groups: [two, ["coffee-cup.jpg"], four])
        // Run from another folder: the list's folder is the base.
        let output = try cli.run("batch", list.path, "-o", "out", "--size", "320x180")
        #expect(output.status == 1, "one collage breaks a rule")
        #expect(output.stdout == "Saved 2 collages in \(cli.workingDirectory.path)/out; 1 failed.\n")
        #expect(output.stderr.contains("collage 2 (line 5): skipped: cannot save 1 photo: a collage needs an even number of photos"))
        let written = try FileManager.default.contentsOfDirectory(atPath: cli.workingDirectory.appendingPathComponent("out").path).sorted()
        #expect(written == ["collage-001.jpg", "collage-003.jpg"])
        #expect(try Data(contentsOf: stateFile) == stateBefore, "batch never changes the interactive selection")
    }

    @Test func standardInputIsRelativeToTheCurrentFolder() throws {
        let cli = try CLI()
        _ = try makeList(in: cli.workingDirectory, groups: [])
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["batch", "-", "--format", "png", "--size", "64x64"]
        process.currentDirectoryURL = cli.workingDirectory
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_STATE_HOME": cli.state.path]) { $1 }
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        input.fileHandleForWriting.write(Data("my photos/chelsea-the-cat.jpg\r\nmy photos/coffee-cup.jpg\r\n".utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: cli.workingDirectory.appendingPathComponent("collage-001.png").path))
        #expect(!FileManager.default.fileExists(atPath: cli.state.appendingPathComponent("collage/selection.json").path))
    }

    @Test func noOverwriteWithoutForceAndExitCodes() throws {
        let cli = try CLI()
        let list = try makeList(in: cli.workingDirectory, groups: [two])
        #expect(try cli.run("batch", list.path, "--size", "100x100").status == 0)
        let target = cli.workingDirectory.appendingPathComponent("collage-001.jpg")
        let before = try Data(contentsOf: target)
        let again = try cli.run("batch", list.path, "--size", "200x100")
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists"))
        #expect(try Data(contentsOf: target) == before)
        #expect(try cli.run("batch", list.path, "--size", "200x100", "--force").status == 0)
        #expect(try Data(contentsOf: target) != before)
    }

    @Test func parallelOutputIsByteIdenticalToSequential() throws {
        let cli = try CLI()
        let list = try makeList(in: cli.workingDirectory, groups: [two, four, two + four, four, two])
        let sequential = try cli.run("batch", list.path, "-o", "seq", "--jobs", "1", "--size", "640x360")
        let parallel = try cli.run("batch", list.path, "-o", "par", "--jobs", "4", "--size", "640x360")
        #expect(sequential.status == 0 && parallel.status == 0, "\(sequential.stderr) \(parallel.stderr)")
        for number in 1...5 {
            let name = String(format: "collage-%03d.jpg", number)
            let a = try Data(contentsOf: cli.workingDirectory.appendingPathComponent("seq/\(name)"))
            let b = try Data(contentsOf: cli.workingDirectory.appendingPathComponent("par/\(name)"))
            #expect(a == b, "\(name) differs between --jobs 1 and --jobs 4")
        }
    }

    @Test func dryRunChecksEverythingAndWritesNothing() throws {
        let cli = try CLI()
        let list = try makeList(in: cli.workingDirectory, groups: [two, ["nope.jpg", "coffee-cup.jpg"]])
        let output = try cli.run("batch", "--dry-run", list.path, "-o", "planned")
        #expect(output.status == 1)
        #expect(output.stdout.contains("collage 1 (lines 2-3): 2 photos -> \(cli.workingDirectory.path)/planned/collage-001.jpg"))
        #expect(output.stderr.contains("collage 2 (lines 5-6): skipped: \(cli.workingDirectory.path)/my photos/nope.jpg: No such file or directory"))
        #expect(!FileManager.default.fileExists(atPath: cli.workingDirectory.appendingPathComponent("planned").path))
    }

    @Test func aMissingListIsAClearError() throws {
        let cli = try CLI()
        let output = try cli.run("batch", "no-such-list.txt")
        #expect(output.status == 1)
        #expect(output.stderr == "collage: cannot read the list \(cli.workingDirectory.path)/no-such-list.txt: No such file or directory\n")
    }
}
