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
