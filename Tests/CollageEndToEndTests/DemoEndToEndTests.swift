import CollageTestSupport
import Foundation
import Testing

/// `make demo` (scripts/demo.sh), with the built binary (BINARY=) into a
/// temporary folder (OUT=), so no release build runs inside the tests.
@Suite struct DemoEndToEndTests {
    /// Issue #44: nine "Saved" lines and seven warnings, the main collage in
    /// the middle. Now one line: where the collages are, the main one first;
    /// the commands' own output in a log, shown when one fails.
    @Test func theDemoEndsWithOneLineSayingWhereTheCollagesAre() throws {
        let cli = try CLI()
        let out = cli.workingDirectory.appendingPathComponent("demo").path
        func demo(binary: String) throws -> Run {
            try cli.bash("cd \(shellQuoted(CLI.packageRoot.path)) && BINARY=\(binary) OUT=\(shellQuoted(out)) scripts/demo.sh")
        }
        let run = try demo(binary: "\"$COLLAGE\"")
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
        let files = ["book-cover.jpg", "book-page.jpg", "collage-banner.jpg", "collage-portrait.jpg", "layout-auto.jpg",
                     "layout-columns.jpg", "layout-grid.jpg", "layout-rows.jpg", "title.jpg", "collage-a4-pdf.png",
                     "book-samples.pdf", "book-trip.pdf", "collage-a4.pdf"]
        #expect(run.stdout == "The collage is \(out)/collage.jpg; beside it in \(out)/: \(files.joined(separator: ", ")) (what each command said: \(out)/demo.log).\n",
                "\(run.stdout)")
        #expect(isCompleteImage("\(out)/collage.jpg", width: 1920, height: 1080))
        let log = try String(contentsOfFile: "\(out)/demo.log", encoding: .utf8)
        #expect(log.contains("Saved \(out)/collage.jpg"), "\(log)")
        // The books: the trip's pages named by the towns of its photos' GPS, its cover by their
        // region; SampleImages', undated, one page titled by its folder.
        let trip = try PDFEndToEndTests.poppler("pdftotext", [], URL(fileURLWithPath: "\(out)/book-trip.pdf")).text
        #expect(trip.split(separator: "\u{0C}").count == 3 && trip.contains("Tuscany · October 2008")
                && trip.contains("Arezzo · Oct 22, 2008") && trip.contains("Florence · Oct 25, 2008"), "\(trip)")
        let samples = try PDFEndToEndTests.poppler("pdftotext", [], URL(fileURLWithPath: "\(out)/book-samples.pdf")).text
        #expect(samples.split(separator: "\u{0C}").count == 2 && samples.contains("SampleImages"), "\(samples)")

        // A command that fails: its output, the log, is shown, and the status is not 0.
        let failed = try demo(binary: "/bin/ls")
        #expect(failed.status != 0 && failed.stdout.isEmpty, "\(failed)")
        #expect(failed.stderr.contains("SampleImages/astronaut-eileen-collins.jpg"), "what ls said: \(failed.stderr)")
    }
}
