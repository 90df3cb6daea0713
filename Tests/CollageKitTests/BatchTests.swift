import Foundation
import Testing
@testable import CollageKit

@Suite struct BatchListParserTests {
    func parse(_ text: String, base: String = "/lists") -> [BatchGroup] {
        var parser = BatchListParser(baseDirectory: base)
        var groups: [BatchGroup] = []
        // Split as the reader does, on "\n" bytes ("\r\n" is one Character in Swift).
        for (index, line) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            if let group = parser.consume(String(decoding: line, as: UTF8.self), lineNumber: index + 1) { groups.append(group) }
        }
        if let last = parser.finish() { groups.append(last) }
        return groups
    }

    @Test func groupsCommentsAndRunsOfBlankLines() {
        let groups = parse("""
            # holiday
            a.jpg
            b.jpg


            # second, after two blank lines

            c.jpg
            # a comment inside a group
            d.png
            """)
        #expect(groups == [
            BatchGroup(number: 1, firstLine: 2, lastLine: 3, photos: [Photo(path: "/lists/a.jpg"), Photo(path: "/lists/b.jpg")]),
            BatchGroup(number: 2, firstLine: 8, lastLine: 10, photos: [Photo(path: "/lists/c.jpg"), Photo(path: "/lists/d.png")]),
        ])
    }

    @Test func theLastGroupNeedsNoTrailingBlankLine() {
        #expect(parse("a.jpg\nb.jpg").map(\.photos.count) == [2])
        #expect(parse("a.jpg\nb.jpg\n").map(\.photos.count) == [2])
        #expect(parse("\n\n# nothing\n\n").isEmpty)
    }

    @Test func crlfWhitespaceSpacesAndAbsolutePaths() {
        let groups = parse("  my photo.jpg \r\n\t/abs/other one.png\r\n\r\nsub/x.jpg\r\n", base: "/base dir")
        #expect(groups.map(\.photos) == [
            [Photo(path: "/base dir/my photo.jpg"), Photo(path: "/abs/other one.png")],
            [Photo(path: "/base dir/sub/x.jpg")],
        ])
        #expect(groups.map(\.lineRange) == ["lines 1-2", "line 4"])
    }

    @Test func readsAStreamInChunksAcrossBoundaries() throws {
        // Long enough to span several 64 KiB reads, with CRLF line ends.
        var text = ""
        for group in 0..<3000 {
            text += "folder/photo-\(group)-a.jpg\r\nfolder/photo-\(group)-b.jpg\r\n\r\n"
        }
        let file = try temporaryDirectory().appendingPathComponent("list.txt")
        try Data(text.utf8).write(to: file)
        let fd = open(file.path, O_RDONLY)
        defer { close(fd) }
        var reader = BatchListReader(fileDescriptor: fd, baseDirectory: "/b")
        var count = 0
        while let group = reader.next() {
            count += 1
            #expect(group.photos == [Photo(path: "/b/folder/photo-\(count - 1)-a.jpg"), Photo(path: "/b/folder/photo-\(count - 1)-b.jpg")])
        }
        #expect(count == 3000)
    }
}

@Suite struct BatchViewModelTests {
    func group(_ number: Int, _ names: [String]) -> BatchGroup {
        BatchGroup(number: number, firstLine: number * 10, lastLine: number * 10 + names.count - 1, photos: names.map(photo))
    }

    @Test func numbersStayStableWhenCollagesAreSkipped() throws {
        let writer = FakeWriter()
        let directory = try temporaryDirectory()
        let batch = BatchViewModel(options: BatchOptions(outputDirectory: directory, render: try CollageRenderOptions(), jobs: 1),
                                   inspector: FakeInspector(), renderer: FakeRenderer(), writer: writer)
        let results = Recorder(batch.results)
        let summary = batch.run([
            group(1, ["a.jpg", "b.jpg"]),
            group(2, ["a.jpg", "b.jpg", "c.jpg"]),
            group(3, ["a.jpg", "bad.jpg"]),
            group(4, ["1.jpg", "2.jpg", "3.jpg", "4.jpg", "5.jpg", "6.jpg", "7.jpg", "8.jpg"]),
            group(5, ["c.jpg", "d.jpg", "e.jpg", "f.jpg"]),
        ])
        #expect(summary == BatchSummary(saved: 2, failed: 3))
        #expect(writer.saved.map(\.lastPathComponent) == ["collage-001.jpg", "collage-005.jpg"])
        #expect(results.values.map(\.outcome) == [
            .saved,
            .skipped("cannot save 3 photos: a collage needs an even number of photos"),
            .skipped("/photos/bad.jpg: not a JPEG or PNG file"),
            .skipped("8 photos are too many: a collage holds at most 6"),
            .saved,
        ])
        #expect(results.values[1].message()
            == "collage 2 (lines 20-22): skipped: cannot save 3 photos: a collage needs an even number of photos")
    }

    @Test func existingFilesAreNotOverwrittenWithoutForce() throws {
        let directory = try temporaryDirectory()
        try Data("old".utf8).write(to: directory.appendingPathComponent("collage-001.png"))
        let writer = FakeWriter()
        let options = BatchOptions(outputDirectory: directory, format: .png, render: try CollageRenderOptions(), jobs: 2)
        let batch = BatchViewModel(options: options, inspector: FakeInspector(), renderer: FakeRenderer(), writer: writer)
        let results = Recorder(batch.results)
        let summary = batch.run([group(1, ["a.jpg", "b.jpg"])])
        #expect(summary == BatchSummary(saved: 0, failed: 1))
        #expect(writer.saved.isEmpty)
        let output = "\(directory.path)/collage-001.png"
        #expect(results.values.first?.outcome
            == .failed(CollageFailure(.outputExists, path: output, message: "\(output) already exists")))
    }

    @Test func aDryRunWritesNothing() throws {
        let writer = FakeWriter()
        let renderer = FakeRenderer()
        let options = BatchOptions(outputDirectory: try temporaryDirectory(), render: try CollageRenderOptions(), dryRun: true)
        let batch = BatchViewModel(options: options, inspector: FakeInspector(), renderer: renderer, writer: writer)
        #expect(batch.run([group(1, ["a.jpg", "b.jpg"]), group(2, ["a.jpg"])]) == BatchSummary(saved: 1, failed: 1))
        #expect(writer.saved.isEmpty)
        #expect(renderer.rendered.isEmpty)
    }
}

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
