import Foundation
import Testing

/// `collage caption` through the built binary (issue #20).
@Suite struct CaptionEndToEndTests {
    /// `status --json`'s captions (JSON null as nil).
    func captions(_ cli: CLI) throws -> [String?] {
        (try cli.status()["captions"] as? [Any] ?? []).map { $0 as? String }
    }

    @Test func captionIsStoredShownAndCleared() throws {
        let cli = try CLI()
        try cli.run("add", CLI.jpegs[0], CLI.jpegs[1])
        let set = try cli.run("caption", "2", "  Grandma, 1962  ")
        #expect(set.status == 0 && set.stdout == "Photo 2 (coffee-cup.jpg) is captioned \"Grandma, 1962\"\n", "\(set)")
        #expect(try captions(cli) == [nil, "Grandma, 1962"])
        #expect(try cli.run("status").stdout.contains("2. \(CLI.jpegs[1])  (caption \"Grandma, 1962\")"))
        // A control character is shown escaped, never sent to the terminal.
        let coloured = try cli.run("caption", "1", "a\u{1B}[31mred")
        #expect(coloured.stdout == "Photo 1 (chelsea-the-cat.jpg) is captioned \"a\\u{1B}[31mred\"\n", "the echo escapes as status does")
        #expect(try cli.run("status").stdout.contains("(caption \"a\\u{1B}[31mred\")"))
        let twoLines = try cli.run("caption", "2", "a\nb")
        #expect(twoLines.stdout == "Photo 2 (coffee-cup.jpg) is captioned \"a\\nb\"\n", "one line, not two: \(twoLines)")
        #expect(try cli.run("caption", "2", "--clear").status == 0)
        #expect(try captions(cli) == ["a\u{1B}[31mred", nil])
    }

    @Test("a caption the rules refuse changes nothing", arguments: [
        (["caption", "3", "x"], 1, "there is no photo 3"),
        (["caption", "1"], 64, "give the caption"),
        (["caption", "1", "x", "--clear"], 64, "not both"),
        (["caption", "1", "   "], 64, "the caption is empty"),
        (["caption", "1", String(repeating: "a", count: 201)], 64, "the limit is 200"),
    ])
    func refusals(arguments: [String], status: Int32, naming: String) throws {
        let cli = try CLI()
        try cli.run("add", CLI.jpegs[0], CLI.jpegs[1])
        let output = try cli.run(arguments)
        #expect(output.status == status, "\(output)")
        #expect(output.stderr.hasPrefix("collage: ") && output.stderr.contains(naming), "\(output.stderr)")
        #expect(try captions(cli) == [nil, nil])
    }

    @Test func aCaptionThatIsNotUTF8IsRefused() throws {
        let cli = try CLI()
        try cli.run("add", CLI.jpegs[0], CLI.jpegs[1])
        let output = try cli.bash("exec \"$COLLAGE\" caption 1 $'caf\\xe9'")
        #expect(output.status == 64 && output.stderr.contains("not valid UTF-8"), "\(output)")
    }
}
