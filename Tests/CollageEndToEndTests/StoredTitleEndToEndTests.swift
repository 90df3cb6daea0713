import CollageTestSupport
import Foundation
import Testing

/// `collage title` and `t` through the built binary (issue #41, "A stored
/// title"): kept in the selection, shown by `status` apart from "N
/// photos", drawn by `save` in the band its dry run gives, then emptied.
@Suite struct StoredTitleEndToEndTests {
    let titles = TitleEndToEndTests()
    let layouts = LayoutEndToEndTests()

    @Test func theTitleIsStoredShownDrawnAndEmptiedBySave() throws {
        let cli = try titles.collage()
        let set = try cli.run("title", "  Summer in Kyoto  ")
        #expect(set.status == 0 && set.stdout == "The collage is titled \"Summer in Kyoto\"\n", "\(set)")
        #expect(try cli.run("status").stdout.hasPrefix("4 photos\ntitle: \"Summer in Kyoto\"\n  1. "))
        let json = try cli.status()
        #expect(json["title"] as? String == "4 photos" && json["collageTitle"] as? String == "Summer in Kyoto")

        // --title draws another for one save, and leaves the stored one.
        let once = try layouts.dryRun(cli, ["--size", "800x600", "--title", "Just once"])
        #expect((once["title"] as? [String: Any])?["text"] as? String == "Just once")
        let plan = try layouts.dryRun(cli, ["--size", "800x600"])
        let band = try #require(plan["title"] as? [String: Any], "no title band in \(plan)")
        #expect(band["text"] as? String == "Summer in Kyoto")
        let rect = TitleEndToEndTests.Rect(band)
        #expect(rect.y == 0 && rect.width == 800 && rect.height > 40)
        let cells = (plan["photos"] as? [[String: Any]] ?? []).map { TitleEndToEndTests.Rect($0["cell"]) }
        #expect(cells.count == 4 && cells.allSatisfy { $0.y >= rect.height })

        let saved = try cli.run("save", "-o", "titled.png", "--size", "800x600")
        #expect(saved.status == 0, "\(saved.stderr)")
        // The ink outside the cells is the title's, in its band.
        let image = try layouts.pixels(cli.workingDirectory.appendingPathComponent("titled.png").path)
        var ink = 0
        for y in 0..<image.height {
            for x in 0..<image.width where !cells.contains(where: { $0.contains(x, y) }) {
                let offset = (y * image.width + x) * 3
                guard image.rgb[offset..<offset + 3] != [255, 255, 255] else { continue }
                #expect(rect.contains(x, y), "ink at \(x),\(y) outside the band \(rect)")
                if !rect.contains(x, y) { return }
                ink += 1
            }
        }
        #expect(ink > 300, "only \(ink) pixels of ink: the title was not drawn")
        // The save emptied the selection, its title too.
        let after = try cli.status()
        #expect(after["count"] as? Int == 0 && after["collageTitle"] == nil, "\(after)")
        #expect(try cli.run("status").stdout.hasPrefix("Collage\nadd: "))
    }

    @Test func clearAndTitleClearForgetIt() throws {
        let cli = try CLI()
        #expect(try cli.run("title", "Alone").status == 0, "a title needs no photos")
        #expect(try cli.run("status").stdout.contains("clear: yes"))
        #expect(try cli.run("clear").status == 0)
        #expect(try cli.status()["collageTitle"] == nil)
        #expect(try cli.run("clear").status == 1, "nothing to clear")
        try cli.run("title", "Again")
        let cleared = try cli.run("title", "--clear")
        #expect(cleared.status == 0 && cleared.stdout == "The collage has no title of its own\n", "\(cleared)")
        #expect(try cli.status()["collageTitle"] == nil)
    }

    @Test("a title the rules refuse changes nothing", arguments: [
        (["title"], "give the title"),
        (["title", "x", "--clear"], "not both"),
        (["title", "   "], "the title is empty"),
        (["title", String(repeating: "a", count: 1001)], "over the limit of 1000"),
    ])
    func refusals(arguments: [String], naming: String) throws {
        let cli = try CLI()
        try cli.run("title", "Kept")
        let output = try cli.run(arguments)
        #expect(output.status == 64, "\(output)")
        #expect(output.stderr.hasPrefix("collage: ") && output.stderr.contains(naming), "\(output.stderr)")
        #expect(try cli.status()["collageTitle"] as? String == "Kept")
    }

    /// The case: `t` on the collage screen, then `q`: the title is
    /// the selection's, so `collage status` (and a save) still has it.
    @Test func tOnTheCollageScreenOutlivesQ() throws {
        guard PickEndToEndTests.tmuxAvailable else { return }
        let cli = try titles.collage()
        let session = try TmuxSession(command: "'\(CLI.binary.path)'", environment: ["XDG_STATE_HOME": cli.state.path],
                                      folder: cli.workingDirectory)
        try session.waitFor("the collage screen") { $0.contains("t title") }
        try session.keys("t")
        try session.waitFor("the title prompt") { $0.contains("Title: ") }
        try session.type("Summer in Kyoto")
        try session.keys("Enter")
        try session.waitFor("the message") { $0.contains("The collage is titled \"Summer in Kyoto\"") }
        try session.waitFor("the title above the picture") { $0.contains("“Summer in Kyoto”") }
        try session.keys("q")
        #expect(session.exitStatus() == "0")
        #expect(try cli.status()["collageTitle"] as? String == "Summer in Kyoto")
        #expect(try cli.run("status").stdout.contains("title: \"Summer in Kyoto\""))
    }
}
