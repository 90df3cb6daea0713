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
