import CollageKit
import Foundation
import CollageTestSupport
import Testing
@testable import CollageTerminal

@Suite struct GraphicsDetectionTests {
    @Test func forcedModesWinEvenInsideTmux() {
        let tmux = ["TMUX": "/tmp/tmux-0/default,1,0", "TERM": "screen"]
        #expect(GraphicsDetection.pictureKind(for: .sixel, environment: tmux) == .sixel)
        #expect(GraphicsDetection.pictureKind(for: .kitty, environment: tmux) == .kitty)
        #expect(GraphicsDetection.pictureKind(for: .iterm2, environment: tmux) == .iterm2)
        #expect(GraphicsDetection.pictureKind(for: .symbols, environment: ["KITTY_WINDOW_ID": "1"]) == .symbols)
    }

    @Test func autoDetection() {
        func auto(_ environment: [String: String]) -> TerminalPicture.Kind {
            GraphicsDetection.pictureKind(for: .auto, environment: environment)
        }
        #expect(auto([:]) == .symbols)
        #expect(auto(["TERM": "xterm-256color", "COLORTERM": "truecolor"]) == .symbols)
        #expect(auto(["TERM": "xterm-kitty"]) == .kitty)
        #expect(auto(["TERM": "xterm-256color", "KITTY_WINDOW_ID": "3"]) == .kitty)
        #expect(auto(["TERM_PROGRAM": "iTerm.app", "TERM": "xterm-256color"]) == .iterm2)
        #expect(auto(["TERM": "foot"]) == .sixel)
        #expect(auto(["TERM": "mlterm"]) == .sixel)
        #expect(auto(["TERM_PROGRAM": "WezTerm", "TERM": "xterm-256color"]) == .sixel)
        // tmux and screen: symbols, whatever runs outside.
        #expect(auto(["TMUX": "/tmp/tmux-0/default,1,0", "TERM": "tmux-256color", "KITTY_WINDOW_ID": "3"]) == .symbols)
        #expect(auto(["TERM": "screen-256color", "TERM_PROGRAM": "iTerm.app"]) == .symbols)
    }

    @Test func libchafaDatabaseIsConsulted() {
        #expect(GraphicsDetection.detectWithChafa(environment: ["TERM": "xterm-kitty"]) == .kitty)
        #expect(GraphicsDetection.detectWithChafa(environment: ["TERM": "foot"]) == .sixel)
        #expect(GraphicsDetection.detectWithChafa(environment: ["TERM": "xterm-256color"]) == nil)
    }

    @Test func parsingTheOption() throws {
        #expect(try GraphicsMode(parsing: "SIXEL") == .sixel)
        #expect(try GraphicsMode(parsing: "auto") == .auto)
        #expect(throws: ValueError("graphics 'ascii' is not auto, symbols, sixel, kitty or iterm2")) { try GraphicsMode(parsing: "ascii") }
    }
}
