import CollageTestSupport
import Testing
@testable import CollageTerminal

@Suite struct ScreenBufferTests {
    @Test func textIsClippedToTheScreenAndMarkedWhenCut() {
        var screen = ScreenBuffer(columns: 10, rows: 2)
        screen.put("hello", column: 0, row: 0)
        screen.put("a long file name.jpg", column: 2, row: 1, maxWidth: 6)
        #expect(screen.text == "hello\n  a lon…")
        screen.put("outside", column: 0, row: 5)
        #expect(screen.text(row: 0) == "hello     ")
    }

    @Test func displayColumnsOfCharacters() {
        #expect(("a" as Character).terminalColumns == 1 && ("é" as Character).terminalColumns == 1)
        #expect(("京" as Character).terminalColumns == 2 && ("カ" as Character).terminalColumns == 2)
        #expect(("🎉" as Character).terminalColumns == 2 && ("👩‍👩‍👧" as Character).terminalColumns == 2)
        #expect(("\u{200B}" as Character).terminalColumns == 0)
        #expect("a京🎉".terminalColumns == 5)
        #expect("東京の夏.jpg".terminalTail(columns: 7) == "…夏.jpg" && "ab".terminalTail(columns: 2) == "ab")
    }

    /// A wide character takes two cells, as the terminal draws it; the cut
    /// is made in columns, and one that would straddle it is left out.
    @Test func wideCharactersTakeTwoCells() {
        var screen = ScreenBuffer(columns: 12, rows: 3)
        screen.put("東京の夏", column: 1, row: 0)
        #expect(screen.cells[0][1].character == "東" && screen.cells[0][2].isRightHalf && screen.cells[0][3].character == "京")
        #expect(screen.text(row: 0) == " 東京の夏   ")
        screen.put("東京の夏です", column: 0, row: 1, maxWidth: 8)
        #expect(screen.text(row: 1) == "東京の…     " && screen.cells[1][6].character == "…")
        screen.put("a東京", column: 0, row: 2, maxWidth: 4)
        #expect(screen.text(row: 2) == "a東… " + String(repeating: " ", count: 7))
        // Half of a wide character written over: the other half is blanked
        // (a zero-width character takes no cell).
        screen.put("\u{200B}x", column: 2, row: 2)
        #expect(screen.text(row: 2).hasPrefix("a x…") && !screen.cells[2][2].isRightHalf)
        screen.put("y", column: 1, row: 0)
        #expect(screen.text(row: 0) == " y 京の夏   ")
    }
}

@Suite struct ScreenBufferControlTests {
    /// A file name holding ESC once reached the terminal as an escape sequence.
    @Test func controlCharactersAreShownNotSent() {
        var screen = ScreenBuffer(columns: 20, rows: 1)
        screen.put("a\u{1B}[41mRED\u{7}.jpg", column: 0, row: 0)
        #expect(screen.text.hasPrefix("a\u{FFFD}[41mRED\u{FFFD}.jpg"))
        #expect(!screen.text.contains("\u{1B}"))
    }
}
