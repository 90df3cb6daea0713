import CollageKit
import CollageTestSupport
import Testing
@testable import CollageTerminal

@Suite struct KeyDecoderTests {
    /// Decodes each read in turn, as the terminal delivers them.
    private func keys(_ reads: [UInt8]...) -> [Key] {
        var decoder = KeyDecoder()
        return reads.flatMap { decoder.decode($0) }
    }

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func printableTextIncludingMultiByteCharacters() {
        #expect(keys(bytes("aZ /.")) == [.character("a"), .character("Z"), .character(" "), .character("/"), .character(".")])
        #expect(keys(bytes("é日🙂")) == [.character("é"), .character("日"), .character("🙂")])
        // A letter and its combining accent make one character.
        #expect(keys(bytes("e\u{301}x")) == [.character("e\u{301}"), .character("x")])
    }

    @Test func utf8CharacterSplitAcrossReads() {
        let smile = bytes("🙂")
        #expect(keys(Array(smile[0..<1]), Array(smile[1..<3]), Array(smile[3...])) == [.character("🙂")])
        #expect(keys([0xC3], [0xA9, 0x61]) == [.character("é"), .character("a")])
    }

    @Test func invalidUTF8IsDropped() {
        #expect(keys([0xFF, 0x61, 0x80, 0x62]) == [.character("a"), .character("b")])
        // A lead byte followed by ASCII: the broken character goes, the ASCII stays.
        #expect(keys([0xC3, 0x61]) == [.character("a")])
        // An overlong encoding of "/" is not a slash.
        #expect(keys([0xC0, 0xAF]) == [])
        // C1 controls are not text.
        #expect(keys([0xC2, 0x9B]) == [])
    }

    @Test func enterTabBackspace() {
        #expect(keys([0x0D]) == [.enter])
        #expect(keys([0x0A]) == [.enter])
        #expect(keys([0x0D, 0x0A]) == [.enter])                    // CRLF is one Enter
        #expect(keys([0x0D], [0x0A]) == [.enter])                  // even split
        #expect(keys([0x0D, 0x0D]) == [.enter, .enter])
        #expect(keys([0x09]) == [.tab])
        #expect(keys([0x7F]) == [.backspace])
        #expect(keys([0x08]) == [.backspace])
    }

    @Test func controlLetters() {
        #expect(keys([0x01]) == [.control("a")])
        #expect(keys([0x03]) == [.control("c")])
        #expect(keys([0x15]) == [.control("u")])
        #expect(keys([0x1A]) == [.control("z")])
        #expect(keys([0x0C, 0x0E]) == [.control("l"), .control("n")])
        // NUL and Ctrl-\ ] ^ _ are not letters.
        #expect(keys([0x00, 0x1C, 0x1D, 0x1E, 0x1F]) == [])
    }

    @Test func escapeAloneAtTheEndOfARead() {
        #expect(keys([0x1B]) == [.escape])
        #expect(keys(bytes("a\u{1B}")) == [.character("a"), .escape])
        #expect(keys([0x1B, 0x1B]) == [.escape, .escape])
        // Esc pressed, then an arrow: two reads.
        #expect(keys([0x1B], bytes("\u{1B}[A")) == [.escape, .up])
        // Esc Esc then an arrow sequence in one read.
        #expect(keys(bytes("\u{1B}\u{1B}[B")) == [.escape, .down])
    }

    @Test func arrowsInCSIAndSS3() {
        #expect(keys(bytes("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D")) == [.up, .down, .right, .left])
        #expect(keys(bytes("\u{1B}OA\u{1B}OB\u{1B}OC\u{1B}OD")) == [.up, .down, .right, .left])
        // With a modifier (Ctrl-Up): still Up.
        #expect(keys(bytes("\u{1B}[1;5A")) == [.up])
    }

    @Test func homeEndPagesDelete() {
        let home = ["\u{1B}[H", "\u{1B}[1~", "\u{1B}[7~", "\u{1B}OH"]
        let end = ["\u{1B}[F", "\u{1B}[4~", "\u{1B}[8~", "\u{1B}OF"]
        for sequence in home { #expect(keys(bytes(sequence)) == [.home], "\(sequence.debugDescription)") }
        for sequence in end { #expect(keys(bytes(sequence)) == [.end], "\(sequence.debugDescription)") }
        #expect(keys(bytes("\u{1B}[5~\u{1B}[6~\u{1B}[3~")) == [.pageUp, .pageDown, .delete])
    }

    @Test func sequencesSplitAcrossReads() {
        #expect(keys(bytes("\u{1B}["), bytes("A")) == [.up])
        #expect(keys(bytes("\u{1B}[5"), bytes("~x")) == [.pageUp, .character("x")])
        #expect(keys(bytes("\u{1B}O"), bytes("H")) == [.home])
        #expect(keys(bytes("j\u{1B}[1;"), bytes("5"), bytes("B")) == [.character("j"), .down])
    }

    @Test func unknownSequencesAreSwallowedWhole() {
        // F1 (SS3 and CSI forms), F5, Insert, Shift-Tab, a focus report, an
        // SGR mouse report, a device attributes answer: no stray characters.
        let unknown = ["\u{1B}OP", "\u{1B}[11~", "\u{1B}[15~", "\u{1B}[2~", "\u{1B}[Z", "\u{1B}[I",
                       "\u{1B}[<0;12;5M", "\u{1B}[?62;4c", "\u{1B}[200~"]
        for sequence in unknown {
            #expect(keys(bytes(sequence + "k")) == [.character("k")], "\(sequence.debugDescription)")
        }
        // Alt chords (ESC + key) and an OSC answer ending in BEL or ST.
        #expect(keys(bytes("\u{1B}x\u{1B}é\u{1B}\u{7F}q")) == [.character("q")])
        #expect(keys(bytes("\u{1B}]11;rgb:0000/0000/0000\u{07}q")) == [.character("q")])
        #expect(keys(bytes("\u{1B}]11;rgb:0000/"), bytes("0000/0000\u{1B}\\q")) == [.character("q")])
    }

    @Test func brokenSequenceGivesBackTheByteThatBrokeIt() {
        // ESC [ then Enter: not a CSI; the Enter still counts.
        #expect(keys(bytes("\u{1B}[\r")) == [.enter])
    }

    @Test func flushDropsAnUnfinishedSequence() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(bytes("a\u{1B}[")) == [.character("a")])
        #expect(decoder.hasPending)
        #expect(decoder.flush() == [])
        #expect(!decoder.hasPending)
        // After the flush the next key is read afresh, not as the sequence's end.
        #expect(decoder.decode(bytes("A")) == [.character("A")])
        #expect(decoder.decode([0xF0, 0x9F]) == [])
        #expect(decoder.flush() == [])
        #expect(decoder.decode(bytes("b")) == [.character("b")])
    }
}
