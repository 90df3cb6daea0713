/// A key press, as the screens' view models receive it. The terminal layer
/// decodes bytes into keys; view models never see escape sequences.
public enum Key: Equatable, Hashable, Sendable {
    /// A printable character, space included.
    case character(Character)
    /// Ctrl plus a letter, lowercase: `.control("u")` is Ctrl-U.
    case control(Character)
    case enter, escape, backspace, tab, delete
    case up, down, left, right, pageUp, pageDown, home, end
}
