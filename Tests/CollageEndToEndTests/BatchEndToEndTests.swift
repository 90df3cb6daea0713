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

    /// Issue #44: Ctrl-C in a run keeps the collages written, leaves nothing
    /// of the one being made, ends the report with it ("interrupted"), says
    /// where it stopped, and dies of SIGINT: the shell reads 130.
    @Test func anInterruptedRunKeepsWhatItWroteAndReportsWhereItStopped() throws {
        let cli = try CLI()
        let list = try makeList(in: cli.workingDirectory, groups: Array(repeating: two, count: 20))
        let run = try cli.bash("""
            set -m  # job control: a background job's SIGINT is not ignored
            "$COLLAGE" batch '\(list.path)' -o out --jobs 1 --report report.jsonl 2> err.txt & pid=$!
            until [ -s report.jsonl ]; do sleep 0.02; done
            kill -INT $pid; wait $pid; echo "status $?"
            """)
        #expect(run.stdout == "status 130\n", "\(run)")
        let report = try String(contentsOf: cli.workingDirectory.appendingPathComponent("report.jsonl"), encoding: .utf8)
            .split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:] }
        let saved = report.filter { $0["status"] as? String == "saved" }.compactMap { $0["collage"] as? Int }
        let interrupted = report.filter { $0["status"] as? String == "interrupted" }
        #expect(!saved.isEmpty && saved == Array(1...saved.count), "\(report)")
        // Every collage written is whole and reported; nothing else is in the folder.
        let files = try FileManager.default.contentsOfDirectory(atPath: cli.workingDirectory.appendingPathComponent("out").path).sorted()
        #expect(files == saved.map { String(format: "collage-%03d.jpg", $0) }, "\(files)")
        for file in files {
            #expect(isCompleteImage(cli.workingDirectory.appendingPathComponent("out/\(file)").path, width: 1920, height: 1080))
        }
        let err = try String(contentsOf: cli.workingDirectory.appendingPathComponent("err.txt"), encoding: .utf8)
        let last = err.split(separator: "\n").last.map(String.init) ?? ""
        let where_ = cli.workingDirectory.appendingPathComponent("out").path
        let count = saved.count == 1 ? "1 collage" : "\(saved.count) collages"
        if let stopped = interrupted.first {
            // The one being made: in the report after the others, its output null, nothing of it written.
            #expect(interrupted.count == 1 && report.last?["status"] as? String == "interrupted")
            let number = try #require(stopped["collage"] as? Int)
            #expect(number == saved.count + 1 && stopped["output"] is NSNull, "\(stopped)")
            let line = 2 + 3 * (number - 1)
            #expect(last == "collage: interrupted (SIGINT): collage \(number) (lines \(line)-\(line + 1)) unfinished, nothing of it written; saved \(count) in \(where_).",
                    "\(err)")
        } else {
            // Between two collages: only the count.
            #expect(last == "collage: interrupted (SIGINT): saved \(count) in \(where_).", "\(err)")
        }
    }

    /// Issue #44: `#titel Typo` did nothing, silently. Warned of, with its
    /// line and the directive meant; the collage is made all the same.
    @Test func aMistypedDirectiveIsWarnedOfAndTheCollageStillMade() throws {
        let cli = try CLI()
        let list = cli.workingDirectory.appendingPathComponent("typo.txt")
        try "# a list\n#titel Typo\n\(CLI.jpegs[0])\n\(CLI.jpegs[1])\n".write(to: list, atomically: true, encoding: .utf8)
        let run = try cli.run("batch", "typo.txt", "-o", "out", "--size", "64x32")
        #expect(run.status == 0)
        let output = cli.workingDirectory.appendingPathComponent("out/collage-001.jpg").path
        #expect(run.stderr == """
            collage: warning: collage 1 (lines 3-4): line 2: '#titel' is read as a comment: did you mean #title?
            collage 1 (lines 3-4): saved \(output)

            """, "\(run.stderr)")
        #expect(isCompleteImage(output, width: 64, height: 32))
    }

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
        #expect(output.stdout == "Saved 2 collages in \(cli.workingDirectory.path)/out; 1 skipped.\n")
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
        #expect(output.stdout.contains("collage 1 (lines 2-3): 2 photos, auto layout -> \(cli.workingDirectory.path)/planned/collage-001.jpg"))
        #expect(output.stderr.contains("collage 2 (lines 5-6): skipped: \(cli.workingDirectory.path)/my photos/nope.jpg: No such file or directory"))
        #expect(!FileManager.default.fileExists(atPath: cli.workingDirectory.appendingPathComponent("planned").path))
    }

    @Test func aMissingListIsAClearError() throws {
        let cli = try CLI()
        let output = try cli.run("batch", "no-such-list.txt")
        #expect(output.status == 1)
        #expect(output.stderr == "collage: cannot read the list \(cli.workingDirectory.path)/no-such-list.txt: No such file or directory\n")
    }

    // MARK: Layouts (issue #19): --layout for every collage, #layout for one

    /// A solid-colour PNG of `width` x `height` in `folder`.
    func solid(_ name: String, _ width: Int, _ height: Int, _ rgb: [UInt8], in folder: URL) throws {
        let samples = [UInt8]((0..<width * height).flatMap { _ in rgb })
        try write(PNGFile.encode(width: width, height: height, colourType: 2, samples: samples),
                  to: folder.appendingPathComponent(name))
    }

    /// A 2:1 red photo and a 1:2 blue one: no layout fills a 2:1 canvas with
    /// both whole, so each layout draws them differently.
    func redAndBlue(in folder: URL) throws {
        try solid("red.png", 200, 100, [255, 0, 0], in: folder)
        try solid("blue.png", 100, 200, [0, 0, 255], in: folder)
    }

    /// The colour at (x, y) of a PNG or JPEG, and its size.
    func pixel(_ url: URL, _ x: Int, _ y: Int) throws -> (rgb: [UInt8], width: Int, height: Int) {
        let image = try DecodedImage(url.path)
        return (image.pixel(x, y), image.width, image.height)
    }

    func isColour(_ rgb: [UInt8], _ want: [UInt8]) -> Bool {
        zip(rgb, want).allSatisfy { abs(Int($0) - Int($1)) <= 8 }
    }

    let red: [UInt8] = [255, 0, 0], blue: [UInt8] = [0, 0, 255], black: [UInt8] = [0, 0, 0]

    @Test func aLayoutLineOverridesLayoutForItsCollageOnly() throws {
        let cli = try CLI()
        try redAndBlue(in: cli.workingDirectory)
        try Data("#layout rows\nred.png\nblue.png\n\nred.png\nblue.png\n".utf8)
            .write(to: cli.file("list.txt"))
        let options = ["--layout", "auto", "--size", "400x200", "--background", "black", "--format", "png"]

        let plan = try cli.run(["batch", "list.txt", "--dry-run"] + options)
        #expect(plan.status == 0, "\(plan.stderr)")
        let folder = cli.workingDirectory.path
        // Collages report as they finish, which with two jobs is in either order.
        #expect(Set(plan.stdout.split(separator: "\n")) == [
            "collage 1 (lines 1-3): 2 photos, rows layout -> \(folder)/collage-001.png",
            "collage 2 (lines 5-6): 2 photos, auto layout -> \(folder)/collage-002.png",
            "Dry run: 2 collages would be saved in \(folder).",
        ])

        let run = try cli.run(["batch", "list.txt"] + options)
        #expect(run.status == 0, "\(run.stderr)")
        let rows = cli.file("collage-001.png"), auto = cli.file("collage-002.png")
        // rows (save --dry-run's plan): both photos whole, red 320x160 at
        // (0, 20), blue 80x160 at (320, 20), black bands above and below.
        // auto: red 320x200, blue 80x200, cropped to cover the canvas.
        let rowsTop = try pixel(rows, 160, 10), autoTop = try pixel(auto, 160, 10)
        #expect(rowsTop.width == 400 && rowsTop.height == 200 && autoTop.width == 400 && autoTop.height == 200)
        #expect(isColour(rowsTop.rgb, black), "rows keeps the photos whole: \(rowsTop.rgb)")
        #expect(isColour(autoTop.rgb, red), "auto covers the canvas: \(autoTop.rgb)")
        #expect(isColour(try pixel(rows, 160, 190).rgb, black))
        #expect(isColour(try pixel(auto, 160, 190).rgb, red))
        #expect(isColour(try pixel(rows, 160, 100).rgb, red))
        #expect(isColour(try pixel(rows, 360, 100).rgb, blue))
        #expect(isColour(try pixel(auto, 360, 10).rgb, blue))

        // Each is the collage `save` makes in that layout, to the byte.
        for (layout, made) in [("rows", rows), ("auto", auto)] {
            #expect(try cli.run("add", "red.png", "blue.png").status == 0)
            let saved = try cli.run(["save", "-o", "\(layout).png", "--layout", layout, "--size", "400x200",
                                     "--background", "black"])
            #expect(saved.status == 0, "\(saved.stderr)")
            #expect(try Data(contentsOf: cli.file("\(layout).png")) == Data(contentsOf: made), "\(layout)")
        }
    }

    @Test func aSizeOnlyRowsCanFillSkipsOtherLayoutsAndBadLinesAreNamed() throws {
        let cli = try CLI()
        try redAndBlue(in: cli.workingDirectory)
        try Data("""
            red.png
            blue.png

            #layout grid
            red.png
            blue.png

            # a typo
            #layout diagonal
            red.png
            blue.png

            """.utf8).write(to: cli.file("list.txt"))
        let options = ["--layout", "rows", "--size", "400x", "--format", "png"]
        let skippedGrid = "collage 2 (lines 4-6): skipped: #layout grid cannot be drawn: --size 400x leaves the height to the photos, which only rows does; give --size WIDTHxHEIGHT"
        let skippedTypo = "collage 3 (lines 9-11): skipped: line 9: 'diagonal' is not a layout: write '#layout MODE', MODE auto, grid, rows or columns, e.g. '#layout rows'"

        let plan = try cli.run(["batch", "list.txt", "--dry-run"] + options)
        #expect(plan.status == 1)
        #expect(plan.stdout.hasPrefix("collage 1 (lines 1-2): 2 photos, rows layout -> "))
        #expect(plan.stderr.contains(skippedGrid) && plan.stderr.contains(skippedTypo), "\(plan.stderr)")

        let run = try cli.run(["batch", "list.txt"] + options)
        #expect(run.status == 1)
        #expect(run.stderr.contains(skippedGrid) && run.stderr.contains(skippedTypo), "\(run.stderr)")
        #expect(try cli.contents().filter { $0.hasPrefix("collage-") } == ["collage-001.png"])
        // The height followed from the photos: one row, both whole.
        #expect(isCompleteImage(cli.file("collage-001.png").path, width: 400, height: 160))
    }

    // MARK: Titles and captions (issue #20): #title for one collage, #caption for one photo

    @Test func aTitleLineGivesItsCollageATitleBandAndOnlyIt() throws {
        let cli = try CLI()
        try redAndBlue(in: cli.workingDirectory)
        let title = "Red and blue, 2026"
        try Data("#title \(title)\nred.png\nblue.png\n\nred.png\nblue.png\n".utf8).write(to: cli.file("list.txt"))
        // The grid: red left, blue right, whatever the band leaves.
        let options = ["--size", "400x300", "--format", "png", "--layout", "grid"]

        let plan = try cli.run(["batch", "list.txt", "--dry-run"] + options)
        #expect(plan.status == 0, "\(plan.stderr)")
        let folder = cli.workingDirectory.path
        #expect(Set(plan.stdout.split(separator: "\n")).isSuperset(of: [
            "collage 1 (lines 1-3): 2 photos, grid layout, titled \"\(title)\" -> \(folder)/collage-001.png",
            "collage 2 (lines 5-6): 2 photos, grid layout -> \(folder)/collage-002.png",
        ]), "\(plan.stdout)")

        let run = try cli.run(["batch", "list.txt"] + options)
        #expect(run.status == 0, "\(run.stderr)")
        let titled = try DecodedImage(cli.file("collage-001.png").path)
        let plain = try DecodedImage(cli.file("collage-002.png").path)
        #expect(titled.width == 400 && titled.height == 300 && plain.width == 400 && plain.height == 300)

        // Where save puts the band for this title on this canvas.
        #expect(try cli.run("add", "red.png", "blue.png").status == 0)
        let dry = try cli.run(["save", "--dry-run", "--json", "--keep", "--size", "400x300", "--layout", "grid", "--title", title])
        let json = try JSONSerialization.jsonObject(with: Data(dry.stdout.utf8)) as? [String: Any]
        let band = try #require(json?["title"] as? [String: Any], "\(dry.stdout) \(dry.stderr)")
        let bandHeight = try #require(band["height"] as? Int)
        #expect(bandHeight > 10 && bandHeight < 100, "\(band)")

        // The titled collage: white band across the top with dark ink in it,
        // no photo there; the photos below it. The other: photos from the top.
        let top = (0..<bandHeight).flatMap { y in (0..<400).map { titled.pixel($0, y) } }
        #expect(!top.contains { isColour($0, red) || isColour($0, blue) }, "a photo in the band")
        #expect(top.filter { $0.map(Int.init).reduce(0, +) < 3 * 80 }.count > 100, "little ink in the band")
        #expect(titled.pixel(0, 0) == [255, 255, 255])
        #expect(isColour(titled.pixel(100, bandHeight + 20), red) && isColour(titled.pixel(300, bandHeight + 20), blue))
        let plainTop = (0..<bandHeight).flatMap { y in (0..<400).map { plain.pixel($0, y) } }
        #expect(plainTop.allSatisfy { isColour($0, red) || isColour($0, blue) }, "no band without a #title line")

        // Each is the collage save makes, to the byte.
        for (arguments, made) in [(["--title", title], "collage-001.png"), ([], "collage-002.png")] {
            let saved = try cli.run(["save", "-o", "saved.png", "--keep", "--force", "--size", "400x300", "--layout", "grid"] + arguments)
            #expect(saved.status == 0, "\(saved.stderr)")
            #expect(try Data(contentsOf: cli.file("saved.png")) == Data(contentsOf: cli.file(made)), "\(made)")
        }
    }

    @Test func aCaptionLineIsDrawnAsCollageCaptionDrawsIt() throws {
        let cli = try CLI()
        try redAndBlue(in: cli.workingDirectory)
        try Data("#caption \"The \\\"red\\\" one\" #focus 0.5 0.5 red.png\nblue.png\n\nred.png\nblue.png\n".utf8)
            .write(to: cli.file("list.txt"))
        let options = ["--size", "400x200", "--format", "png"]
        let run = try cli.run(["batch", "list.txt"] + options)
        #expect(run.status == 0, "\(run.stderr)")
        let captioned = try Data(contentsOf: cli.file("collage-001.png"))
        #expect(captioned != (try Data(contentsOf: cli.file("collage-002.png"))), "the caption is drawn")
        // The collage `collage caption` and `collage focus` give, to the byte.
        for step in [["add", "red.png", "blue.png"], ["caption", "1", "The \"red\" one"], ["focus", "1", "0.5", "0.5"],
                     ["save", "-o", "saved.png", "--size", "400x200"]] {
            let done = try cli.run(step)
            #expect(done.status == 0, "\(step): \(done.stderr)")
        }
        #expect(try Data(contentsOf: cli.file("saved.png")) == captioned)
    }

    @Test func badTitleAndCaptionLinesSkipTheirCollageNamingTheLine() throws {
        let cli = try CLI()
        try redAndBlue(in: cli.workingDirectory)
        try FileManager.default.copyItem(atPath: cli.file("blue.png").path, toPath: cli.file("my \"blue\" one.png").path)
        var list = Array("""
            #caption "Red, \\"very\\" red" red.png
            #caption "Blue" #focus 0.5 0.5 my "blue" one.png

            #title
            red.png
            blue.png

            red.png
            #caption "Blue blue.png

            #title Caf
            """.utf8)
        list += [0xE9] + Array("\nred.png\nblue.png\n".utf8)
        try Data(list).write(to: cli.file("list.txt"))
        let run = try cli.run("batch", "list.txt", "--format", "png", "--size", "200x100")
        #expect(run.status == 1)
        #expect(run.stdout.hasPrefix("Saved 1 collage in \(cli.workingDirectory.path); 3 skipped."), "\(run.stdout)")
        for problem in [
            "collage 2 (lines 4-6): skipped: line 4: the title is missing: write '#title TEXT', e.g. '#title Summer 2026'",
            "collage 3 (lines 8-9): skipped: line 9: write '#caption \"TEXT\" PATH' or '#caption \"TEXT\" #focus X Y PATH', \\\" for a quote and \\\\ for a backslash in TEXT, e.g. '#caption \"Grandma, 1962\" grandma.jpg' (the caption's closing quote is missing)",
            "collage 4 (lines 11-13): skipped: line 11: the title is not valid UTF-8: save the list as UTF-8",
        ] {
            #expect(run.stderr.contains(problem), "\(problem)\n\(run.stderr)")
        }
        #expect(try cli.contents().filter { $0.hasPrefix("collage-") } == ["collage-001.png"])
        #expect(isCompleteImage(cli.file("collage-001.png").path, width: 200, height: 100))
    }
}
