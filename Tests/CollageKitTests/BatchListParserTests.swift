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

    let modes = "write '#layout MODE', MODE grid, auto, rows or columns, e.g. '#layout rows'"

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
        for comment in ["#layouts are nice", "#layoutx", "#layout-rows", "#Layout rows", "# layout rows", "#layout\u{A0}rows"] {
            let groups = parse("\(comment)\na.jpg\nb.jpg")
            #expect(groups == [BatchGroup(number: 1, firstLine: 2, lastLine: 3,
                                          photos: [Photo(path: "/lists/a.jpg"), Photo(path: "/lists/b.jpg")])],
                    "\(comment)")
        }
    }
}
