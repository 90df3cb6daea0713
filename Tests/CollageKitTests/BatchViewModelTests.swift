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
        #expect(summary == BatchSummary(saved: 2, failed: 3))
        #expect(writer.saved.map(\.lastPathComponent) == ["collage-001.jpg", "collage-005.jpg"])
        #expect(results.values.map(\.outcome) == [
            .saved,
            .skipped("cannot save 3 photos: a collage needs an even number of photos"),
            .skipped("/photos/bad.jpg: not a JPEG, PNG, HEIF or WebP file"),
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
