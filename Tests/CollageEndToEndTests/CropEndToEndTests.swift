import CollageTestSupport
import Foundation
import Testing
@testable import CollageKit

/// Crops end to end (issue #13): `collage focus`, `--crop` and `--fit` on
/// the built binary, and the collage screen's crop keys in tmux.
@Suite struct CropEndToEndTests {
    static let astronaut = CLI.sample("astronaut-eileen-collins.jpg")
    static let cat = CLI.sample("chelsea-the-cat.jpg")

    func save(_ cli: CLI, _ name: String, _ options: [String] = []) throws -> Data {
        let saved = try cli.run(["save", "-o", name, "--size", "600x200"] + options)
        #expect(saved.status == 0, "\(saved.stderr)")
        return try Data(contentsOf: cli.workingDirectory.appendingPathComponent(name))
    }

    @Test func focusIsStoredShownAndUsedBySaveButNotByCentre() throws {
        let cli = try CLI()
        func addBoth() throws { #expect(try cli.run("add", Self.astronaut, Self.cat).status == 0) }
        try addBoth()
        let plain = try save(cli, "plain.png", ["--crop", "centre"])
        try addBoth()
        let focused = try cli.run("focus", "1", "0.5", "0.1")
        #expect(focused.status == 0 && focused.stdout.contains("Photo 1 (astronaut-eileen-collins.jpg) is cropped around 0.5,0.1"))
        let status = try cli.run("status")
        #expect(status.stdout.contains("astronaut-eileen-collins.jpg  (focus 0.5,0.1)"))
        let json = try cli.status()
        let focus = try #require(json["focus"] as? [Any])
        #expect((focus[0] as? [String: Double]) == ["x": 0.5, "y": 0.1])
        #expect(focus[1] is NSNull)
        // Centre ignores the focus; the default (smart) uses it.
        #expect(try save(cli, "centre.png", ["--crop", "centre"]) == plain)
        try addBoth()
        #expect(try cli.run("focus", "1", "0.5", "0.1").status == 0)
        #expect(try save(cli, "smart.png") != plain)
    }

    @Test func focusRefusesWhatItCannotDo() throws {
        let cli = try CLI()
        let empty = try cli.run("focus", "1", "0.5", "0.5")
        #expect(empty.status != 0 && empty.stderr.contains("no photo to focus: the collage is empty"))
        #expect(try cli.run("add", Self.cat).status == 0)
        let outside = try cli.run("focus", "2", "0.5", "0.5")
        #expect(outside.status != 0 && outside.stderr.contains("there is no photo 2"))
        let range = try cli.run("focus", "1", "1.5", "0.5")
        #expect(range.status != 0 && range.stderr.contains("fractions from 0 to 1"))
        let both = try cli.run("focus", "1", "0.5", "0.5", "--clear")
        #expect(both.status != 0 && both.stderr.contains("not both"))
        #expect(try cli.run("focus", "1", "--clear").status == 0)
    }

    @Test func containAndCentreAndAttentionAreAcceptedAndBadValuesExplained() throws {
        let cli = try CLI()
        for options in [["--fit", "contain"], ["--crop", "attention"], ["--crop", "center"]] {
            #expect(try cli.run("add", Self.astronaut, Self.cat).status == 0)
            _ = try save(cli, "out.png", options + ["--force"])
        }
        #expect(try cli.run("add", Self.astronaut, Self.cat).status == 0)
        let bad = try cli.run("save", "-o", "x.png", "--crop", "middle")
        #expect(bad.status != 0 && bad.stderr.contains("crop 'middle' is not smart, centre or attention"))
        let help = try cli.run("save", "--help")
        #expect(help.stdout.contains("--crop") && help.stdout.contains("--fit"))
    }

    @Test func theCropKeysMoveTheHighlightedPhotosCropOnTheCollageScreen() throws {
        guard PickEndToEndTests.tmuxAvailable else { return }
        let cli = try CLI()
        #expect(try cli.run("add", Self.astronaut, Self.cat).status == 0)
        let session = try TmuxSession(command: "'\(CLI.binary.path)'", environment: ["XDG_STATE_HOME": cli.state.path],
                                      folder: cli.workingDirectory)
        let screen = try session.waitFor("the collage screen") { $0.contains("HJKL crop") }
        #expect(screen.contains("2 photos"))
        try session.keys("j", "L", "L")
        try session.waitFor("the message") { $0.contains("Photo 2 (chelsea-the-cat.jpg) is cropped around 0.6,0.5") }
        let json = try cli.status()
        let focus = try #require(json["focus"] as? [Any])
        #expect(focus[0] is NSNull)
        #expect((focus[1] as? [String: Double]) == ["x": 0.6, "y": 0.5])
        try session.keys("F")
        try session.waitFor("the focus forgotten") { $0.contains("has no focus") }
        try session.keys("q")
    }
}
