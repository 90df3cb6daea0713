import CollageKit
import Dispatch
import Foundation
import Glibc
import CollageTestSupport
import Testing
@testable import CollageTerminal

@MainActor @Suite struct FakeTerminalTests {
    struct Refused: Error {}

    @Test func deliversKeysAndResizesOnlyWhileStarted() throws {
        let terminal = FakeTerminal(columns: 80, rows: 24)
        var keys: [Key] = []
        var sizes: [TerminalSize] = []
        terminal.send(.up)   // not started: nobody listens
        try terminal.start(onKeys: { keys += $0 }, onResize: { sizes.append($0) })
        terminal.send([.down, .character("q")])
        terminal.send(bytes: Array("\u{1B}[5~x".utf8))   // through the real decoder
        terminal.resize(to: TerminalSize(columns: 100, rows: 30))
        #expect(keys == [.down, .character("q"), .pageUp, .character("x")])
        #expect(sizes == [TerminalSize(columns: 100, rows: 30)])
        #expect(terminal.size.columns == 100)

        terminal.restore()
        terminal.send(.enter)
        #expect(keys.count == 4)
    }

    @Test func recordsWritesAndRestoresOnce() throws {
        let terminal = FakeTerminal(columns: 10, rows: 2)
        try terminal.start(onKeys: { _ in }, onResize: { _ in })
        terminal.write("a")
        terminal.write("b")
        #expect(terminal.writes == ["a", "b"])
        #expect(terminal.output == "ab" && terminal.lastWrite == "b")
        terminal.restore()
        terminal.restore()
        #expect(terminal.restoreCount == 1 && !terminal.isStarted)
        terminal.clearWrites()
        #expect(terminal.writes.isEmpty)
    }

    @Test func startCanFail() {
        let terminal = FakeTerminal(columns: 10, rows: 2)
        terminal.startError = Refused()
        #expect(throws: Refused.self) { try terminal.start(onKeys: { _ in }, onResize: { _ in }) }
        #expect(!terminal.isStarted)
    }

    @Test func cellPixelSizeNeedsReportedPixels() {
        #expect(TerminalSize(columns: 100, rows: 30).cellPixelSize == nil)
        let size = TerminalSize(columns: 100, rows: 30, pixelWidth: 1000, pixelHeight: 600)
        #expect(size.cellPixelSize?.width == 10 && size.cellPixelSize?.height == 20)
    }
}
