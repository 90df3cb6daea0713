import Foundation
import Testing
import CollageTestSupport
@testable import CollageKit

@Suite struct BatchListParserTests {
    func parse(_ text: String, base: String = "/lists") -> [BatchGroup] {
        var parser = BatchListParser(baseDirectory: base)
        var groups: [BatchGroup] = []
        // Split as the reader does, on "\n" bytes ("\r\n" is one Character in Swift).
        for (index, line) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            if let group = parser.consume(String(decoding: line, as: UTF8.self), lineNumber: index + 1) { groups.append(group) }
        }
        if let last = parser.finish() { groups.append(last) }
        return groups
    }

    @Test func groupsCommentsAndRunsOfBlankLines() {
        let groups = parse("""
            # holiday
            a.jpg
            b.jpg


            # second, after two blank lines

            c.jpg
            # a comment inside a group
            d.png
            """)
        #expect(groups == [
            BatchGroup(number: 1, firstLine: 2, lastLine: 3, photos: [Photo(path: "/lists/a.jpg"), Photo(path: "/lists/b.jpg")]),
            BatchGroup(number: 2, firstLine: 8, lastLine: 10, photos: [Photo(path: "/lists/c.jpg"), Photo(path: "/lists/d.png")]),
        ])
    }

    @Test func theLastGroupNeedsNoTrailingBlankLine() {
        #expect(parse("a.jpg\nb.jpg").map(\.photos.count) == [2])
        #expect(parse("a.jpg\nb.jpg\n").map(\.photos.count) == [2])
        #expect(parse("\n\n# nothing\n\n").isEmpty)
    }

    @Test func crlfWhitespaceSpacesAndAbsolutePaths() {
        let groups = parse("  my photo.jpg \r\n\t/abs/other one.png\r\n\r\nsub/x.jpg\r\n", base: "/base dir")
        #expect(groups.map(\.photos) == [
            [Photo(path: "/base dir/my photo.jpg"), Photo(path: "/abs/other one.png")],
            [Photo(path: "/base dir/sub/x.jpg")],
        ])
        #expect(groups.map(\.lineRange) == ["lines 1-2", "line 4"])
    }

    @Test func readsAStreamInChunksAcrossBoundaries() throws {
        // Long enough to span several 64 KiB reads, with CRLF line ends.
        var text = ""
        for group in 0..<3000 {
            text += "folder/photo-\(group)-a.jpg\r\nfolder/photo-\(group)-b.jpg\r\n\r\n"
        }
        let file = try temporaryDirectory().appendingPathComponent("list.txt")
        try Data(text.utf8).write(to: file)
        let fd = open(file.path, O_RDONLY)
        defer { close(fd) }
        var reader = BatchListReader(fileDescriptor: fd, baseDirectory: "/b")
        var count = 0
        while let group = reader.next() {
            count += 1
            #expect(group.photos == [Photo(path: "/b/folder/photo-\(count - 1)-a.jpg"), Photo(path: "/b/folder/photo-\(count - 1)-b.jpg")])
        }
        #expect(count == 3000)
    }

    /// Lines as an editor on another system may save them: a byte-order mark
    /// first, CRLF line ends; a mark anywhere else is part of its line.
    @Test func aByteOrderMarkIsSkippedAndCRLFAccepted() throws {
        let file = try temporaryDirectory().appendingPathComponent("list.txt")
        try Data([0xEF, 0xBB, 0xBF] + Array("a.jpg\r\n#focus 0.5 0.2 b.jpg\r\n\r\n\u{FEFF}c.jpg\r\n".utf8)).write(to: file)
        let fd = open(file.path, O_RDONLY)
        defer { close(fd) }
        let groups = Array(IteratorSequence(BatchListReader(fileDescriptor: fd, baseDirectory: "/b")))
        #expect(groups.map(\.photos) == [
            [Photo(path: "/b/a.jpg"), Photo(path: "/b/b.jpg").focused(try PhotoFocus(x: 0.5, y: 0.2))],
            [Photo(path: "/b/\u{FEFF}c.jpg")],
        ])
    }

    /// A photo given as the list is refused as a photo, by its bytes, not
    /// read as lines of binary.
    @Test func aPhotoIsNotAList() throws {
        let folder = try temporaryDirectory()
        let photo = folder.appendingPathComponent("cat.list")
        try Data([0x89] + Array("PNG\r\n".utf8) + [0x1A, 0x0A] + [UInt8](repeating: 0, count: 40)).write(to: photo)
        #expect(throws: CollageFailure(.folder, path: photo.path,
                                       message: "\(photo.path) is a photo (PNG), not a list: give a text file with one photo path per line, or add photos to the collage with `collage add`")) {
            try BatchListSource(argument: "cat.list", workingDirectory: folder.path)
        }
        let text = folder.appendingPathComponent("list.txt")
        try Data("a.jpg\n".utf8).write(to: text)
        #expect(try BatchListSource(argument: "list.txt", workingDirectory: folder.path).countGroups() == 1)
    }
}

/// `#layout MODE` lines: the layout of the collage they are a line of.
@Suite struct BatchListLayoutTests {
    /// Parsed as the reader does: split on "\n" bytes, each line fed as bytes.
    func parse(_ bytes: [UInt8]) -> [BatchGroup] {
        var parser = BatchListParser(baseDirectory: "/lists")
        var groups: [BatchGroup] = []
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            if let group = parser.consume(bytes: Array(line), lineNumber: index + 1) { groups.append(group) }
        }
        if let last = parser.finish() { groups.append(last) }
        return groups
    }

    func parse(_ text: String) -> [BatchGroup] { parse(Array(text.utf8)) }

    let modes = "write '#layout MODE', MODE auto, grid, rows or columns, e.g. '#layout rows'"

    @Test func aLayoutLineSetsTheLayoutOfItsCollageOnly() {
        let groups = parse("""
            #layout rows
            a.jpg
            b.jpg

            c.jpg
            d.jpg
            """)
        #expect(groups == [
            BatchGroup(number: 1, firstLine: 1, lastLine: 3, photos: [Photo(path: "/lists/a.jpg"), Photo(path: "/lists/b.jpg")],
                       layout: .rows),
            BatchGroup(number: 2, firstLine: 5, lastLine: 6, photos: [Photo(path: "/lists/c.jpg"), Photo(path: "/lists/d.jpg")]),
        ])
    }

    @Test func anyCaseTabsCommentsAndFocusLinesAroundIt() {
        let groups = parse("# holiday\n#layout\tColumns  \n# tall ones\n#focus 0.5 0.2 a.jpg\nb.jpg\n")
        #expect(groups.count == 1)
        #expect(groups.first?.layout == .columns)
        #expect(groups.first?.problem == nil)
        #expect(groups.first?.lineRange == "lines 2-5", "the #layout line is part of its collage, comments are not")
        #expect(groups.first?.photos.map(\.fileName) == ["a.jpg", "b.jpg"])
    }

    @Test func crlfAndNonUTF8Lines() {
        let groups = parse(Array("#layout auto\r\n".utf8) + [0x63, 0xE9, 0x2E, 0x6A, 0x70, 0x67, 0x0D, 0x0A] // "c\xE9.jpg\r\n"
            + Array("d.jpg\r\n\r\n#layout ".utf8) + [0xFF, 0x0D, 0x0A] + Array("e.jpg\r\n".utf8))
        #expect(groups.count == 2)
        #expect(groups[0].layout == .auto)
        #expect(groups[0].problem == nil)
        #expect(groups[0].photos.first?.fileSystemPath == Array("/lists/c".utf8) + [0xE9] + Array(".jpg".utf8))
        #expect(groups[1].problem == "line 5: '\u{FFFD}' is not a layout: \(modes)")
        #expect(groups[1].lineRange == "lines 5-6")
    }

    @Test func aBlankLineAfterItLeavesItWithoutAPhoto() {
        // Not a setting of the whole list: a problem of its own collage,
        // which the next one's number follows.
        let groups = parse("#layout rows\n\na.jpg\nb.jpg\n\n#layout grid")
        #expect(groups.map(\.number) == [1, 2, 3])
        #expect(groups[0].problem == "line 1: no photo follows this #layout line in its collage: write it right above the collage's first photo, with no blank line between (--layout sets every collage's layout)")
        #expect(groups[0].photos.isEmpty && groups[0].lineRange == "line 1")
        #expect(groups[1] == BatchGroup(number: 2, firstLine: 3, lastLine: 4,
                                        photos: [Photo(path: "/lists/a.jpg"), Photo(path: "/lists/b.jpg")]))
        #expect(groups[2].problem?.hasPrefix("line 6: no photo follows this #layout line") == true, "nor the end of the list")
        // The problem named is the one on the earliest line, though found last.
        #expect(parse("#layout rows\n#layout grid\n\na.jpg").first?.problem?.hasPrefix("line 1: no photo follows") == true)
        #expect(parse("#layout diagonal\n#layout grid\n").first?.problem == "line 1: 'diagonal' is not a layout: \(modes)")
    }

    @Test func belowTheFirstPhotoItIsAProblemNamingTheLine() {
        // Most likely a missing blank line: applying it to a, b, c and d
        // would silently make one wrong collage.
        let groups = parse("a.jpg\nb.jpg\n#layout rows\nc.jpg\nd.jpg")
        #expect(groups.count == 1)
        #expect(groups[0].problem == "line 3: a #layout line goes above its collage's first photo (line 1); to start another collage, leave a blank line above it")
        #expect(groups[0].lineRange == "lines 1-5")
        // A #focus line that does not parse still meant a photo.
        #expect(parse("#focus 2 2 a.jpg\n#layout rows\nb.jpg").first?.problem?.hasPrefix("line 1: write '#focus X Y PATH'") == true)
        #expect(parse("#layout rows\n#focus 2 2 a.jpg\nb.jpg").first?.problem?.hasPrefix("line 2: write '#focus X Y PATH'") == true)
    }

    @Test func aSecondLayoutLineIsAProblemEvenIfItAgrees() {
        let groups = parse("#layout rows\n#layout rows\na.jpg\nb.jpg")
        #expect(groups.first?.problem == "line 2: this collage already has a #layout line (line 1)")
    }

    @Test func anUnknownOrMissingModeNamesTheLineAndTheModes() {
        #expect(parse("a.jpg\n\n#layout diagonal\nb.jpg\nc.jpg").last?.problem == "line 3: 'diagonal' is not a layout: \(modes)")
        #expect(parse("#layout rows # tall\na.jpg").first?.problem == "line 1: 'rows # tall' is not a layout: \(modes)")
        #expect(parse("#layout\na.jpg").first?.problem == "line 1: the layout is missing: \(modes)")
        #expect(parse("#layout   \r\na.jpg").first?.problem == "line 1: the layout is missing: \(modes)")
        let long = String(repeating: "x", count: 100)
        #expect(parse("#layout \(long)\na.jpg").first?.problem
            == "line 1: '\(String(repeating: "x", count: 40))...' is not a layout: \(modes)")
    }

    @Test func wordsThatOnlyStartLikeItAreComments() {
        // Issue #44: one edit from the word, or the word in another case, is
        // warned of (a typo that would silently do nothing); the rest is quiet.
        let warned = ["#layouts are nice": "#layouts", "#layoutx": "#layoutx", "#Layout rows": "#Layout"]
        for comment in ["#layouts are nice", "#layoutx", "#layout-rows", "#Layout rows", "# layout rows", "#layout\u{A0}rows"] {
            let groups = parse("\(comment)\na.jpg\nb.jpg")
            let warnings = warned[comment].map { ["line 1: '\($0)' is read as a comment: did you mean #layout?"] } ?? []
            #expect(groups == [BatchGroup(number: 1, firstLine: 2, lastLine: 3,
                                          photos: [Photo(path: "/lists/a.jpg"), Photo(path: "/lists/b.jpg")], warnings: warnings)],
                    "\(comment)")
        }
    }
}

/// `#title TEXT` lines: the title of the collage they are a line of, placed
/// as `#layout` lines are.
@Suite struct BatchListTitleTests {
    let lists = BatchListLayoutTests()
    func parse(_ text: String) -> [BatchGroup] { lists.parse(text) }

    func title(_ text: String) throws -> CollageTitle { try CollageTitle(text) }

    @Test func aTitleLineTitlesItsCollageOnly() throws {
        let groups = parse("#title   Summer at the \"sea\", 2026  \na.jpg\nb.jpg\n\nc.jpg\nd.jpg")
        #expect(groups == [
            BatchGroup(number: 1, firstLine: 1, lastLine: 3, photos: [Photo(path: "/lists/a.jpg"), Photo(path: "/lists/b.jpg")],
                       title: try title("Summer at the \"sea\", 2026")),
            BatchGroup(number: 2, firstLine: 5, lastLine: 6, photos: [Photo(path: "/lists/c.jpg"), Photo(path: "/lists/d.jpg")]),
        ])
        // The rest of the line, as --title takes it: a tab inside is a space.
        #expect(parse("#title\tTabs\tinside\r\na.jpg").first?.title?.text == "Tabs inside")
    }

    @Test func withALayoutCommentsAndPhotoLinesInEitherOrder() throws {
        for list in ["#layout rows\n# holiday\n#title Trip\n#focus 0.5 0.2 a.jpg\nb.jpg",
                     "#title Trip\n#layout rows\n# holiday\n#caption \"Me\" a.jpg\nb.jpg"] {
            let group = try #require(parse(list).first)
            #expect(group.title == (try title("Trip")) && group.layout == .rows, "\(list)")
            #expect(group.problem == nil && group.lineRange == "lines 1-5", "\(list)")
            #expect(group.photos.map(\.fileName) == ["a.jpg", "b.jpg"])
        }
    }

    @Test func outOfPlaceOrSecondTitleLinesAreProblemsNamingTheLine() {
        #expect(parse("a.jpg\n#title Trip\nb.jpg").first?.problem
            == "line 2: a #title line goes above its collage's first photo (line 1); to start another collage, leave a blank line above it")
        #expect(parse("#title Trip\n#layout rows\n#title Trip\na.jpg").first?.problem
            == "line 3: this collage already has a #title line (line 1)")
        // A #caption line that does not parse still meant a photo.
        #expect(parse("#caption \"\" a.jpg\n#title Trip\nb.jpg").first?.problem?.hasPrefix("line 1: write '#caption") == true)
        #expect(parse("#caption \"Me\" a.jpg\n#title Trip\nb.jpg").first?.problem?.hasPrefix("line 2: a #title line goes above") == true)
        // A problem leaves the group without the title.
        #expect(parse("a.jpg\n#title Trip\nb.jpg").first?.title == nil)
    }

    @Test func aBlankLineAfterItLeavesItWithoutAPhoto() {
        let groups = parse("#title Trip\n\na.jpg\nb.jpg\n\n#layout rows\n#title Trip")
        #expect(groups.map(\.number) == [1, 2, 3])
        #expect(groups[0].problem == "line 1: no photo follows this #title line in its collage: write it right above the collage's first photo, with no blank line between (--title sets every collage's title)")
        #expect(groups[1].problem == nil && groups[1].title == nil)
        #expect(groups[2].problem?.hasPrefix("line 6: no photo follows this #layout line") == true, "the earliest line is named")
        // Unless the earliest line is wrong of itself.
        #expect(parse("#title\n#layout rows\n").first?.problem?.hasPrefix("line 1: the title is missing") == true)
        #expect(parse("#layout rows\n#title\n").first?.problem?.hasPrefix("line 1: no photo follows this #layout line") == true)
    }

    @Test func aMissingEmptyOrTooLongTitleNamesItsLine() {
        let missing = "the title is missing: write '#title TEXT', e.g. '#title Summer 2026'"
        #expect(parse("#title\na.jpg").first?.problem == "line 1: \(missing)")
        #expect(parse("a.jpg\n\n#title   \r\nb.jpg").last?.problem == "line 3: \(missing)")
        // Only characters that are never drawn: empty once they are dropped.
        #expect(parse("#title \u{07}\u{1B}\na.jpg").first?.problem
            == "line 1: the title is empty: give some text, or leave out the #title line")
        let long = String(repeating: "é", count: 1001)
        #expect(parse("#title \(long)\na.jpg").first?.problem == "line 1: the title has 1001 characters, over the limit of 1000")
        #expect(parse("#title \(String(repeating: "é", count: 1000))\na.jpg").first?.problem == nil)
    }

    @Test func aTitleThatIsNotUTF8IsAProblemNotMojibake() {
        let groups = lists.parse(Array("#title Caf".utf8) + [0xE9] + Array("\nc".utf8) + [0xE9] + Array(".jpg\n".utf8))
        #expect(groups.first?.problem == "line 1: the title is not valid UTF-8: save the list as UTF-8")
        #expect(groups.first?.title == nil)
        #expect(groups.first?.photos.first?.fileSystemPath == Array("/lists/c".utf8) + [0xE9] + Array(".jpg".utf8),
                "a file name is bytes: it need not be UTF-8")
    }

    @Test func wordsThatOnlyStartLikeItAreComments() {
        let warned = ["#titles are nice": "#titles", "#titlex": "#titlex", "#Title Trip": "#Title"]
        for comment in ["#titles are nice", "#titlex", "#title-Trip", "#Title Trip", "# title Trip", "#title\u{A0}Trip"] {
            let warnings = warned[comment].map { ["line 1: '\($0)' is read as a comment: did you mean #title?"] } ?? []
            #expect(parse("\(comment)\na.jpg\nb.jpg") == [BatchGroup(number: 1, firstLine: 2, lastLine: 3,
                                                                     photos: [Photo(path: "/lists/a.jpg"), Photo(path: "/lists/b.jpg")],
                                                                     warnings: warnings)],
                    "\(comment)")
        }
    }

    /// Issue #44: `#titel Typo` was silently a comment. A swapped, missing,
    /// extra or wrong letter, or another case, is warned of with its line
    /// and the directive meant; the group is made all the same; a comment
    /// two edits away, or of other words, says nothing.
    @Test func aMistypedDirectiveIsWarnedOfWithTheOneMeant() {
        let groups = parse("""
            # holiday photos, by day
            #titel Typo
            a.jpg
            #tite
            b.jpg

            #sze 1080x1920
            #Focus 0.5 0.5 c.jpg
            #capiton "x" c.jpg
            #holiday
            #titular
            c.jpg
            d.jpg
            """)
        #expect(groups.count == 2)
        #expect(groups.first?.warnings == ["line 2: '#titel' is read as a comment: did you mean #title?",
                                           "line 4: '#tite' is read as a comment: did you mean #title?"])
        #expect(groups.first?.photos.count == 2 && groups.first?.title == nil && groups.first?.problem == nil)
        #expect(groups.last?.warnings == ["line 7: '#sze' is read as a comment: did you mean #size?",
                                          "line 8: '#Focus' is read as a comment: did you mean #focus?",
                                          "line 9: '#capiton' is read as a comment: did you mean #caption?"])
        #expect(groups.last?.photos.count == 2 && groups.last?.size == nil)
        // A mistyped line before a blank line is told with the collage after it.
        #expect(parse("#Title x\n\na.jpg\nb.jpg").first?.warnings == ["line 1: '#Title' is read as a comment: did you mean #title?"])
    }
}

/// `#caption "TEXT" PATH` lines: a photo with its caption.
@Suite struct BatchListCaptionTests {
    let lists = BatchListLayoutTests()
    func parse(_ text: String) -> [BatchGroup] { lists.parse(text) }
    func problem(_ line: String) -> String? { parse("a.jpg\n\(line)").first?.problem }

    let form = #"write '#caption "TEXT" PATH' or '#caption "TEXT" #focus X Y PATH', \" for a quote and \\ for a backslash in TEXT, e.g. '#caption "Grandma, 1962" grandma.jpg'"#
    let focusForm = "write '#focus X Y PATH', X and Y fractions from 0 to 1, e.g. '#focus 0.5 0.2 beach.jpg'"

    @Test func aCaptionLineIsItsPhotoWithItsCaptionAndPathsKeepTheirSpaces() {
        let groups = parse("""
            #caption "Grandma, 1962"   grandma at 90 (2019).jpg
            beach.jpg
            #caption  "  Me  "\tsub/"best" shot.jpg
            """)
        #expect(groups.count == 1 && groups[0].problem == nil && groups[0].lineRange == "lines 1-3")
        #expect(groups[0].photos == [
            Photo(path: "/lists/grandma at 90 (2019).jpg").captioned("Grandma, 1962"),
            Photo(path: "/lists/beach.jpg"),
            Photo(path: "/lists/sub/\"best\" shot.jpg").captioned("Me"),
        ])
    }

    @Test func quotesAndBackslashesAreEscaped() {
        let photos = parse(#"#caption "She said \"cheese\" \\ 50\\50" a.jpg"#).first?.photos
        #expect(photos == [Photo(path: "/lists/a.jpg").captioned(#"She said "cheese" \ 50\50"#)])
        #expect(parse(#"#caption "\"" b.jpg"#).first?.photos.first?.caption == "\"")
        #expect(problem(#"#caption "C:\photos" a.jpg"#) == "line 2: \(form) (a backslash in the caption is written \\\\)")
        #expect(problem(#"#caption "ends in \" a.jpg"#) == "line 2: \(form) (the caption's closing quote is missing)")
    }

    @Test func withAFocusAfterTheCaption() throws {
        let group = try #require(parse("#caption \"Up there\" #focus 0.5 20% my kite.jpg\nb.jpg").first)
        #expect(group.problem == nil)
        #expect(group.photos.first == Photo(path: "/lists/my kite.jpg").captioned("Up there").focused(try PhotoFocus(x: 0.5, y: 0.2)))
        // #focus's PATH is the rest of its line, as it always was: there a
        // caption is part of the file name.
        let named = try #require(parse("#focus 0.5 0.5 #caption \"x\" a.jpg\nb.jpg").first?.photos.first)
        #expect(named.path == "/lists/#caption \"x\" a.jpg" && named.caption == nil && named.focus == .centre)
        // A focus that does not parse says the focus's form.
        #expect(problem("#caption \"x\" #focus 2 2 a.jpg")
            == "line 2: \(focusForm) (a focus is two fractions from 0 to 1 (0 0 is the top left, 0.5 0.5 the middle), not 2.0 2.0)")
        #expect(problem("#caption \"x\" #focus") == "line 2: \(focusForm) (X and Y are missing)")
        #expect(problem("#caption \"x\" #focus 0.5 0.5") == "line 2: \(focusForm) (no photo after X and Y)")
        // After the caption, # starts the focus and nothing else.
        #expect(problem("#caption \"x\" #1 best.jpg")
            == "line 2: \(form) (after the caption, only '#focus X Y PATH' starts with #: write a path that does as ./#name)")
        #expect(parse("#caption \"x\" ./#1 best.jpg").first?.photos.first?.path == "/lists/#1 best.jpg")
    }

    @Test func everyMalformedCaptionLineIsAProblemNamingItsLineAndTheForm() {
        let cases: [(String, String)] = [
            ("#caption", "the caption and the photo are missing"),
            ("#caption   ", "the caption and the photo are missing"),
            ("#caption Grandma a.jpg", "the caption goes in double quotes"),
            ("#caption \"Grandma a.jpg", "the caption's closing quote is missing"),
            ("#caption \"Grandma\"a.jpg", "leave a space between the caption's closing quote and the photo"),
            ("#caption \"\" a.jpg", "the caption is empty: give some text, or leave out #caption"),
            ("#caption \"   \" a.jpg", "the caption is empty: give some text, or leave out #caption"),
            ("#caption \"\(String(repeating: "ö", count: 201))\" a.jpg", "the caption has 201 characters: the limit is 200"),
            ("#caption \"Grandma\"", "no photo after the caption"),
            ("#caption \"Grandma\"   ", "no photo after the caption"),
        ]
        for (line, why) in cases {
            let groups = parse("a.jpg\n\(line)\nb.jpg")
            #expect(groups.count == 1 && groups[0].problem == "line 2: \(form) (\(why))", "\(line)")
            #expect(groups[0].lineRange == "lines 1-3" && groups[0].photos.count == 2, "the line meant a photo: \(line)")
        }
        #expect(problem("#caption \"\(String(repeating: "ö", count: 200))\" a.jpg") == nil)
        // The earliest wrong line is named.
        #expect(parse("#caption \"\" a.jpg\n#focus 2 2 b.jpg").first?.problem?.hasPrefix("line 1: \(form)") == true)
        #expect(parse("#focus 2 2 b.jpg\n#caption \"\" a.jpg").first?.problem?.hasPrefix("line 1: \(focusForm)") == true)
    }

    @Test func aCaptionThatIsNotUTF8IsAProblemAPathNeedNotBe() {
        let caf = Array("Caf".utf8)
        let good = lists.parse(Array("#caption \"Café\" c".utf8) + [0xE9] + Array(".jpg\r\n".utf8))
        #expect(good.first?.problem == nil)
        #expect(good.first?.photos.first?.caption == "Café")
        #expect(good.first?.photos.first?.fileSystemPath == Array("/lists/c".utf8) + [0xE9] + Array(".jpg".utf8))
        let bad = lists.parse(Array("a.jpg\n#caption \"".utf8) + caf + [0xE9] + Array("\" c.jpg".utf8))
        #expect(bad.first?.problem == "line 2: \(form) (the caption is not valid UTF-8: save the list as UTF-8)")
    }

    @Test func wordsThatOnlyStartLikeItAreComments() {
        let warned = ["#captions \"x\" a.jpg": "#captions", "#Caption \"x\" a.jpg": "#Caption"]
        for comment in ["#captions \"x\" a.jpg", "#captioned", "#caption-\"x\" a.jpg", "#Caption \"x\" a.jpg", "#caption\u{A0}\"x\" a.jpg"] {
            let warnings = warned[comment].map { ["line 1: '\($0)' is read as a comment: did you mean #caption?"] } ?? []
            #expect(parse("\(comment)\nb.jpg") == [BatchGroup(number: 1, firstLine: 2, lastLine: 2, photos: [Photo(path: "/lists/b.jpg")],
                                                               warnings: warnings)],
                    "\(comment)")
        }
    }
}

/// `#size SIZE` lines: the size of the collage they are a line of, as
/// `--size` takes it, placed as `#layout` lines are.
@Suite struct BatchListSizeTests {
    let lists = BatchListLayoutTests()
    func parse(_ text: String) -> [BatchGroup] { lists.parse(text) }

    @Test func aSizeLineSizesItsCollageOnlyInPixelsOrOnPaper() throws {
        let groups = parse("#size A4\na.jpg\nb.jpg\n\nc.jpg\nd.jpg\n\n#layout rows\n#size  1080x\ne.jpg\nf.jpg")
        #expect(groups == [
            BatchGroup(number: 1, firstLine: 1, lastLine: 3, photos: [Photo(path: "/lists/a.jpg"), Photo(path: "/lists/b.jpg")],
                       size: ListedSize(try SizeRequest(parsing: "A4"), line: 1)),
            BatchGroup(number: 2, firstLine: 5, lastLine: 6, photos: [Photo(path: "/lists/c.jpg"), Photo(path: "/lists/d.jpg")]),
            BatchGroup(number: 3, firstLine: 8, lastLine: 11, photos: [Photo(path: "/lists/e.jpg"), Photo(path: "/lists/f.jpg")],
                       layout: .rows, size: ListedSize(.pixels(try RequestedSize(width: 1080, height: nil)), line: 9)),
        ])
        #expect(parse("#size 6x4IN\r\na.jpg").first?.size?.request.description == "6x4in")
    }

    @Test func aWrongMissingOutOfPlaceOrSecondSizeLineIsAProblemNamingTheLine() {
        #expect(parse("#size A7\na.jpg").first?.problem
            == "line 1: size 'A7' is not WIDTHxHEIGHT (e.g. 1920x1080), WIDTHx, xHEIGHT or a size on paper (A4, A4-landscape, 6x4in, 15x10cm)")
        #expect(parse("#size 0.0001x4mm\na.jpg").first?.problem == "line 1: size '0.0001x4mm' has a side of zero")
        #expect(parse("#size\na.jpg").first?.problem
            == "line 1: the size is missing: write '#size SIZE', SIZE in pixels or on paper, e.g. '#size A4', '#size 6x4in' or '#size 1080x1920'")
        let long = String(repeating: "9", count: 60)
        #expect(parse("#size \(long)\na.jpg").first?.problem
            == "line 1: '\(long.prefix(40))...' is not a size: write '#size SIZE', SIZE in pixels or on paper, e.g. '#size A4', '#size 6x4in' or '#size 1080x1920'")
        #expect(parse("a.jpg\n#size A4\nb.jpg").first?.problem
            == "line 2: a #size line goes above its collage's first photo (line 1); to start another collage, leave a blank line above it")
        #expect(parse("#size A4\n#size A4\na.jpg").first?.problem == "line 2: this collage already has a #size line (line 1)")
        #expect(parse("#size A4\n\na.jpg\nb.jpg").first?.problem
            == "line 1: no photo follows this #size line in its collage: write it right above the collage's first photo, with no blank line between (--size sets every collage's size)")
        #expect(parse("#sizes A4\n#size-x\na.jpg").first == BatchGroup(number: 1, firstLine: 3, lastLine: 3, photos: [Photo(path: "/lists/a.jpg")],
                                                                         warnings: ["line 1: '#sizes' is read as a comment: did you mean #size?"]))
    }
}
