import CollageKit
import CollageTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `batch --shard`, `--report`, and lists as people write them (issue #24).
@Suite(.serialized) struct BatchShardEndToEndTests {
    /// A list of `groups` collages of sample photos (a one-photo group,
    /// skipped, among them), under absolute names.
    func writeList(_ cli: CLI, groups: Int = 7) throws -> URL {
        let photos = CLI.jpegs + [CLI.png]
        var lines: [String] = []
        for number in 1...groups {
            if number == 3 {
                lines.append(photos[0])  // one photo: skipped
            } else {
                lines += (0..<(number % 2 == 0 ? 2 : 4)).map { photos[(number + $0) % photos.count] }
            }
            lines.append("")
        }
        let list = cli.file("list.txt")
        try Data(lines.joined(separator: "\n").utf8).write(to: list)
        return list
    }

    func files(in folder: URL) throws -> [String: Data] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        return try Dictionary(uniqueKeysWithValues: names.map { ($0, try Data(contentsOf: folder.appendingPathComponent($0))) })
    }

    func reportLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func threeShardsIntoOneFolderAreByteIdenticalToOneRun() throws {
        let cli = try CLI()
        let list = try writeList(cli)
        let whole = try cli.run("batch", list.path, "-o", "whole", "--size", "160x90")
        #expect(whole.status == 1, "collage 3 is skipped: \(whole.stderr)")
        var reported: [Int] = []
        for k in 1...3 {
            let part = try cli.run("batch", list.path, "-o", "parts", "--size", "160x90", "--shard", "\(k)/3",
                                   "--report", "part-\(k).jsonl")
            #expect(part.status == (k == 3 ? 1 : 0), "\(part.stderr)")
            let lines = try reportLines(String(decoding: try Data(contentsOf: cli.file("part-\(k).jsonl")), as: UTF8.self))
            let numbers = lines.compactMap { $0["collage"] as? Int }
            #expect(numbers.allSatisfy { ($0 - 1) % 3 + 1 == k }, "shard \(k) made \(numbers)")
            reported += numbers
        }
        #expect(reported.sorted() == Array(1...7), "every collage is in exactly one shard")
        let parts = try files(in: cli.file("parts")), one = try files(in: cli.file("whole"))
        #expect(parts.keys.sorted() == ["collage-001.jpg", "collage-002.jpg", "collage-004.jpg", "collage-005.jpg",
                                        "collage-006.jpg", "collage-007.jpg"])
        #expect(parts == one, "the shards' files are the whole run's, names and bytes")
    }

    /// The recipe in the README's "Many machines" section, run as written,
    /// with Debian's GNU parallel (scripts/install-deps.sh installs it).
    @Test func theReadmesGNUParallelRecipeGivesTheFilesOfOneRun() throws {
        let readme = try String(contentsOf: CLI.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "\n## Many machines\n").dropFirst().first)
        let recipe = try #require(section.split(separator: "\n").first { $0.hasPrefix("parallel ") && !$0.contains("--sshlogin") })
        let cli = try CLI()
        let list = try writeList(cli)
        let run = try cli.bash("PATH=\"$(dirname \"$COLLAGE\"):$PATH\" " + recipe, timeout: 300)
        #expect(run.status == 1, "collage 3 is skipped, so its shard exits 1: \(run.stderr)")
        let report = try reportLines(String(decoding: try Data(contentsOf: cli.file("report.jsonl")), as: UTF8.self))
        #expect(report.compactMap { $0["collage"] as? Int }.sorted() == Array(1...7))
        #expect(report.filter { $0["status"] as? String == "skipped" }.compactMap { $0["collage"] as? Int } == [3])
        #expect(try cli.run("batch", list.path, "-o", "whole").status == 1)
        #expect(try files(in: cli.file("collages")) == files(in: cli.file("whole")))
    }

    /// After a crash or a lost machine, --skip-existing makes only what is missing,
    /// and the report says which were kept.
    @Test func aRerunWithSkipExistingRedoesOnlyWhatIsMissing() throws {
        let cli = try CLI()
        let list = try writeList(cli, groups: 4)
        #expect(try cli.run("batch", list.path, "-o", "out", "--size", "64x64").status == 1)
        let kept = try Data(contentsOf: cli.file("out/collage-001.jpg"))
        try FileManager.default.removeItem(at: cli.file("out/collage-002.jpg"))
        let rerun = try cli.run("batch", list.path, "-o", "out", "--size", "64x64", "--skip-existing", "--report", "-")
        let statuses = Dictionary(uniqueKeysWithValues: try reportLines(rerun.stdout).map {
            ($0["collage"] as? Int ?? 0, $0["status"] as? String ?? "")
        })
        #expect(statuses == [1: "kept", 2: "saved", 3: "skipped", 4: "kept"])
        #expect(rerun.stderr.hasSuffix("Saved 1 collage in \(cli.workingDirectory.path)/out; 2 kept (already there); 1 skipped.\n"),
                "the summary goes to stderr when stdout is the report: \(rerun.stderr)")
        #expect(try Data(contentsOf: cli.file("out/collage-001.jpg")) == kept)
        #expect(FileManager.default.fileExists(atPath: cli.file("out/collage-002.jpg").path))
    }

    /// Each line is written when its collage is done: here the first while the
    /// list (a pipe) has not yet given the second collage.
    @Test func theReportIsWrittenAsEachCollageFinishes() throws {
        let cli = try CLI()
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["batch", "-", "--size", "64x64", "--jobs", "1", "--report", "report.jsonl"]
        process.currentDirectoryURL = cli.workingDirectory
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_STATE_HOME": cli.state.path]) { $1 }
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data("\(CLI.jpegs[0])\n\(CLI.jpegs[1])\n\n".utf8))
        let report = cli.file("report.jsonl")
        var first = ""
        for _ in 0..<300 where !first.hasSuffix("\n") {
            usleep(20_000)
            // Read only once it has bytes: Foundation 6.3's file read leaks
            // its 4 KiB buffer on an empty file (LeakSanitizer, make
            // test-sanitized), which the report is until the first line.
            var info = stat()
            guard stat(report.path, &info) == 0, info.st_size > 0 else { continue }
            first = (try? String(contentsOf: report, encoding: .utf8)) ?? ""
        }
        #expect(first.hasPrefix(#"{"collage":1,"line":1,"output":"\#(cli.workingDirectory.path)/collage-001.jpg","status":"saved""#),
                "the first collage is reported before the list ends: \(first)")
        input.fileHandleForWriting.write(Data("\(CLI.jpegs[2])\n\(CLI.jpegs[3])\n".utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try reportLines(String(contentsOf: report, encoding: .utf8)).compactMap { $0["collage"] as? Int } == [1, 2])
    }

    @Test func badShardsAndForceWithSkipExistingAreUsageErrors() throws {
        let cli = try CLI()
        let list = try writeList(cli, groups: 2)
        for shard in ["0/3", "4/3", "1/0", "2", "a/b"] {
            let run = try cli.run("batch", list.path, "--shard", shard)
            #expect(run.status == 64, "\(shard)")
            #expect(run.stderr.hasPrefix("collage: --shard: "), "\(run.stderr)")
        }
        let both = try cli.run("batch", list.path, "--force", "--skip-existing")
        #expect(both.status == 64)
        #expect(both.stderr == "collage: --skip-existing leaves existing collages alone and --force replaces them: give one or the other\n")
        let report = try cli.run("batch", list.path, "--report", "no/such/folder/report.jsonl")
        #expect(report.status == 1)
        #expect(report.stderr == "collage: cannot write the report \(cli.workingDirectory.path)/no/such/folder/report.jsonl: No such file or directory\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.workingDirectory.path) == ["list.txt"], "nothing made")
    }

    @Test func aShardWithNoCollageSaysSo() throws {
        let cli = try CLI()
        let list = try writeList(cli, groups: 2)
        let run = try cli.run("batch", list.path, "--shard", "3/3", "-o", "out")
        #expect(run.status == 0)
        #expect(run.stdout == "Shard 3/3 of the list has no collage.\n")
        #expect(!FileManager.default.fileExists(atPath: cli.file("out").path))
    }

    /// A list saved by an editor that starts it with a byte-order mark and
    /// ends lines with CRLF.
    @Test func aListWithAByteOrderMarkAndCRLFIsRead() throws {
        let cli = try CLI()
        try FileManager.default.copyItem(atPath: CLI.jpegs[0], toPath: cli.file("cat.jpg").path)
        try FileManager.default.copyItem(atPath: CLI.jpegs[1], toPath: cli.file("cup.jpg").path)
        try Data([0xEF, 0xBB, 0xBF] + Array("cat.jpg\r\ncup.jpg\r\n\r\n".utf8)).write(to: cli.file("list.txt"))
        let run = try cli.run("batch", "list.txt", "--size", "64x64", "-o", "out")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: cli.file("out/collage-001.jpg").path))
    }

    @Test func aPhotoGivenAsTheListIsNamedAsAPhoto() throws {
        let cli = try CLI()
        let run = try cli.run("batch", CLI.png, "-o", "out")
        #expect(run.status == 1)
        #expect(run.stderr == "collage: \(CLI.png) is a photo (PNG), not a list: give a text file with one photo path per line, or add photos to the collage with `collage add`\n")
        #expect(!FileManager.default.fileExists(atPath: cli.file("out").path))
        let piped = try cli.bash("exec \"$COLLAGE\" batch - -o out < \(shellQuoted(CLI.jpegs[0]))")
        #expect(piped.status == 1)
        #expect(piped.stderr == "collage: standard input is a photo (JPEG), not a list: give a text file with one photo path per line, or add photos to the collage with `collage add`\n")
        // A list on standard input is read whole, its first bytes included.
        let list = try cli.bash("printf '%s\\n%s\\n' \(shellQuoted(CLI.jpegs[0])) \(shellQuoted(CLI.jpegs[1])) | \"$COLLAGE\" batch - -o out --size 32x32")
        #expect(list.status == 0, "\(list.stderr)")
    }

    /// No folder is left behind by a run that writes nothing.
    @Test func noOutputFolderWhenNothingIsSaved() throws {
        let cli = try CLI()
        try Data("\(CLI.jpegs[0])\n\nnope.jpg\nnope2.jpg\n".utf8).write(to: cli.file("list.txt"))
        let run = try cli.run("batch", "list.txt", "-o", "out")
        #expect(run.status == 1)
        #expect(!FileManager.default.fileExists(atPath: cli.file("out").path))
    }
}
