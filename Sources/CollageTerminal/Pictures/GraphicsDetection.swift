import CChafa
import CollageKit
import Glibc

/// The `--graphics` option: how pictures are drawn.
public enum GraphicsMode: String, Equatable, Sendable, OptionChoice {
    /// Detected from the environment (see `GraphicsDetection`).
    case auto
    case symbols, sixel, kitty, iterm2

    public static let optionName = "graphics"
}

/// Chooses how pictures are drawn in this terminal.
///
/// A forced mode is used as it is. `auto` picks, in order:
/// 1. symbols inside tmux or GNU screen (TMUX set, or TERM screen*/tmux*):
///    they pass graphics through only when configured to, and even then
///    lose them on redraws, pane switches and scrolling, while symbols
///    always work there;
/// 2. a protocol named by a well-known variable the terminal sets itself:
///    KITTY_WINDOW_ID, TERM=xterm-kitty or xterm-ghostty, TERM_PROGRAM=ghostty
///    (kitty); TERM_PROGRAM=iTerm.app (iTerm2); TERM_PROGRAM=WezTerm,
///    TERM=foot*, TERM=mlterm* (sixel, as libchafa's database chooses for
///    them). These survive where TERM does not, e.g. over ssh or sudo;
/// 3. libchafa's terminal database (`chafa_term_db_detect` on the
///    environment), preferring kitty, then iTerm2, then sixel: the order of
///    picture quality and transfer cost;
/// 4. otherwise symbols in 24-bit colour.
///
/// We do not query the terminal (e.g. DA1 for sixel support): that needs a
/// round trip through raw input before the UI starts, with a timeout for
/// terminals that never answer; a wrong guess is fixed with `--graphics`.
public enum GraphicsDetection {
    public static func pictureKind(for mode: GraphicsMode, environment: [String: String]) -> TerminalPicture.Kind {
        switch mode {
        case .symbols: return .symbols
        case .sixel: return .sixel
        case .kitty: return .kitty
        case .iterm2: return .iterm2
        case .auto: return detect(environment: environment)
        }
    }

    public static func detect(environment: [String: String]) -> TerminalPicture.Kind {
        let term = environment["TERM"] ?? ""
        let program = environment["TERM_PROGRAM"] ?? ""
        if isMultiplexer(environment) { return .symbols }
        if environment["KITTY_WINDOW_ID"] != nil || term == "xterm-kitty" || term == "xterm-ghostty" || program == "ghostty" {
            return .kitty
        }
        if program == "iTerm.app" { return .iterm2 }
        if program == "WezTerm" || term.hasPrefix("foot") || term.hasPrefix("mlterm") { return .sixel }
        return detectWithChafa(environment: environment) ?? .symbols
    }

    static func isMultiplexer(_ environment: [String: String]) -> Bool {
        let term = environment["TERM"] ?? ""
        return !(environment["TMUX"] ?? "").isEmpty || term.hasPrefix("screen") || term.hasPrefix("tmux")
    }

    /// What libchafa's terminal database says the environment's terminal can draw.
    static func detectWithChafa(environment: [String: String]) -> TerminalPicture.Kind? {
        // chafa_term_db_detect reads an envp array: "NAME=value" strings, NULL-terminated.
        let entries = environment.map { strdup("\($0.key)=\($0.value)") }
        defer { entries.forEach { free($0) } }
        var envp: [UnsafeMutablePointer<gchar>?] = entries + [nil]
        // The default database belongs to libchafa and is not unreffed.
        guard let info = envp.withUnsafeMutableBufferPointer({ chafa_term_db_detect(chafa_term_db_get_default(), $0.baseAddress) })
        else { return nil }
        defer { chafa_term_info_unref(info) }
        if chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_BEGIN_KITTY_IMMEDIATE_IMAGE_V1) != 0 { return .kitty }
        if chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_BEGIN_ITERM2_IMAGE) != 0 { return .iterm2 }
        if chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_BEGIN_SIXELS) != 0 { return .sixel }
        return nil
    }
}
