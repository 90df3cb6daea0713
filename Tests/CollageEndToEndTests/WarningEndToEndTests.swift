import CollageImaging
import Foundation
import Testing

/// What was silent and is now said (issue #32): each a `collage: warning: `
/// line on stderr, the exit status unchanged.
@Suite struct WarningEndToEndTests {
    /// A sample JPEG with 2000 bytes cut from the middle of its scan: libjpeg
    /// reads past the gap ("Corrupt JPEG data") and draws on.
    func corruptJPEG(in cli: CLI) throws -> String {
        let whole = try Data(contentsOf: URL(fileURLWithPath: CLI.jpegs[0]))
        let middle = whole.count / 2
        let path = cli.workingDirectory.appendingPathComponent("damaged.jpg").path
        try (whole.prefix(middle) + whole.dropFirst(middle + 2000)).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Said when it is drawn: `add` walks a JPEG's structure without
    /// decoding it (issue #42: its small draw of every photo was a whole
    /// entropy decode, and save decodes it again), and broken data inside a
    /// plainly whole scan shows only to a decode.
    @Test func aCorruptJPEGIsDrawnAndSaidAtSave() throws {
        let cli = try CLI()
        let damaged = try corruptJPEG(in: cli)
        let line = "collage: warning: \(damaged): the file has corrupt data: it is drawn as far as it decodes, and parts may be garbled\n"
        let add = try cli.run("add", damaged, CLI.jpegs[1])
        #expect(add.status == 0 && add.stderr.isEmpty, "\(add)")
        #expect(try cli.count() == 2)
        let save = try cli.run("save", "-o", "out.png", "--size", "320x180", "--keep")
        #expect(save.status == 0 && save.stderr == line, "\(save)")
        // A pick refused for another reason says only why it was refused.
        let refused = try cli.run("add", damaged, cli.workingDirectory.appendingPathComponent("missing.jpg").path)
        #expect(refused.status == 1 && !refused.stderr.contains("warning"), "\(refused)")
        // A whole file says nothing.
        try cli.run("clear")
        #expect(try cli.run("add", CLI.jpegs[0], CLI.jpegs[1]).stderr.isEmpty)
        #expect(try cli.run("save", "-o", "whole.png", "--size", "320x180").stderr.isEmpty)
    }

    /// Issue #44: a JPEG cut short (a download that stopped) was "corrupt
    /// data" and a big grey box. Now the warning says what happened and how
    /// much of it is drawn, the same at add and at save: the top share of
    /// its rows the data reached, the rest grey (checked in the pixels); a
    /// progressive one drawn coarse from the scans it has; one missing
    /// only its end marker, every row there, says nothing.
    @Test func aJPEGCutShortSaysHowMuchOfItIsDrawn() throws {
        let cli = try CLI()
        let whole = try Data(contentsOf: URL(fileURLWithPath: CLI.jpegs[0]))  // chelsea, 451x300, sequential
        let half = cli.workingDirectory.appendingPathComponent("half.jpg").path
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: half))
        let add = try cli.run("add", half, CLI.jpegs[0])
        let pattern = #"^collage: warning: (.*): cut short: the top (\d+)% of it could be drawn \(the rest is grey\)\n$"#
        let found = try #require(add.stderr.firstMatch(of: try Regex(pattern)), "\(add.stderr)")
        let named = found.output[1].substring.map(String.init)
        #expect(named == half)
        let percent = try #require(found.output[2].substring.flatMap { Int($0) })
        #expect(percent > 30 && percent < 70, "half the bytes, about half the rows: \(percent)")
        // Side by side at their own size (grid cells of 451x300: no scaling).
        let save = try cli.run("save", "-o", "out.png", "--layout", "grid", "--size", "902x300", "--keep")
        #expect(save.status == 0 && save.stderr == add.stderr, "\(save.stderr)")
        var options = ci_decode_options()
        var image = ci_image()
        var error = ci_error()
        try #require(ci_decode_file(cli.workingDirectory.appendingPathComponent("out.png").path, &options, &image, &error) == CI_OK)
        defer { ci_image_free(&image) }
        func isGrey(_ row: Int) -> Bool {
            (0..<451).allSatisfy { x in
                (0..<3).allSatisfy { abs(Int(image.pixels[row * image.stride + x * Int(image.channels) + $0]) - 128) <= 2 }
            }
        }
        let boundary = 300 * percent / 100
        #expect(!isGrey(boundary - 20), "drawn above the share")
        #expect((boundary + 20..<300).allSatisfy(isGrey), "grey below it")

        // A progressive JPEG cut after its first scans: every row, coarse.
        try cli.run("clear")
        let progressive = try Data(contentsOf: CLI.packageRoot.appendingPathComponent("Tests/Fixtures/jpeg/progressive.jpg"))
        let coarse = cli.workingDirectory.appendingPathComponent("coarse.jpg").path
        try progressive.prefix(progressive.count * 3 / 10).write(to: URL(fileURLWithPath: coarse))
        let line = "collage: warning: \(coarse): cut short: it is drawn coarse because its later scans are missing\n"
        let addCoarse = try cli.run("add", coarse, CLI.jpegs[0])
        #expect(addCoarse.status == 0 && addCoarse.stderr == line, "\(addCoarse.stderr)")
        let saveCoarse = try cli.run("save", "-o", "coarse.png", "--layout", "grid", "--size", "902x300")
        #expect(saveCoarse.status == 0 && saveCoarse.stderr == line, "\(saveCoarse.stderr)")
        // Cut in its first scan, rows are missing, as in a sequential one.
        try progressive.prefix(1000).write(to: URL(fileURLWithPath: coarse))
        #expect(try cli.run("add", coarse, CLI.jpegs[0]).stderr.firstMatch(of: try Regex(pattern)) != nil)

        // Missing only the end marker: nothing to say, at add or save.
        try cli.run("clear")
        for (name, bytes) in [("no-end.jpg", whole), ("no-end-progressive.jpg", progressive)] {
            let path = cli.workingDirectory.appendingPathComponent(name).path
            try bytes.dropLast(2).write(to: URL(fileURLWithPath: path))
            let quiet = try cli.run("add", path, CLI.jpegs[1])
            #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(name): \(quiet.stderr)")
            let saved = try cli.run("save", "-o", "\(name).png", "--size", "320x180")
            #expect(saved.status == 0 && saved.stderr.isEmpty, "\(name): \(saved.stderr)")
        }
    }

    /// A GIF whose first frame's data stops halfway is drawn as far as it
    /// goes (the rest is background), and said at add and save as a JPEG
    /// cut short is: how much of it came (issue #42).
    @Test func aGIFWhoseFirstFrameIsCutShortIsDrawnAndSaidAtAddAndAtSave() throws {
        let cli = try CLI()
        let short = FormatTests.fixture("gif", "short-frame.gif")
        let add = try cli.run("add", short, FormatTests.fixture("gif", "still.gif"))
        #expect(add.status == 0 && add.stderr == "collage: warning: \(short): cut short: the top 46% of it could be drawn (the rest is empty)\n", "\(add)")
        // 96x64 photos in cells no larger: nothing is enlarged.
        let save = try cli.run("save", "-o", "out.png", "--size", "192x64", "--layout", "grid", "--keep")
        #expect(save.status == 0, "\(save)")
        #expect(save.stderr == "collage: warning: \(short): cut short: the top 46% of it could be drawn (the rest is empty)\n", "\(save.stderr)")
        // The whole GIF alone says nothing.
        try cli.run("clear")
        try cli.run("add", FormatTests.fixture("gif", "still.gif"), FormatTests.fixture("gif", "animated.gif"))
        #expect(try cli.run("save", "-o", "whole.png", "--size", "192x64", "--layout", "grid").stderr.isEmpty)
    }

    /// The cover factor of each photo in its cell: chelsea (451x300) and
    /// coffee-cup (600x400) in 1250x800 cells are enlarged 2.77 and 2.08 times.
    @Test func aPhotoEnlargedMoreThanTwiceIsNamedWithItsFactor() throws {
        let cli = try CLI()
        try cli.run("add", CLI.jpegs[0], CLI.jpegs[1])
        let soft = try cli.run("save", "--layout", "grid", "--size", "2500x800", "-o", "big.png", "--keep")
        #expect(soft.status == 0)
        #expect(soft.stderr == """
            collage: warning: \(CLI.jpegs[0]) is enlarged 2.8x to fill its cell: it will look soft
            collage: warning: \(CLI.jpegs[1]) is enlarged 2.1x to fill its cell: it will look soft

            """, "\(soft.stderr)")
        // 600x400 cells: chelsea 2.0x (not over 2), coffee-cup 1.5x.
        #expect(try cli.run("save", "--layout", "grid", "--size", "1200x400", "-o", "small.png", "--keep").stderr.isEmpty)

        // batch says it per collage, with the collage's label.
        try "\(CLI.jpegs[0])\n\(CLI.jpegs[1])\n".write(to: cli.workingDirectory.appendingPathComponent("list.txt"), atomically: true, encoding: .utf8)
        let batch = try cli.run("batch", "list.txt", "-o", "out", "--layout", "grid", "--size", "2500x800")
        #expect(batch.status == 0)
        #expect(batch.stderr.hasPrefix("""
            collage: warning: collage 1 (lines 1-2): \(CLI.jpegs[0]) is enlarged 2.8x to fill its cell: it will look soft
            collage: warning: collage 1 (lines 1-2): \(CLI.jpegs[1]) is enlarged 2.1x to fill its cell: it will look soft

            """), "\(batch.stderr)")
    }

    /// fontconfig gives its default for a family it does not have, silently.
    @Test func aFontThatIsNotInstalledIsNamedWithTheOneUsed() throws {
        let cli = try CLI()
        try cli.run("add", CLI.jpegs[0], CLI.jpegs[1])
        let missing = try cli.run("save", "-o", "a.png", "--size", "320x180", "--title", "Hi", "--font", "NoSuchFontFamily 40", "--keep")
        #expect(missing.status == 0)
        let lines = missing.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("collage: warning: no installed font is called 'NoSuchFontFamily': ")
                && lines[0].hasSuffix(" is used instead (fc-list lists the installed families)")
                && !lines[0].contains(": : "), "\(missing.stderr)")
        // A generic family is fontconfig's to map: nothing to say.
        #expect(try cli.run("save", "-o", "b.png", "--size", "320x180", "--title", "Hi", "--font", "Serif 40", "--keep").stderr.isEmpty)
    }
}
