import CollageKit

/// Turns the bytes a terminal sends in raw mode into `Key`s.
///
/// Written by hand rather than with ncurses/terminfo: ncurses would also own
/// the screen (and cannot place libchafa's pre-rendered pictures), and the
/// sequences every terminal sends for the keys we use are a short, fixed list.
///
/// Reads are decoded one at a time and state is kept between them, so a
/// sequence or a UTF-8 character split across two reads still decodes:
/// - an ESC that ends a read is the Esc key (terminals send a key's whole
///   sequence in one write, so a lone ESC at the end is the key itself);
/// - an unfinished sequence (`ESC [`, `ESC [ 1 ;`, `ESC O`) or character
///   waits for the next read; `flush()` drops it when no read follows soon
///   (`SystemTerminal` calls it after a short pause);
/// - sequences we do not know (function keys, Alt chords, mouse or focus
///   reports, terminal answers) are swallowed whole, never typed as text.
public struct KeyDecoder: Sendable {
    private enum State: Sendable {
        case ground
        /// After ESC, in an earlier read.
        case escape
        /// ESC [ and the parameter/intermediate bytes so far.
        case csi([UInt8])
        /// ESC O: one more byte names the key.
        case ss3
        /// ESC followed by intermediate bytes (0x20-0x2F): swallowed up to a final byte.
        case escapeIntermediate
        /// ESC P / ] / _ / ^ / X: a string up to BEL or ESC \, swallowed.
        case string(afterEscape: Bool)
        /// A UTF-8 character missing `remaining` continuation bytes; `swallow`
        /// when it came with ESC (an Alt chord), so it is dropped once complete.
        case utf8([UInt8], remaining: Int, swallow: Bool)
    }

    private var state: State = .ground
    /// The last byte was CR: a LF right after it is the same Enter (CRLF).
    private var afterCarriageReturn = false

    /// The longest sequence we keep; anything longer is junk and is dropped
    /// (the rest up to its final byte is still swallowed).
    private static let maximumSequence = 64

    public init() {}

    /// True when the last read ended inside a sequence or a character.
    public var hasPending: Bool {
        if case .ground = state { return false }
        return true
    }

    /// Decodes one read.
    public mutating func decode<Bytes: Sequence>(_ bytes: Bytes) -> [Key] where Bytes.Element == UInt8 {
        let input = Array(bytes)
        var keys: [Key] = []
        var text: [UInt8] = []   // printable UTF-8 collected, turned into Characters at once
        func flushText() {
            guard !text.isEmpty else { return }
            // Whole graphemes (e.g. a letter and its combining accent) make one Character.
            for character in String(decoding: text, as: UTF8.self) { keys.append(.character(character)) }
            text.removeAll()
        }

        var index = 0
        while index < input.count {
            let byte = input[index]
            index += 1
            let isLast = index == input.count
            let wasCR = afterCarriageReturn
            afterCarriageReturn = false

            switch state {
            case .ground:
                if byte == 0x1B {
                    flushText()
                    if isLast { keys.append(.escape) } else { state = .escape }
                } else if byte >= 0x80 {
                    let length = Self.utf8Length(lead: byte)
                    if length == 0 { continue }   // a stray continuation or invalid byte
                    state = .utf8([byte], remaining: length - 1, swallow: false)
                } else if byte >= 0x20 && byte != 0x7F {
                    text.append(byte)
                } else {
                    flushText()
                    if byte == 0x0A && wasCR { continue }
                    if byte == 0x0D { afterCarriageReturn = true }
                    if let key = Self.controlKey(byte) { keys.append(key) }
                }

            case .escape:
                state = .ground
                switch byte {
                case 0x1B:
                    // ESC ESC: the first was the Esc key; the second may start a sequence.
                    keys.append(.escape)
                    if isLast { keys.append(.escape) } else { state = .escape }
                case UInt8(ascii: "["): state = .csi([])
                case UInt8(ascii: "O"): state = .ss3
                case UInt8(ascii: "P"), UInt8(ascii: "]"), UInt8(ascii: "_"), UInt8(ascii: "^"), UInt8(ascii: "X"):
                    state = .string(afterEscape: false)
                case 0x20...0x2F: state = .escapeIntermediate
                default:
                    // An Alt chord (ESC + key) or another two-byte sequence:
                    // swallowed. A multi-byte character after ESC goes with it.
                    if byte >= 0xC0 {
                        let length = Self.utf8Length(lead: byte)
                        if length > 1 { state = .utf8([byte], remaining: length - 1, swallow: true) }
                    }
                }

            case var .csi(collected):
                switch byte {
                case 0x20...0x3F:
                    if collected.count < Self.maximumSequence { collected.append(byte) }
                    state = .csi(collected)
                case 0x40...0x7E:
                    state = .ground
                    if let key = Self.csiKey(parameters: collected, final: byte) { keys.append(key) }
                default:
                    // Not part of a CSI: the sequence was broken; drop it and
                    // read this byte afresh.
                    state = .ground
                    index -= 1
                }

            case .ss3:
                state = .ground
                switch byte {
                case UInt8(ascii: "M"): keys.append(.enter)   // keypad Enter in application mode
                case 0x40...0x7E:
                    // The arrows, Home and End, as in a CSI without parameters;
                    // F1-F4 and other keypad keys are swallowed.
                    if let key = Self.csiKey(parameters: [], final: byte) { keys.append(key) }
                default:
                    index -= 1
                }

            case .escapeIntermediate:
                if byte >= 0x30 && byte <= 0x7E { state = .ground } else if !(0x20...0x2F).contains(byte) {
                    state = .ground
                    index -= 1
                }

            case let .string(afterEscape):
                if byte == 0x07 || (afterEscape && byte == UInt8(ascii: "\\")) {
                    state = .ground
                } else {
                    state = .string(afterEscape: byte == 0x1B)
                }

            case .utf8(var collected, let remaining, let swallow):
                if byte & 0xC0 != 0x80 {
                    // Broken character: drop it and read this byte afresh.
                    state = .ground
                    index -= 1
                    continue
                }
                collected.append(byte)
                if remaining > 1 {
                    state = .utf8(collected, remaining: remaining - 1, swallow: swallow)
                    continue
                }
                state = .ground
                if !swallow, let scalar = String(validating: collected, as: UTF8.self)?.unicodeScalars.first,
                   !(0x80...0x9F).contains(scalar.value) {
                    text.append(contentsOf: collected)
                }
            }
        }
        flushText()
        return keys
    }

    /// Ends whatever the last read left unfinished: an incomplete sequence or
    /// character is dropped (it never turns into text).
    public mutating func flush() -> [Key] {
        let keys: [Key] = if case .escape = state { [.escape] } else { [] }
        state = .ground
        return keys
    }

    private static func utf8Length(lead: UInt8) -> Int {
        switch lead {
        case 0xC2...0xDF: return 2
        case 0xE0...0xEF: return 3
        case 0xF0...0xF4: return 4
        default: return 0
        }
    }

    private static func controlKey(_ byte: UInt8) -> Key? {
        switch byte {
        case 0x0D, 0x0A: return .enter
        case 0x09: return .tab
        case 0x08, 0x7F: return .backspace
        case 0x01...0x1A: return .control(Character(Unicode.Scalar(byte + 0x60)))
        default: return nil   // NUL, Ctrl-\ ] ^ _
        }
    }

    private static func csiKey(parameters: [UInt8], final: UInt8) -> Key? {
        // Only plain numeric parameters (modifiers such as "1;5" are allowed
        // and ignored); private ones ("?", "<", ">", "=") are reports, not keys.
        guard parameters.allSatisfy({ (0x30...0x39).contains($0) || $0 == UInt8(ascii: ";") }) else { return nil }
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "~"):
            let first = parameters.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).first ?? []
            switch String(decoding: first, as: UTF8.self) {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            case "5": return .pageUp
            case "6": return .pageDown
            default: return nil
            }
        default: return nil
        }
    }
}
