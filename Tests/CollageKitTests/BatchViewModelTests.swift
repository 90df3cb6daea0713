import Foundation
import Testing
import CollageTestSupport
@testable import CollageKit

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
        #expect(summary == BatchSummary(saved: 2, skipped: 3))
        #expect(writer.saved.map(\.lastPathComponent) == ["collage-001.jpg", "collage-005.jpg"])
        #expect(results.values.map(\.outcome) == [
            .saved,
            .skipped(.refused(.oddCount(3))),
            .skipped(.refused(.unreadablePhoto(path: "/photos/bad.jpg", reason: "/photos/bad.jpg: not a JPEG, PNG, HEIF or WebP file"))),
            .skipped(.refused(.full(count: 0, adding: 8))),
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
        #expect(batch.run([group(1, ["a.jpg", "b.jpg"]), group(2, ["a.jpg"])]) == BatchSummary(saved: 1, skipped: 1))
        #expect(writer.saved.isEmpty)
        #expect(renderer.rendered.isEmpty)
    }

    @Test func aGroupsLayoutReachesTheRendererAndOthersKeepTheRuns() throws {
        let renderer = FakeRenderer()
        let render = try CollageRenderOptions(size: RequestedSize(width: 800, height: 400), layout: .auto, margin: 7)
        let batch = BatchViewModel(options: BatchOptions(outputDirectory: try temporaryDirectory(), render: render, jobs: 1),
                                   inspector: FakeInspector(), renderer: renderer, writer: FakeWriter())
        var rows = group(2, ["c.jpg", "d.jpg"])
        rows.layout = .rows
        let results = Recorder(batch.results)
        #expect(batch.run([group(1, ["a.jpg", "b.jpg"]), rows, group(3, ["e.jpg", "f.jpg"])]) == BatchSummary(saved: 3))
        #expect(renderer.renderCalls.map(\.photos) == [["a.jpg", "b.jpg"], ["c.jpg", "d.jpg"], ["e.jpg", "f.jpg"]].map { $0.map(photo) })
        #expect(renderer.renderCalls.map(\.options.layout) == [.auto, .rows, .auto])
        var expected = render
        expected.layout = .rows
        #expect(renderer.renderCalls[1].options == expected, "only the layout changes: size, margin and the rest are the run's")
        #expect(results.values.map(\.layout) == [.auto, .rows, .auto])
    }

    @Test func aDryRunTellsEachCollagesLayout() throws {
        let directory = try temporaryDirectory()
        let options = BatchOptions(outputDirectory: directory, render: try CollageRenderOptions(layout: .columns),
                                   jobs: 1, dryRun: true)
        let batch = BatchViewModel(options: options, inspector: FakeInspector(), renderer: FakeRenderer(), writer: FakeWriter())
        var grid = group(1, ["a.jpg", "b.jpg"])
        grid.layout = .grid
        let results = Recorder(batch.results)
        _ = batch.run([grid, group(2, ["c.jpg", "d.jpg"])])
        #expect(results.values.map { $0.message() } == [
            "collage 1 (lines 10-11): 2 photos, grid layout -> \(directory.path)/collage-001.jpg",
            "collage 2 (lines 20-21): 2 photos, columns layout -> \(directory.path)/collage-002.jpg",
        ])
    }

    @Test func aLayoutThatCannotFillTheRunsSizeIsSkippedBeforeAnyWork() throws {
        // --size 600x is valid with --layout rows, but a grid needs both sides.
        let render = try CollageRenderOptions(size: RequestedSize(width: 600, height: nil), layout: .rows)
        for dryRun in [false, true] {
            let renderer = FakeRenderer()
            let writer = FakeWriter()
            let batch = BatchViewModel(options: BatchOptions(outputDirectory: try temporaryDirectory(), render: render,
                                                             jobs: 1, dryRun: dryRun),
                                       inspector: FakeInspector(), renderer: renderer, writer: writer)
            var grid = group(1, ["a.jpg", "b.jpg"])
            grid.layout = .grid
            var columns = group(2, ["c.jpg", "d.jpg"])
            columns.layout = .columns
            let results = Recorder(batch.results)
            #expect(batch.run([grid, columns, group(3, ["e.jpg", "f.jpg"])]) == BatchSummary(saved: 1, skipped: 2))
            #expect(results.values.map(\.outcome) == [
                .skipped(.openSide(OpenSide(size: render.size, layout: .grid, side: .height), listed: true)),
                .skipped(.openSide(OpenSide(size: render.size, layout: .columns, side: .height), listed: true)),
                dryRun ? .planned : .saved,
            ])
            // In the kit's words, naming no option (the command line names them).
            #expect(results.values[0].message()
                == "collage 1 (lines 10-11): skipped: #layout grid cannot draw the size 600x: it leaves the height to the photos, which only rows does")
            #expect(renderer.renderCalls.map(\.options.layout) == (dryRun ? [] : [.rows]))
            #expect(writer.saved.map(\.lastPathComponent) == (dryRun ? [] : ["collage-003.jpg"]))
        }
    }

    @Test func aGroupsProblemComesBeforeItsLayout() throws {
        let renderer = FakeRenderer()
        let batch = BatchViewModel(options: BatchOptions(outputDirectory: try temporaryDirectory(), render: try CollageRenderOptions(), jobs: 1),
                                   inspector: FakeInspector(), renderer: renderer, writer: FakeWriter())
        let bad = BatchGroup(number: 1, firstLine: 1, lastLine: 3, photos: [photo("a.jpg"), photo("b.jpg")], layout: .rows,
                             problem: "line 2: this collage already has a #layout line (line 1)")
        let results = Recorder(batch.results)
        #expect(batch.run([bad]) == BatchSummary(saved: 0, skipped: 1))
        #expect(results.values.map(\.outcome) == [.skipped(.problem("line 2: this collage already has a #layout line (line 1)"))])
        #expect(renderer.renderCalls.isEmpty)
    }

    /// Groups as the parser makes them of `list` (its photos in /photos).
    func parse(_ list: String) -> [BatchGroup] {
        var parser = BatchListParser(baseDirectory: "/photos")
        var groups: [BatchGroup] = []
        for (index, line) in list.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let group = parser.consume(String(line), lineNumber: index + 1) { groups.append(group) }
        }
        return groups + [parser.finish()].compactMap { $0 }
    }

    @Test func aGroupsTitleReachesTheRendererAndOverridesTheRunsForThatGroupOnly() throws {
        let list = "a.jpg\nb.jpg\n\n#title Grandma's 90th\nc.jpg\nd.jpg\n\ne.jpg\nf.jpg"
        for runTitle in [nil, try CollageTitle("The run's title")] {
            let renderer = FakeRenderer()
            let render = try CollageRenderOptions(size: RequestedSize(width: 800, height: 600), margin: 7, title: runTitle)
            let batch = BatchViewModel(options: BatchOptions(outputDirectory: try temporaryDirectory(), render: render, jobs: 1),
                                       inspector: FakeInspector(), renderer: renderer, writer: FakeWriter())
            let results = Recorder(batch.results)
            #expect(batch.run(parse(list)) == BatchSummary(saved: 3))
            let own = try CollageTitle("Grandma's 90th")
            #expect(renderer.renderedOptions.map(\.title) == [runTitle, own, runTitle])
            var expected = render
            expected.title = own
            #expect(renderer.renderedOptions[1] == expected, "only the title changes: size, margin and the rest are the run's")
            #expect(results.values.map(\.title) == [runTitle, own, runTitle])
        }
    }

    @Test func aDryRunTellsEachCollagesTitle() throws {
        let directory = try temporaryDirectory()
        let options = BatchOptions(outputDirectory: directory, render: try CollageRenderOptions(title: try CollageTitle("Run")),
                                   jobs: 1, dryRun: true)
        let batch = BatchViewModel(options: options, inspector: FakeInspector(), renderer: FakeRenderer(), writer: FakeWriter())
        let results = Recorder(batch.results)
        let long = String(repeating: "long ", count: 20)
        _ = batch.run(parse("#title Say \"cheese\"\n#layout rows\na.jpg\nb.jpg\n\nc.jpg\nd.jpg\n\n#title \(long)\ne.jpg\nf.jpg"))
        #expect(results.values.map { $0.message() } == [
            "collage 1 (lines 1-4): 2 photos, rows layout, titled \"Say \\\"cheese\\\"\" -> \(directory.path)/collage-001.jpg",
            "collage 2 (lines 6-7): 2 photos, auto layout, titled \"Run\" -> \(directory.path)/collage-002.jpg",
            "collage 3 (lines 9-11): 2 photos, auto layout, titled \"\(long.prefix(40))...\" -> \(directory.path)/collage-003.jpg",
        ])
        let untitled = BatchViewModel(options: BatchOptions(outputDirectory: directory, render: try CollageRenderOptions(),
                                                            jobs: 1, dryRun: true),
                                      inspector: FakeInspector(), renderer: FakeRenderer(), writer: FakeWriter())
        let plain = Recorder(untitled.results)
        _ = untitled.run(parse("a.jpg\nb.jpg"))
        #expect(plain.values.map { $0.message() } == ["collage 1 (lines 1-2): 2 photos, auto layout -> \(directory.path)/collage-001.jpg"])
        // A collage's own #size is said too.
        let sized = Recorder(untitled.results)
        _ = untitled.run(parse("#size A4-landscape\na.jpg\nb.jpg"))
        #expect(sized.values.map { $0.message() } == ["collage 1 (lines 1-3): 2 photos, auto layout, size A4-landscape -> \(directory.path)/collage-001.jpg"])
    }

    /// A `#size` line's size, at the run's --dpi: on paper 300 dpi unless
    /// asked, and a size in pixels says a resolution only when one was asked,
    /// whatever the run's --size.
    @Test func aGroupsSizeIsDrawnAtTheRunsResolution() throws {
        let list = "#size A5\na.jpg\nb.jpg\n\n#size 640x480\nc.jpg\nd.jpg\n\ne.jpg\nf.jpg\n\n#size A3\ng.jpg\nh.jpg"
        for dpi in [nil, try PrintResolution(parsing: "150")] {
            var render = try CollageRenderOptions()
            try render.resize(to: SizeRequest(parsing: "6x4in"), dpi: dpi)
            let renderer = FakeRenderer()
            let batch = BatchViewModel(options: BatchOptions(outputDirectory: try temporaryDirectory(), render: render, jobs: 1, dpi: dpi),
                                       inspector: FakeInspector(), renderer: renderer, writer: FakeWriter())
            #expect(batch.run(parse(list)) == BatchSummary(saved: 4))
            let sizes = renderer.renderedOptions.map(\.size.description)
            let resolutions = renderer.renderedOptions.map(\.save.resolution?.dotsPerInch)
            let pages = renderer.renderedOptions.map { $0.save.page?.name }
            if dpi == nil {
                #expect(sizes == ["1748x2480", "640x480", "1800x1200", "3508x4961"])
                #expect(resolutions == [300, nil, 300, 300])
            } else {
                #expect(sizes == ["874x1240", "640x480", "900x600", "1754x2480"])
                #expect(resolutions == [150, 150, 150, 150])
            }
            #expect(pages == ["A5", nil, "6x4in", "A3"])
        }
    }

    @Test func aGroupsSizeOnPaperTooLargeAtTheRunsResolutionIsSkippedNamingItsLine() throws {
        let dpi = try PrintResolution(parsing: "1200")
        let renderer = FakeRenderer()
        let batch = BatchViewModel(options: BatchOptions(outputDirectory: try temporaryDirectory(), render: try CollageRenderOptions(),
                                                         jobs: 1, dpi: dpi),
                                   inspector: FakeInspector(), renderer: renderer, writer: FakeWriter())
        let results = Recorder(batch.results)
        #expect(batch.run(parse("# big\n#size A3\na.jpg\nb.jpg\n\nc.jpg\nd.jpg")) == BatchSummary(saved: 1, skipped: 1))
        #expect(results.values.first?.outcome
            == .skipped(.problem("line 2: size A3 at 1200 dpi is 14031x19843 pixels: each side must be 1 to 16384 pixels")))
        #expect(renderer.renderCalls.count == 1)
    }

    /// `#size 1920x` leaves the height to rows: with another layout that
    /// line is the problem, named as the list's are (not --size).
    @Test func aGroupsSizeItsLayoutCannotDrawIsAProblemOfItsLine() throws {
        let batch = BatchViewModel(options: BatchOptions(outputDirectory: try temporaryDirectory(), render: try CollageRenderOptions(), jobs: 1),
                                   inspector: FakeInspector(), renderer: FakeRenderer(), writer: FakeWriter())
        let results = Recorder(batch.results)
        #expect(batch.run(parse("#size 1920x\na.jpg\nb.jpg\n\n#layout rows\n#size 1920x\nc.jpg\nd.jpg")) == BatchSummary(saved: 1, skipped: 1))
        #expect(results.values.first?.outcome == .skipped(.problem(
            "line 1: the auto layout cannot draw the size 1920x: it leaves the height to the photos, which only rows does")))
    }

    @Test func aCaptionReachesTheRenderedPhotos() throws {
        let renderer = FakeRenderer()
        let batch = BatchViewModel(options: BatchOptions(outputDirectory: try temporaryDirectory(), render: try CollageRenderOptions(), jobs: 1),
                                   inspector: FakeInspector(), renderer: renderer, writer: FakeWriter())
        #expect(batch.run(parse("#caption \"Grandma, 1962\" #focus 0.5 0.2 grandma at 90.jpg\nb.jpg")) == BatchSummary(saved: 1))
        #expect(renderer.rendered == [[photo("grandma at 90.jpg").captioned("Grandma, 1962").focused(try PhotoFocus(x: 0.5, y: 0.2)),
                                       photo("b.jpg")]])
        #expect(renderer.rendered.first?.map(\.caption) == ["Grandma, 1962", nil])
    }
}

@Suite struct BatchShardAndReportTests {
    func group(_ number: Int, _ names: [String]) -> BatchGroup {
        BatchGroup(number: number, firstLine: number * 10, lastLine: number * 10 + names.count - 1, photos: names.map(photo))
    }

    /// Only the shard's collages are made, under the numbers of the whole list.
    @Test func aShardMakesItsCollagesUnderTheWholeListsNumbers() throws {
        let writer = FakeWriter()
        let options = BatchOptions(outputDirectory: try temporaryDirectory(), render: try CollageRenderOptions(), jobs: 1,
                                   shard: try BatchShard(parsing: "2/3"))
        let batch = BatchViewModel(options: options, inspector: FakeInspector(), renderer: FakeRenderer(), writer: writer)
        let results = Recorder(batch.results)
        let groups = (1...7).map { group($0, ["a.jpg", "b.jpg"]) }
        #expect(batch.run(groups) == BatchSummary(saved: 2))
        #expect(writer.saved.map(\.lastPathComponent) == ["collage-002.jpg", "collage-005.jpg"])
        #expect(results.values.map(\.group.number) == [2, 5])
    }

    /// A run that writes nothing (skipped, kept or planned collages) leaves no folder behind.
    @Test func theOutputFolderIsMadeOnlyWhenACollageIsWritten() throws {
        let folder = try temporaryDirectory().appendingPathComponent("new/out")
        let skipped = BatchViewModel(options: BatchOptions(outputDirectory: folder, render: try CollageRenderOptions(), jobs: 1),
                                     inspector: FakeInspector(), renderer: FakeRenderer(), writer: FakeWriter())
        #expect(skipped.run([group(1, ["a.jpg"]), group(2, ["a.jpg", "bad.jpg"])]) == BatchSummary(skipped: 2))
        #expect(!FileManager.default.fileExists(atPath: folder.path))
        let planned = BatchViewModel(options: BatchOptions(outputDirectory: folder, render: try CollageRenderOptions(), dryRun: true),
                                     inspector: FakeInspector(), renderer: FakeRenderer(), writer: FakeWriter())
        #expect(planned.run([group(1, ["a.jpg", "b.jpg"])]) == BatchSummary(saved: 1))
        #expect(!FileManager.default.fileExists(atPath: folder.path))
        let saved = BatchViewModel(options: BatchOptions(outputDirectory: folder, render: try CollageRenderOptions(), jobs: 1),
                                   inspector: FakeInspector(), renderer: FakeRenderer(), writer: FakeWriter())
        #expect(saved.run([group(1, ["a.jpg", "b.jpg"])]) == BatchSummary(saved: 1))
        #expect(FileManager.default.fileExists(atPath: folder.path))
    }

    /// A folder that cannot be made fails every collage that would be written, naming it.
    @Test func aFolderThatCannotBeMadeFailsTheCollagesNamingIt() throws {
        let base = try temporaryDirectory()
        try Data().write(to: base.appendingPathComponent("file"))
        let folder = base.appendingPathComponent("file/out")
        let batch = BatchViewModel(options: BatchOptions(outputDirectory: folder, render: try CollageRenderOptions(), jobs: 1),
                                   inspector: FakeInspector(), renderer: FakeRenderer(), writer: FakeWriter())
        let results = Recorder(batch.results)
        #expect(batch.run([group(1, ["a.jpg", "b.jpg"]), group(2, ["c.jpg", "d.jpg"])]) == BatchSummary(failed: 2))
        let message = "cannot create the output folder \(folder.path): Not a directory"
        #expect(results.values.map(\.outcome) == Array(repeating: .failed(CollageFailure(.write, path: folder.path, message: message)), count: 2))
    }

    @Test func forceAndSkipExistingAreRefusedTogether() {
        #expect(BatchOptions.refusal(overwrite: true, skipExisting: true)
            == ValueError("existing collages cannot be both left alone and replaced: ask for one or the other"))
        #expect(BatchOptions.refusal(overwrite: true, skipExisting: false) == nil)
        #expect(BatchOptions.refusal(overwrite: false, skipExisting: true) == nil)
    }

    /// One JSON object a line, its keys in the documented order, for each outcome.
    @Test func reportLinesSayWhatBecameOfEachCollage() throws {
        let directory = try temporaryDirectory()
        try Data("old".utf8).write(to: directory.appendingPathComponent("collage-003.jpg"))
        let options = BatchOptions(outputDirectory: directory, render: try CollageRenderOptions(), jobs: 1)
        let batch = BatchViewModel(options: options, inspector: FakeInspector(), renderer: FakeRenderer(), writer: FakeWriter())
        let results = Recorder(batch.results)
        _ = batch.run([group(1, ["a.jpg", "b.jpg"]), group(2, ["a \"quoted\".jpg", "bad.jpg"]), group(3, ["c.jpg", "d.jpg"])])
        let out = directory.path
        #expect(results.values.map { $0.reportLine() } == [
            #"{"collage":1,"line":10,"output":"\#(out)/collage-001.jpg","status":"saved","photos":["/photos/a.jpg","/photos/b.jpg"],"reason":null}"#,
            #"{"collage":2,"line":20,"output":null,"status":"skipped","photos":["/photos/a \"quoted\".jpg","/photos/bad.jpg"],"reason":"/photos/bad.jpg: not a JPEG, PNG, HEIF or WebP file"}"#,
            #"{"collage":3,"line":30,"output":null,"status":"failed","photos":["/photos/c.jpg","/photos/d.jpg"],"reason":"\#(out)/collage-003.jpg already exists"}"#,
        ])
        for line in results.values.map({ $0.reportLine() }) {
            #expect(try JSONSerialization.jsonObject(with: Data(line.utf8)) is [String: Any])
        }
        var skipExisting = options
        skipExisting.skipExisting = true
        let again = BatchViewModel(options: skipExisting, inspector: FakeInspector(), renderer: FakeRenderer(), writer: FakeWriter())
        let kept = Recorder(again.results)
        _ = again.run([group(3, ["c.jpg", "d.jpg"])])
        #expect(kept.values.map(\.status) == ["kept"])
    }
}
