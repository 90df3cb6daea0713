import CollageTestSupport
import Foundation
import Testing

/// `collage preview`: the collage drawn once, through PreviewService.
@Suite struct PreviewEndToEndTests {
    @Test func drawsTheCollageInItsProportionsAsWideAsAsked() throws {
        let cli = try CLI()
        try cli.run("add", CLI.jpegs[0], CLI.jpegs[1])
        let output = try cli.run("preview", "--width", "40")
        #expect(output.status == 0)
        let lines = output.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        // 40 columns of 10 x 20 px cells in 16:9: 400 x 225 px, 11.25 rows -> 12,
        // of which libchafa fills the rows the picture covers.
        #expect((10...12).contains(lines.count), "\(lines.count) rows")
        // Every row is 40 cells of symbols (colour codes aside: NO_COLOR may be set).
        let visible = lines.map { $0.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression) }
        #expect(visible.allSatisfy { $0.count == 40 }, "\(visible.map(\.count))")
    }

    /// An odd count is drawn (to see it), and the person told `save` will not take it.
    @Test func anOddCountIsDrawnWithAWarningThatSaveRefusesIt() throws {
        let cli = try CLI()
        try cli.run("add", CLI.jpegs[0], CLI.jpegs[1], CLI.jpegs[2])
        let output = try cli.run("preview", "--width", "40")
        #expect(output.status == 0 && !output.stdout.isEmpty)
        #expect(output.stderr == "collage: warning: save will refuse this collage: cannot save 3 photos: a collage needs an even number of photos\n")
        try cli.run("remove", "3")
        #expect(try cli.run("preview", "--width", "40").stderr.isEmpty, "an even count: nothing to say")
    }

    @Test func anEmptyCollageIsRefused() throws {
        let cli = try CLI()
        let output = try cli.run("preview")
        #expect(output.status == 1)
        #expect(output.stderr == "collage: the collage is empty\n")
    }
}

/// What `batch` asks of its services before making anything.
@Suite struct BatchListSourceEndToEndTests {
    @Test func aFolderGivenAsTheListIsRefused() throws {
        let cli = try CLI()
        let output = try cli.run("batch", cli.workingDirectory.path)
        #expect(output.status == 1)
        #expect(output.stderr == "collage: \(cli.workingDirectory.path): is a folder, not a list\n")
    }

    @Test func aMissingListAndAnImpossibleOutputFolderAreNamed() throws {
        let cli = try CLI()
        let missing = try cli.run("batch", "nope.txt")
        #expect(missing.status == 1)
        #expect(missing.stderr == "collage: cannot read the list \(cli.workingDirectory.path)/nope.txt: No such file or directory\n")
        let list = cli.workingDirectory.appendingPathComponent("list.txt")
        try "\(CLI.jpegs[0])\n\(CLI.jpegs[1])\n".write(to: list, atomically: true, encoding: .utf8)
        try Data().write(to: cli.workingDirectory.appendingPathComponent("file"))
        let blocked = try cli.run("batch", list.path, "-o", "file/out")
        #expect(blocked.status == 1)
        // Made when the first collage is written (none is made for a run that writes nothing).
        #expect(blocked.stderr
            == "collage 1 (lines 1-2): failed: cannot create the output folder \(cli.workingDirectory.path)/file/out: Not a directory\n")
    }
}
