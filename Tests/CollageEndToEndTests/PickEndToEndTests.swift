import CollageImaging
import CollageKit
import CollageTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct PickEndToEndTests {
    /// tmux comes with `make test`'s packages; where it cannot be had the
    /// test says so (and fails on CI, where it must run).
    static var tmuxAvailable: Bool {
        if TmuxSession.tmux != nil { return true }
        let message = "tmux is not installed: the terminal end-to-end tests did not run"
        if ProcessInfo.processInfo.environment["CI"] != nil { Issue.record(Comment(rawValue: message)) }
        FileHandle.standardError.write(Data("note: \(message)\n".utf8))
        return false
    }

    func photosFolder() throws -> URL {
        let folder = try temporaryDirectory()
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CLI.jpegs[0], toPath: folder.appendingPathComponent("a.jpg").path)
        try FileManager.default.copyItem(atPath: CLI.png, toPath: folder.appendingPathComponent("b.png").path)
        try Data("not a photo".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        return folder
    }

    /// At 80 columns the empty collage's hint is read whole; a refusal on
    /// the photos screen (a seventh photo) does not follow the person back
    /// to the collage screen (issue #24).
    @Test func eightyColumnsAndAMessageThatStaysOnItsScreen() throws {
        guard Self.tmuxAvailable else { return }
        let cli = try CLI()
        let photos = try photosFolder()
        let session = try TmuxSession(command: "'\(CLI.binary.path)'", environment: ["XDG_STATE_HOME": cli.state.path],
                                      folder: photos, columns: 80, rows: 24)
        let empty = try session.waitFor("the empty collage screen") { $0.contains("a add") }
        #expect(empty.contains("No photos yet:") && empty.contains("press a to add some."), "\(empty)")
        try session.keys("a")
        try session.waitFor("the photos screen") { $0.contains("a.jpg") }
        try session.keys("j")
        for count in 1...6 {
            try session.keys("Enter")
            try session.waitFor("photo \(count)") { $0.contains(count == 1 ? "1 photo ·" : "\(count) photos ·") }
        }
        try session.keys("Enter")
        try session.waitFor("the refusal") { $0.contains("the collage is full") }
        try session.keys("q")
        let back = try session.waitFor("the collage screen") { $0.contains("6. a.jpg") }
        #expect(!back.contains("the collage is full"), "\(back)")
    }

    /// A folder of files collage does not read is not "empty": they are
    /// listed, dimmed, with why (issue #22).
    @Test func filesItDoesNotReadAreListedWithTheReason() throws {
        guard Self.tmuxAvailable else { return }
        let cli = try CLI()
        let folder = try temporaryDirectory()
        try Data("8BPS\u{0}\u{1}".utf8).write(to: folder.appendingPathComponent("design.psd"))
        try Data("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8).write(to: folder.appendingPathComponent("logo.svg"))
        try Data("text".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        let session = try TmuxSession(command: "'\(CLI.binary.path)' pick '\(folder.path)'", environment: ["XDG_STATE_HOME": cli.state.path],
                                      folder: folder, columns: 100, rows: 24)
        let screen = try session.waitFor("the listed files") { $0.contains("design.psd") && $0.contains("logo.svg") }
        #expect(!screen.contains("No folders or photos here") && !screen.contains("notes.txt"), "\(screen)")
        try session.keys("Enter")
        try session.waitFor("the reason") { $0.contains("design.psd: a Photoshop document: export it as JPEG, PNG or TIFF") }
        try session.keys("q")
        #expect(try cli.run("status").stdout.hasPrefix("Collage"))
    }

    @Test func addTwoPhotosSaveAndQuit() throws {
        guard Self.tmuxAvailable else { return }
        let cli = try CLI()
        let photos = try photosFolder()
        let session = try TmuxSession(
            command: "'\(CLI.binary.path)' pick '\(photos.path)'",
            environment: ["XDG_STATE_HOME": cli.state.path, "COLLAGE_TRACE_RESOURCES": "1"],
            folder: cli.workingDirectory)

        var screen = try session.waitFor("the photos screen") { $0.contains("b.png") }
        #expect(screen.contains("Collage · add photos"))
        #expect(screen.contains(" sub/"))
        #expect(!screen.contains("notes.txt"))
        #expect(session.inAlternateScreen)

        try session.keys("j", "Enter")   // sub/ is first: move to a.jpg and add it
        try session.waitFor("the first photo") { $0.contains("1 photo · add photos") }
        try session.keys("j", "Space")
        try session.waitFor("the second photo") { $0.contains("2 photos · add photos") }
        #expect(try cli.count() == 2, "every pick is stored at once")

        try session.keys("q")
        screen = try session.waitFor("the collage screen") { $0.contains("1. a.jpg") && $0.contains("a add") }
        let resources = try #require(resourceCount(screen))
        for _ in 0..<3 {
            try session.keys("a")
            try session.waitFor("the photos screen again") { $0.contains("add photos") }
            try session.keys("Escape")
            try session.waitFor("the collage screen again") { $0.contains("a add") }
        }
        screen = try session.screen()
        #expect(resourceCount(screen) == resources, "no subscription leaks across visits")

        // The save is offered in the folder just browsed (issue #19).
        try session.save(as: "out.jpg", in: cli.workingDirectory, offered: "Save as: \(photos.path)/collage-")
        #expect(try cli.count() == 0, "a saved collage clears the selection")
        var info = ci_photo_info()
        var error = ci_error()
        #expect(ci_probe_file(cli.workingDirectory.appendingPathComponent("out.jpg").path, &info, &error) == CI_OK)
        #expect(info.width == 1920 && info.height == 1080)

        try session.keys("q")
        #expect(session.exitStatus() == "0")
        #expect(!session.inAlternateScreen, "the terminal is given back")
    }

    /// What `add` and `save` tell of a photo (issue #32: nothing silent)
    /// cannot be written over the full-screen picture: it is kept, and said
    /// once as the commands say it, a warning line, when the terminal is
    /// given back (a damaged file is told at add and again at save).
    @Test func aDamagedPhotoIsSaidOnceWhenThePickerQuits() throws {
        guard Self.tmuxAvailable else { return }
        let cli = try CLI()
        let folder = try temporaryDirectory()
        let damaged = folder.appendingPathComponent("damaged.jpg").path
        try FileManager.default.moveItem(atPath: try WarningEndToEndTests().corruptJPEG(in: cli), toPath: damaged)
        try FileManager.default.copyItem(atPath: CLI.jpegs[2], toPath: folder.appendingPathComponent("whole.jpg").path)
        let session = try TmuxSession(command: "'\(CLI.binary.path)' pick '\(folder.path)'",
                                      environment: ["XDG_STATE_HOME": cli.state.path], folder: cli.workingDirectory)
        try session.waitFor("the photos screen") { $0.contains("whole.jpg") }
        try session.keys("Enter", "j", "Enter")  // damaged.jpg, then whole.jpg
        try session.waitFor("the two photos") { $0.contains("2 photos · add photos") }
        try session.keys("q")
        try session.waitFor("the collage screen") { $0.contains("a add") }
        try session.save(as: "out.jpg", in: cli.workingDirectory)
        #expect(!(try session.screen()).contains("warning"), "nothing is written over the screen")
        try session.keys("q")
        #expect(session.exitStatus() == "0")
        // The lines as written, not as the pane wraps them (-J).
        let shell = try session.tmux(["capture-pane", "-p", "-J"])
        let line = "collage: warning: \(damaged): the file has corrupt data: it is drawn as far as it decodes, and parts may be garbled"
        #expect(shell.components(separatedBy: "\n").filter { $0 == line }.count == 1, "\(shell)")
    }

    /// Issue #44: an interrupted picker gives the terminal back and exits as
    /// an interrupted program does, 128 + the signal (Ctrl-C, a key while
    /// the screen is up, counts as SIGINT: 130), and keeps the photos picked.
    @Test("the terminal is restored and the status tells the signal", arguments: [
        ("C-c", "130"), ("SIGTERM", "143"), ("SIGHUP", "129"),
    ])
    func restoredOnInterruption(how: String, status: String) throws {
        guard Self.tmuxAvailable else { return }
        let cli = try CLI()
        let folder = try temporaryDirectory()
        try FileManager.default.copyItem(atPath: CLI.jpegs[1], toPath: folder.appendingPathComponent("cup.jpg").path)
        let session = try TmuxSession(command: "'\(CLI.binary.path)' pick '\(folder.path)'",
                                      environment: ["XDG_STATE_HOME": cli.state.path], folder: cli.workingDirectory)
        try session.waitFor("the photos screen") { $0.contains("cup.jpg") }
        #expect(session.inAlternateScreen)
        try session.keys("Enter")
        try session.waitFor("the pick") { $0.contains("1 photo · add photos") }
        if how == "C-c" {
            try session.keys("C-c")
        } else {
            let pid = try session.tmux(["display-message", "-p", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
            // The pane runs a shell; its child is collage.
            let children = try String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)
            let child = try #require(children.split(separator: " ").first.flatMap { Int32($0) })
            kill(child, how == "SIGTERM" ? SIGTERM : SIGHUP)
        }
        #expect(session.exitStatus() == status, "\(how)")
        #expect(!session.inAlternateScreen)
        #expect(try cli.count() == 1, "the pick made before is kept")
    }

    /// A folder and a photo whose names are not UTF-8 (Latin-1 "é"): the
    /// picker once decoded names as UTF-8, so such a photo failed the content
    /// check under its U+FFFD name and vanished, and such a folder could not
    /// be opened. Now both are listed, the photo previewed and added by its
    /// exact bytes, and the collage saved from it.
    @Test func namesThatAreNotUTF8AreListedPreviewedAndAddedByteForByte() throws {
        guard Self.tmuxAvailable else { return }
        let cli = try CLI()
        let photos = try temporaryDirectory()
        let folderBytes = Array(photos.path.utf8) + Array("/d".utf8) + [0xE9] + Array("p".utf8)
        let photoBytes = folderBytes + Array("/caf".utf8) + [0xE9] + Array(".jpg".utf8)
        func cString(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }
        #expect(mkdir(cString(folderBytes), 0o755) == 0)
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: CLI.jpegs[1]))
        let fd = open(cString(photoBytes), O_WRONLY | O_CREAT | O_EXCL, 0o644)
        try #require(fd >= 0)
        _ = jpeg.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)

        let session = try TmuxSession(command: "'\(CLI.binary.path)' pick '\(photos.path)'",
                                      environment: ["XDG_STATE_HOME": cli.state.path], folder: cli.workingDirectory)
        try session.waitFor("the folder") { $0.contains(" d\u{FFFD}p/") }
        try session.keys("Enter")
        let screen = try session.waitFor("the photo and its preview") {
            $0.contains("caf\u{FFFD}.jpg") && $0.contains("▀")
        }
        #expect(screen.contains("/d\u{FFFD}p"), "the folder is open")
        try session.keys("Enter")
        try session.waitFor("the first pick") { $0.contains("1 photo · add photos") }
        try session.keys("Enter")
        try session.waitFor("the second pick") { $0.contains("2 photos · add photos") }

        // Stored by its exact bytes ("bytes", base64, beside the text).
        let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: cli.stateFile)) as? [String: Any]
        let entries = stored?["photos"] as? [[String: Any]] ?? []
        #expect(entries.count == 2)
        #expect(entries.allSatisfy { ($0["bytes"] as? String).flatMap { Data(base64Encoded: $0) } == Data(photoBytes) })
        // status --json keeps them too (issue #14).
        let report = try cli.status()
        #expect((report["pathBytes"] as? [String])?.allSatisfy { Data(base64Encoded: $0) == Data(photoBytes) } == true)
        // And the bytes name the file: the collage is made from it.
        let saved = try cli.run("save", "-o", "out.png")
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(isCompleteImage(cli.workingDirectory.appendingPathComponent("out.png").path))
    }

    /// The collage screen as a person edits it (issue #11): a failed save
    /// says why, x and [ ] change the stored selection, a change made from
    /// another shell appears without a key press, and the photos screen marks
    /// what is already in.
    @Test func editingTheCollageOnScreen() throws {
        guard Self.tmuxAvailable else { return }
        let cli = try CLI()
        let photos = try photosFolder()
        try cli.run("add", photos.appendingPathComponent("a.jpg").path, photos.appendingPathComponent("b.png").path,
                    CLI.jpegs[2])
        try Data("taken".utf8).write(to: photos.appendingPathComponent("taken.jpg"))
        let session = try TmuxSession(command: "'\(CLI.binary.path)'", environment: ["XDG_STATE_HOME": cli.state.path],
                                      folder: photos)
        try session.waitFor("the collage screen") { $0.contains("3. ") && $0.contains("x remove") }

        // ] moves the highlighted (first) photo down; x removes the highlighted one.
        try session.keys("]")
        try session.waitFor("the move") { $0.contains("Moved a.jpg to 2") }
        #expect(try cli.run("status").stdout.contains("  2. \(photos.path)/a.jpg"))
        try session.keys("x")
        try session.waitFor("the removal") { $0.contains("Removed a.jpg") && $0.contains(" 2 photos") }
        #expect(try cli.count() == 2)

        // A save onto an existing file: the reason shows under the prompt.
        try session.keys("s", "C-u")
        try session.type("taken.jpg")
        try session.keys("Enter")
        try session.waitFor("the reason") { $0.contains("taken.jpg already exists") && $0.contains("Save as: taken.jpg") }
        try session.keys("Escape")

        // Another shell adds a photo: the open screen shows it by itself.
        try cli.run("add", CLI.jpegs[3])
        try session.waitFor("the other shell's photo") { $0.contains(" 3 photos") && $0.contains("3. cameraman-grayscale.jpg") }

        // The photos screen marks what is in.
        try session.keys("a")
        // (The collage screen lists b.png too: wait for the photos screen's title.)
        let screen = try session.waitFor("the photos screen") { $0.contains("add photos") && $0.contains("a.jpg") }
        #expect(screen.contains("b.png  ✓"))
        #expect(!screen.contains("a.jpg  ✓"))
        try session.keys("q", "q")
    }

    /// What a person sees: the preview of a photo 301 px wide (once sheared
    /// and grey, issue #11) shows its four coloured quadrants where they are.
    @Test func thePreviewShowsThePhotosColoursWhereTheyBelong() throws {
        guard Self.tmuxAvailable else { return }
        let cli = try CLI()
        let folder = try temporaryDirectory()
        let quadrants: [[UInt8]] = [[230, 30, 30], [30, 200, 40], [40, 60, 220], [240, 220, 30]]
        let (width, height) = (301, 200)
        var samples: [UInt8] = []
        for y in 0..<height { for x in 0..<width { samples.append(UInt8((y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1))) } }
        try Data(PNGFile.encode(width: width, height: height, colourType: 3, samples: samples,
                                palette: quadrants.flatMap { $0 })).write(to: folder.appendingPathComponent("quadrants.png"))
        // NO_COLOR emptied: `swift test` sets it for its children, and a person's terminal has colours.
        let session = try TmuxSession(command: "'\(CLI.binary.path)' pick '\(folder.path)'",
                                      environment: ["XDG_STATE_HOME": cli.state.path, "NO_COLOR": ""],
                                      folder: cli.workingDirectory)
        try session.waitFor("the photo") { $0.contains("quadrants.png") }
        // The picture: the cells right of the list that are not black. It is
        // decoded off the interface thread: wait (up to 10 s) until it shows.
        func lit(_ c: RGBColor) -> Bool {
            let sum: Int = Int(c.red) + Int(c.green) + Int(c.blue)
            return sum > 60
        }
        var rows: [[RGBColor]] = []
        for _ in 0..<200 {
            rows = try session.colouredScreen().components(separatedBy: "\n").map { cellColours($0, width: 100) }
            if rows.count > 10 && lit(rows[10][50]) { break }
            usleep(50_000)
        }
        let pictureRows = rows.indices.filter { $0 >= 2 && lit(rows[$0][50]) }
        let top = try #require(pictureRows.first)
        let bottom = try #require(pictureRows.last)
        let middle = (top + bottom) / 2
        let columns = rows[middle].indices.filter { $0 >= 42 && lit(rows[middle][$0]) }
        let left = try #require(columns.first)
        let right = try #require(columns.last)
        for (index, expected) in quadrants.enumerated() {
            let row = index < 2 ? top + (bottom - top) / 4 : bottom - (bottom - top) / 4
            let column = index % 2 == 0 ? left + (right - left) / 4 : right - (right - left) / 4
            let seen = rows[row][column]
            let red: Int = abs(Int(seen.red) - Int(expected[0]))
            let green: Int = abs(Int(seen.green) - Int(expected[1]))
            let blue: Int = abs(Int(seen.blue) - Int(expected[2]))
            #expect(red + green + blue < 60, "quadrant \(index) at cell (\(column), \(row)) shows \(seen)")
        }
        try session.keys("q", "q")
    }

    /// `l` draws the collage in the next layout (issue #19): the name above
    /// the picture changes, and so does the picture.
    @Test func lChangesTheLayoutAndThePictureOnScreen() throws {
        guard Self.tmuxAvailable else { return }
        let cli = try CLI()
        try cli.run(["add"] + CLI.jpegs + [CLI.png])
        // NO_COLOR emptied: `swift test` sets it for its children; the colours are what changes.
        let session = try TmuxSession(command: "'\(CLI.binary.path)'",
                                      environment: ["XDG_STATE_HOME": cli.state.path, "NO_COLOR": ""],
                                      folder: cli.workingDirectory)
        let auto = try drawnPicture(session, layout: "auto layout")
        try session.keys("l")
        let grid = try drawnPicture(session, layout: "grid layout")
        #expect(!grid.plain.contains("auto layout"))
        #expect(grid.coloured != auto.coloured, "the picture is drawn again in the grid layout")
        try session.keys("l")
        let rows = try drawnPicture(session, layout: "rows layout")
        #expect(rows.coloured != grid.coloured)
        try session.keys("q")
        #expect(session.exitStatus() == "0")
    }

    /// The screen once the picture in `layout` is drawn and still: the layout's
    /// name shows, the picture is not loading ("…"), and two captures agree.
    func drawnPicture(_ session: TmuxSession, layout: String) throws -> (plain: String, coloured: String) {
        var last = ""
        for _ in 0..<200 {
            let plain = try session.screen()
            let lines = plain.components(separatedBy: "\n")
            let drawn = plain.contains(layout) && !plain.contains("…") && lines.count > 6
                && lines[6].unicodeScalars.contains { (0x2580...0x259F).contains($0.value) }
            if drawn {
                let coloured = try session.colouredScreen()
                if coloured == last { return (plain, coloured) }
                last = coloured
            }
            usleep(50_000)
        }
        Issue.record("timed out waiting for the picture in the \(layout); the screen shows:\n\(try session.screen())")
        return ("", "")
    }

    /// `c` asks first (issue #19): another key keeps the photos, and is not
    /// acted on; `y` clears.
    @Test func clearAsksFirst() throws {
        guard Self.tmuxAvailable else { return }
        let cli = try CLI()
        try cli.run("add", CLI.jpegs[0], CLI.jpegs[1])
        let session = try TmuxSession(command: "'\(CLI.binary.path)'", environment: ["XDG_STATE_HOME": cli.state.path],
                                      folder: cli.workingDirectory)
        try session.waitFor("the collage screen") { $0.contains("2. coffee-cup.jpg") && $0.contains("c clear") }
        try session.keys("c")
        try session.waitFor("the question") { $0.contains("Clear all 2 photos? Press c or y to clear") }
        #expect(try cli.count() == 2)
        try session.keys("x")
        let kept = try session.waitFor("the answer") { $0.contains("Kept 2 photos: nothing cleared") }
        #expect(kept.contains("1. chelsea-the-cat.jpg") && kept.contains("2. coffee-cup.jpg"), "x removed nothing")
        #expect(try cli.count() == 2)
        try session.keys("c")
        try session.waitFor("the question again") { $0.contains("Clear all 2 photos?") }
        try session.keys("y")
        try session.waitFor("the clear") { $0.contains("Cleared") && $0.contains("No photos yet") }
        #expect(try cli.count() == 0)
        try session.keys("q")
    }

    /// `e` edits the highlighted photo's caption (issue #20): typed on the
    /// collage screen, stored as `collage caption` stores it, shown beside it.
    @Test func eEditsACaptionOnScreen() throws {
        guard Self.tmuxAvailable else { return }
        let cli = try CLI()
        try cli.run("add", CLI.jpegs[0], CLI.jpegs[1])
        let session = try TmuxSession(command: "'\(CLI.binary.path)'", environment: ["XDG_STATE_HOME": cli.state.path],
                                      folder: cli.workingDirectory)
        try session.waitFor("the collage screen") { $0.contains("2. coffee-cup.jpg") }
        try session.keys("j", "e")
        try session.waitFor("the caption prompt") { $0.contains("Caption for photo 2:") }
        try session.type("Morning coffee")
        try session.keys("Enter")
        let shown = try session.waitFor("the caption beside the photo") { $0.contains("2. coffee-cup.jpg  “Morning coffee”") }
        #expect(shown.contains("is captioned \"Morning coffee\""))
        #expect((try cli.status()["captions"] as? [Any])?.map { $0 as? String } == [nil, "Morning coffee"])
        try session.keys("q")
    }

    /// Columns as a terminal draws them, for the characters of the caption
    /// below: CJK ideographs and kana take two, the rest one.
    static func columns(_ text: Substring) -> Int {
        text.unicodeScalars.reduce(0) { $0 + ((0x3000...0x9FFF).contains($1.value) ? 2 : 1) }
    }

    /// `t` sets the title (issue #31): typed on the collage screen, shown
    /// above the picture and drawn in it, used by the save; a caption of
    /// wide characters on the highlighted row is cut at the list's edge in
    /// columns, so the picture beside it stays in place.
    @Test func tSetsTheTitleAndAWideCaptionStaysInItsColumns() throws {
        guard Self.tmuxAvailable else { return }
        let cli = try CLI()
        try cli.run("add", CLI.jpegs[0], CLI.jpegs[1])
        try cli.run("caption", "2", "東京の夏の思い出、二〇二六年の旅、京都と大阪")
        let session = try TmuxSession(command: "'\(CLI.binary.path)'", environment: ["XDG_STATE_HOME": cli.state.path],
                                      folder: cli.workingDirectory, columns: 120, rows: 30)
        try session.waitFor("the collage screen") { $0.contains("2. coffee-cup.jpg") && $0.contains("t title") }
        try session.keys("j")
        let highlighted = try session.waitFor("the highlight on photo 2") { _ in
            let coloured = (try? session.colouredScreen()) ?? ""
            return coloured.split(separator: "\n").contains { $0.contains("2. coffee-cup.jpg") && $0.contains("\u{1B}[7m") }
        }
        // The list takes columns 1-48: "2. coffee-cup.jpg  “" 1-20, 13
        // ideographs 21-46 (another would straddle the cut), "…" 47.
        let row = try #require(highlighted.split(separator: "\n").first { $0.contains("2. coffee-cup.jpg") })
        let cut = try #require(row.range(of: "…"))
        #expect(row[..<cut.lowerBound].hasSuffix("“東京の夏の思い出、二〇二六"), "\(row)")
        #expect(Self.columns(row[..<cut.upperBound]) == 48, "\(row)")

        try session.keys("t")
        try session.waitFor("the title prompt") { $0.contains("Title: ▏") }
        try session.type("Summer in Kyoto · 2026")
        try session.keys("Enter")
        try session.waitFor("the title above the picture") { $0.contains("layout  1920x1080  “Summer in Kyoto · 2026”") }
        try session.save(as: "titled.png", in: cli.workingDirectory)
        // Saved with its title: a white band across the top with black ink in it, the photos below.
        let image = try LayoutEndToEndTests().pixels(cli.workingDirectory.appendingPathComponent("titled.png").path)
        #expect(image.width == 1920 && image.height == 1080)
        let band = (0..<120).prefix { y in (0..<image.width).allSatisfy { x in
            let at = (y * image.width + x) * 3
            let (r, g, b) = (image.rgb[at], image.rgb[at + 1], image.rgb[at + 2])
            return r == g && g == b  // white, black or the grey between (the text's edges)
        } }.count
        #expect(band >= 80 && band < 120, "a band of \(band) rows")
        let ink = (0..<band).reduce(0) { sum, y in sum + (0..<image.width).filter { image.rgb[(y * image.width + $0) * 3] < 128 }.count }
        #expect(ink > 1000, "\(ink) dark pixels in the band")
        try session.keys("q")
    }

    @Test func withoutATerminalPickRefusesWithAHint() throws {
        let cli = try CLI()
        let output = try cli.run("pick")
        #expect(output.status != 0)
        #expect(output.stderr.contains("needs a terminal"))
        #expect(output.stderr.contains("collage add"))
    }
}
