import CollageKit
import CollageTestSupport
import Testing
@testable import CollageTerminal

@Suite struct ANSIScreenWriterTests {
    static let red = RGBColor(red: 255, green: 0, blue: 0)
    static let blue = RGBColor(red: 0, green: 0, blue: 255)

    /// Two rows: bold text, a gap, red text and trailing blanks; then a
    /// reversed cell with a blue background.
    private func sample() -> ScreenBuffer {
        var screen = ScreenBuffer(columns: 6, rows: 2)
        screen.put("Hi", column: 0, row: 0, style: TextStyle(bold: true))
        screen.put("ok", column: 3, row: 0, style: TextStyle(foreground: Self.red))
        screen.put("x", column: 1, row: 1, style: TextStyle(reverse: true, background: Self.blue))
        return screen
    }

    @Test func frameWithMinimalSGRAndEraseToEndOfLine() {
        var writer = ANSIScreenWriter()
        #expect(writer.frame(sample()) ==
            "\u{1B}[H\u{1B}[1mHi\u{1B}[0m \u{1B}[38;2;255;0;0mok\u{1B}[0m\u{1B}[K"
            + "\u{1B}[2;1H \u{1B}[7;48;2;0;0;255mx\u{1B}[0m\u{1B}[K"
            + "\u{1B}[0m")
    }

    /// The terminal fills a wide character's second cell itself: nothing is
    /// written there, so what follows stays in its column.
    @Test func aWideCharactersSecondCellIsNotWritten() {
        var screen = ScreenBuffer(columns: 6, rows: 1)
        screen.put("京x", column: 0, row: 0)
        screen.put("y", column: 4, row: 0)
        var writer = ANSIScreenWriter()
        #expect(writer.frame(screen) == "\u{1B}[H京x y\u{1B}[K\u{1B}[0m")
    }

    @Test func noColorKeepsBoldAndReverseButNoColourCodes() {
        var writer = ANSIScreenWriter(noColor: true)
        let frame = writer.frame(sample())
        #expect(frame ==
            "\u{1B}[H\u{1B}[1mHi\u{1B}[0m ok\u{1B}[K"
            + "\u{1B}[2;1H \u{1B}[7mx\u{1B}[0m\u{1B}[K"
            + "\u{1B}[0m")
        #expect(!frame.contains("38;2") && !frame.contains("48;2"))
    }

    @Test func noColorFollowsTheEnvironmentOnlyWhenSetAndNotEmpty() {
        #expect(ANSIScreenWriter.noColorRequested(in: ["NO_COLOR": "1"]))
        #expect(!ANSIScreenWriter.noColorRequested(in: ["NO_COLOR": ""]))
        #expect(!ANSIScreenWriter.noColorRequested(in: [:]))
    }

    @Test func fullRowsNeedNoErase() {
        var screen = ScreenBuffer(columns: 3, rows: 2)
        screen.put("abc", column: 0, row: 0)
        screen.put("def", column: 0, row: 1, style: TextStyle(dim: true))
        var writer = ANSIScreenWriter()
        #expect(writer.frame(screen) == "\u{1B}[Habc\u{1B}[2;1H\u{1B}[2mdef\u{1B}[0m\u{1B}[0m")
    }

    @Test func sgrTransitionsAddOnlyWhatChangesAndResetToTurnOff() {
        let bold = TextStyle(bold: true)
        #expect(ANSIScreenWriter.transition(from: bold, to: bold) == "")
        #expect(ANSIScreenWriter.transition(from: bold, to: TextStyle(bold: true, dim: true)) == "\u{1B}[2m")
        #expect(ANSIScreenWriter.transition(from: TextStyle(foreground: Self.red), to: TextStyle(foreground: Self.blue))
            == "\u{1B}[38;2;0;0;255m")
        #expect(ANSIScreenWriter.transition(from: TextStyle(bold: true, foreground: Self.red), to: TextStyle(foreground: Self.red))
            == "\u{1B}[0;38;2;255;0;0m")
        #expect(ANSIScreenWriter.transition(from: .plain, to: TextStyle(bold: true, reverse: true, background: Self.red))
            == "\u{1B}[1;7;48;2;255;0;0m")
    }

    private func symbols(_ lines: [String], columns: Int) -> TerminalPicture {
        TerminalPicture(kind: .symbols, columns: columns, rows: lines.count, lines: lines)
    }

    @Test func symbolsPictureIsPlacedLineByLineAndTextSkipsItsCells() {
        var screen = ScreenBuffer(columns: 5, rows: 2)
        screen.put("abcde", column: 0, row: 0)
        screen.place(symbols(["P1", "P2"], columns: 2), column: 1, row: 0)
        var writer = ANSIScreenWriter()
        #expect(writer.frame(screen) ==
            "\u{1B}[Ha\u{1B}[1;4Hde"
            + "\u{1B}[2;1H \u{1B}[2;4H\u{1B}[K"
            + "\u{1B}[1;2HP1\u{1B}[2;2HP2"
            + "\u{1B}[0m")
    }

    @Test func unchangedPicturesAreNotSentAgain() {
        var screen = ScreenBuffer(columns: 5, rows: 2)
        screen.put("abcde", column: 0, row: 0)
        screen.place(symbols(["P1", "P2"], columns: 2), column: 1, row: 0)
        var writer = ANSIScreenWriter()
        _ = writer.frame(screen)
        #expect(writer.frame(screen) == "\u{1B}[Ha\u{1B}[1;4Hde\u{1B}[2;1H \u{1B}[2;4H\u{1B}[K\u{1B}[0m")

        // Forgotten after invalidate(): drawn again.
        writer.invalidate()
        #expect(writer.frame(screen).contains("\u{1B}[1;2HP1\u{1B}[2;2HP2"))

        // Moved: drawn at the new place, and the old cells are text again.
        var moved = ScreenBuffer(columns: 5, rows: 2)
        moved.put("abcde", column: 0, row: 0)
        moved.place(symbols(["P1", "P2"], columns: 2), column: 3, row: 0)
        let frame = writer.frame(moved)
        #expect(frame.hasPrefix("\u{1B}[Habc\u{1B}[2;1H"))
        #expect(frame.contains("\u{1B}[1;4HP1\u{1B}[2;4HP2"))

        // A different size redraws everything.
        var wider = ScreenBuffer(columns: 6, rows: 2)
        wider.place(symbols(["P1", "P2"], columns: 2), column: 3, row: 0)
        #expect(writer.frame(wider).contains("\u{1B}[1;4HP1"))
    }

    @Test func overlappingPicturesAreAlwaysRedrawn() {
        var screen = ScreenBuffer(columns: 6, rows: 2)
        screen.place(symbols(["AA", "AA"], columns: 2), column: 0, row: 0)
        screen.place(symbols(["BB"], columns: 2), column: 1, row: 1)
        var writer = ANSIScreenWriter()
        _ = writer.frame(screen)
        let again = writer.frame(screen)
        #expect(again.contains("\u{1B}[1;1HAA\u{1B}[2;1HAA\u{1B}[2;2HBB"))
    }

    @Test func graphicsPictureIsWrittenAtItsTopLeftCellOnlyWhenItFits() {
        let sixel = TerminalPicture(kind: .sixel, columns: 2, rows: 2, lines: ["\u{1B}Pq#0!4~\u{1B}\\"])
        var screen = ScreenBuffer(columns: 4, rows: 3)
        screen.place(sixel, column: 1, row: 1)
        var writer = ANSIScreenWriter()
        #expect(writer.frame(screen) ==
            "\u{1B}[H\u{1B}[K\u{1B}[2;1H \u{1B}[2;4H\u{1B}[K\u{1B}[3;1H \u{1B}[3;4H\u{1B}[K"
            + "\u{1B}[2;2H\u{1B}Pq#0!4~\u{1B}\\"
            + "\u{1B}[0m")

        // Reaching past the last row it would scroll the screen: left out,
        // and its cells are written as text.
        var tooLow = ScreenBuffer(columns: 4, rows: 3)
        tooLow.place(sixel, column: 1, row: 2)
        var other = ANSIScreenWriter()
        #expect(other.frame(tooLow) == "\u{1B}[H\u{1B}[K\u{1B}[2;1H\u{1B}[K\u{1B}[3;1H\u{1B}[K\u{1B}[0m")
    }

    @Test func kittyImagesAreDeletedWhenTheyChange() {
        let kitty = TerminalPicture(kind: .kitty, columns: 1, rows: 1, lines: ["\u{1B}_Ga=T;AAAA\u{1B}\\"])
        let delete = "\u{1B}_Ga=d,d=A\u{1B}\\"
        var screen = ScreenBuffer(columns: 3, rows: 1)
        screen.place(kitty, column: 0, row: 0)
        var writer = ANSIScreenWriter()
        let first = writer.frame(screen)
        #expect(first.contains("\u{1B}[1;1H\u{1B}_Ga=T;AAAA") && !first.contains(delete))
        let second = writer.frame(screen)
        #expect(!second.contains("\u{1B}_G"))
        let gone = writer.frame(ScreenBuffer(columns: 3, rows: 1))
        #expect(gone.contains(delete))
        #expect(writer.closingSequence() == "")

        _ = writer.frame(screen)
        #expect(writer.closingSequence() == delete)
    }
}
