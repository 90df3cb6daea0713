import Foundation

/// One collage of a batch list: its position in the list (numbering the
/// output file), the lines it was written on, its photos, its layout and
/// its title.
public struct BatchGroup: Equatable, Sendable {
    public let number: Int
    /// Its first and last lines that are not comments: photos, `#focus`,
    /// `#caption`, `#layout`, `#title` and `#size` lines.
    public let firstLine: Int
    public let lastLine: Int
    public let photos: [Photo]
    /// The layout its `#layout MODE` line gives; nil for the run's (`--layout`).
    public var layout: LayoutMode?
    /// The title its `#title TEXT` line gives; nil for the run's (`--title`, or none).
    public var title: CollageTitle?
    /// The size its `#size SIZE` line gives; nil for the run's (`--size`).
    public var size: ListedSize?
    /// Why the group cannot be made as written (a `#focus`, `#caption`,
    /// `#layout`, `#title` or `#size` line that does not parse or is out of place),
    /// naming the line; nil when fine.
    public var problem: String?
    /// What a person should be told though the group is made: a comment
    /// that looks like a directive mistyped (`#titel`), naming its line.
    public var warnings: [String] = []

    public init(number: Int, firstLine: Int, lastLine: Int, photos: [Photo], layout: LayoutMode? = nil,
                title: CollageTitle? = nil, size: ListedSize? = nil, problem: String? = nil, warnings: [String] = []) {
        self.number = number
        self.firstLine = firstLine
        self.lastLine = lastLine
        self.photos = photos
        self.layout = layout
        self.title = title
        self.size = size
        self.problem = problem
        self.warnings = warnings
    }

    public var lineRange: String { firstLine == lastLine ? "line \(firstLine)" : "lines \(firstLine)-\(lastLine)" }
}

/// A batch list's `#size` line: the size it asks for, and its number, which
/// a size on paper too large at the run's `--dpi` is reported with (only
/// the run knows the dpi).
public struct ListedSize: Equatable, Sendable {
    public let request: SizeRequest
    public let line: Int

    public init(_ request: SizeRequest, line: Int) {
        self.request = request
        self.line = line
    }
}

/// The batch list format, one line at a time:
/// - one photo path per line, surrounding whitespace trimmed (CRLF accepted);
/// - a blank line, or a run of them, ends a collage; the last needs none;
/// - lines starting with `#` are comments, except these five:
/// - `#focus X Y PATH`: the photo at PATH with its focus (`collage focus`),
///   X and Y fractions from 0 to 1 (or percentages) of the photo as you see
///   it, PATH the rest of the line after them. No file name is read as a
///   focus nor a focus from a name: a line starting with `#` is never a plain
///   path (write `./#name`), and PATH, after the two numbers, is taken whole,
///   spaces and all;
/// - `#caption "TEXT" PATH`: the photo at PATH with its caption (`collage
///   caption`), and `#caption "TEXT" #focus X Y PATH` the same with its
///   focus. TEXT is in double quotes, `\"` standing for a quote and `\\` for
///   a backslash; a backslash before anything else is a problem, not a guess
///   (`"C:\photos"` is refused, naming the line, rather than read one of two
///   ways). TEXT is checked as `collage caption` checks it (trimmed, not
///   empty, at most 200 characters). PATH is the rest of the line, taken
///   whole. Quotes, not a separator, because TEXT and PATH may both hold
///   spaces and any separator; only an unescaped quote ends TEXT. After it,
///   a `#` starts the `#focus` form and nothing else (a path is written
///   `./#name`). The caption comes first because `#focus`'s PATH is the rest
///   of its line: `#focus X Y #caption ...` is the photo so named;
/// - `#layout MODE` (auto, grid, rows or columns, any case) sets the layout
///   of the collage it is a line of, `#title TEXT` its title (TEXT the
///   rest of the line, checked as `--title` is) and `#size SIZE` its size
///   (as `--size` takes it: pixels or on paper), for that collage only
///   (`--layout`, `--title` and `--size` set the others'). Such a line goes above the
///   collage's first photo, with no blank line between: a blank line ends a
///   collage, here as everywhere, so one followed by a blank line cannot be
///   mistaken for a setting of the whole list and is a problem, as are one
///   below the collage's first photo, a second `#layout`, `#title` or
///   `#size` line, and an unknown or missing MODE, TEXT or SIZE;
/// - `#focused`, `#title-x` (no blank after the word) are comments; a
///   `#caption` or `#focus` line that does not parse meant a photo, and is a
///   problem; a comment whose first word is one edit from a directive
///   (`#titel`, `#titlex`, `#sizes`) or one in another case (`#Title`) is
///   most likely a typo that would silently do nothing: still a comment,
///   but warned of with the directive meant (`BatchGroup.warnings`, on the
///   next group);
/// - each problem names its line, with the form to write;
/// - relative paths are relative to `baseDirectory`;
/// - a line is a file name as bytes: one that is not valid UTF-8 names its
///   file exactly (only ASCII whitespace is trimmed from such a line); a
///   caption or title that is not valid UTF-8 is a problem.
///
/// It holds only the group being read, so a list of any length streams
/// through in bounded memory.
public struct BatchListParser {
    public let baseDirectory: String
    private var photos: [Photo] = []
    private var firstLine = 0
    private var lastLine = 0
    private var groupsSoFar = 0
    /// Why the group cannot be made, naming its earliest wrong line, and
    /// that line.
    private var problem: String?
    private var problemLine: Int?
    /// The group's first line meaning a photo (a `#focus` or `#caption` one
    /// that did not parse included): setting lines must come before it.
    private var firstPhotoLine: Int?
    /// The group's line of each setting, and what they gave.
    private var settingLines: [Setting: Int] = [:]
    private var layout: LayoutMode?
    private var title: CollageTitle?
    private var size: ListedSize?
    /// Warnings for the next group made (a line before any group's belongs to the one after it).
    private var warnings: [String] = []

    /// A line that sets something of its whole collage, as the run's option
    /// of the same name does for the others.
    private enum Setting: String, CaseIterable {
        case layout, title, size
        var word: [UInt8] { Array("#\(rawValue)".utf8) }
    }

    public init(baseDirectory: String) {
        self.baseDirectory = baseDirectory
    }

    /// Feeds one line (without its "\n"); returns a group when this line ends one.
    public mutating func consume(_ line: String, lineNumber: Int) -> BatchGroup? {
        let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty { return endGroup() }
        // The first byte, not Character: "#" followed by a combining mark is
        // one Character that is not "#", but the line still starts with "#".
        if text.utf8.first == Self.hash { return comment(ArraySlice(text.utf8), lineNumber: lineNumber) }
        return add(Photo(resolving: text, against: baseDirectory), lineNumber: lineNumber)
    }

    /// The same for a line as read from the file, byte for byte.
    public mutating func consume(bytes line: [UInt8], lineNumber: Int) -> BatchGroup? {
        if let text = String(validating: line, as: UTF8.self) { return consume(text, lineNumber: lineNumber) }
        // Not UTF-8, so not blank; whitespace here can only be ASCII.
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || (0x09...0x0D).contains($0) }
        guard let first = line.firstIndex(where: { !isSpace($0) }),
              let last = line.lastIndex(where: { !isSpace($0) }) else { return endGroup() }
        if line[first] == Self.hash { return comment(line[first...last], lineNumber: lineNumber) }
        return add(Photo(resolvingFileSystemPath: Array(line[first...last]), against: baseDirectory),
                   lineNumber: lineNumber)
    }

    /// A line starting with "#": a photo with its focus or caption, a
    /// collage's layout or title, or a comment.
    private mutating func comment(_ line: ArraySlice<UInt8>, lineNumber: Int) -> BatchGroup? {
        for setting in Setting.allCases {
            if let value = Self.argument(of: setting.word, in: line) {
                settingLine(setting, value, lineNumber: lineNumber)
                return nil
            }
        }
        do {
            guard let (focus, caption, path) = try Self.photoLine(line) else {
                if let meant = Self.directiveMeant(by: line) {
                    let word = String(decoding: line.prefix { !Self.isBlank($0) }, as: UTF8.self)
                    warnings.append("line \(lineNumber): '\(word.shortened(to: 40))' is read as a comment: did you mean #\(meant)?")
                }
                return nil
            }
            return add(Photo(resolvingFileSystemPath: Array(path), against: baseDirectory).focused(focus).captioned(caption),
                       lineNumber: lineNumber)
        } catch {
            // The line meant a photo: its collage cannot be made as written.
            mark(lineNumber)
            if firstPhotoLine == nil { firstPhotoLine = lineNumber }
            report(line: lineNumber, "\(error)")
            return nil
        }
    }

    /// A `#layout`, `#title` or `#size` line. Only above the collage's first photo:
    /// one below it would be read as applying to the photos after it, and
    /// is most likely a missing blank line (the next collage's), so applying
    /// it to the whole collage would silently make the wrong one.
    private mutating func settingLine(_ setting: Setting, _ value: ArraySlice<UInt8>, lineNumber: Int) {
        mark(lineNumber)
        let word = "#\(setting.rawValue)"
        if let firstPhotoLine {
            report(line: lineNumber, "a \(word) line goes above its collage's first photo (line \(firstPhotoLine)); to start another collage, leave a blank line above it")
        } else if let earlier = settingLines[setting] {
            report(line: lineNumber, "this collage already has a \(word) line (line \(earlier))")
        } else {
            settingLines[setting] = lineNumber
            do {
                switch setting {
                case .layout: layout = try Self.layout(value)
                case .title: title = try Self.title(value)
                case .size: size = ListedSize(try Self.size(value), line: lineNumber)
                }
            } catch {
                report(line: lineNumber, "\(error)")
            }
        }
    }

    /// A `#layout` line's MODE.
    static func layout(_ mode: ArraySlice<UInt8>) throws -> LayoutMode {
        let modes = LayoutMode.allCases.map(\.rawValue)
        let example = "write '#layout MODE', MODE \(modes.dropLast().joined(separator: ", ")) or \(modes.last!), e.g. '#layout rows'"
        if mode.isEmpty { throw ValueError("the layout is missing: \(example)") }
        let text = String(decoding: mode, as: UTF8.self)
        do {
            return try LayoutMode(parsing: text)
        } catch {
            throw ValueError("'\(text.shortened(to: 40))' is not a layout: \(example)")
        }
    }

    /// A `#title` line's TEXT, checked as `--title` is.
    static func title(_ text: ArraySlice<UInt8>) throws -> CollageTitle {
        if text.isEmpty { throw ValueError("the title is missing: write '#title TEXT', e.g. '#title Summer 2026'") }
        guard let text = String(validating: text, as: UTF8.self) else {
            throw ValueError("the title is not valid UTF-8: save the list as UTF-8")
        }
        return try CollageTitle(text, withoutIt: "leave out the #title line")
    }

    /// A `#size` line's SIZE, as `--size` takes it.
    static func size(_ text: ArraySlice<UInt8>) throws -> SizeRequest {
        let example = "write '#size SIZE', SIZE in pixels or on paper, e.g. '#size A4', '#size 6x4in' or '#size 1080x1920'"
        if text.isEmpty { throw ValueError("the size is missing: \(example)") }
        let size = String(decoding: text, as: UTF8.self)
        do {
            return try SizeRequest(parsing: size)
        } catch {
            // The size parser's reason, which quotes the size: a line's worth is cut short.
            throw size.count > 40 ? ValueError("'\(size.shortened(to: 40))' is not a size: \(example)") : error
        }
    }

    /// Every word that starts a line that is not a comment.
    static let directives = ["focus", "caption"] + Setting.allCases.map(\.rawValue)

    /// The directive a comment most likely meant: its first word one edit
    /// from one (by NearestWord's distance) or one in another case; nil for
    /// any other comment ("# made by", "#holiday", a bare "#focus").
    static func directiveMeant(by line: ArraySlice<UInt8>) -> String? {
        let word = line.dropFirst().prefix { !isBlank($0) }
        guard !word.isEmpty, let text = String(validating: word, as: UTF8.self), !directives.contains(text) else { return nil }
        let lower = text.lowercased()
        let nearest = directives.map { ($0, NearestWord.distance(lower, $0)) }.min { $0.1 < $1.1 }
        return nearest.flatMap { $0.1 <= 1 ? $0.0 : nil }
    }

    private static let hash = UInt8(ascii: "#")
    private static let focusWord = Array("#focus".utf8)
    private static let captionWord = Array("#caption".utf8)

    /// Space and tab: what separates a line's words.
    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// `WORD ARGUMENT` (a trimmed line): ARGUMENT's bytes, the rest of the
    /// line after the blanks that follow the word (empty for a bare WORD);
    /// nil for any other line ("#layouts", "#title-x": a word of its own).
    static func argument(of word: [UInt8], in line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard line.starts(with: word) else { return nil }
        let rest = line.dropFirst(word.count)
        if let next = rest.first, !isBlank(next) { return nil }
        return rest.drop(while: isBlank)
    }

    /// A photo's own line with more than its path (a trimmed line): `#focus
    /// X Y PATH`, `#caption "TEXT" PATH` or `#caption "TEXT" #focus X Y PATH`,
    /// with its focus, caption and path's bytes; nil for any other comment;
    /// throws for one that does not parse, saying what to write.
    static func photoLine(_ line: ArraySlice<UInt8>) throws
        -> (focus: PhotoFocus?, caption: String?, path: ArraySlice<UInt8>)? {
        guard let rest = argument(of: captionWord, in: line) else {
            // A bare "#focus" is a comment, as it always was.
            guard let fields = argument(of: focusWord, in: line), !fields.isEmpty else { return nil }
            let (focus, path) = try focused(fields)
            return (focus, nil, path)
        }
        let form = "write '#caption \"TEXT\" PATH' or '#caption \"TEXT\" #focus X Y PATH', \\\" for a quote and \\\\ for a backslash in TEXT, e.g. '#caption \"Grandma, 1962\" grandma.jpg'"
        let (caption, after) = try saying(form) { try quotedCaption(rest) }
        guard after.first == hash else { return (nil, caption, after) }
        guard let fields = argument(of: focusWord, in: after) else {
            throw ValueError("\(form) (after the caption, only '#focus X Y PATH' starts with #: write a path that does as ./#name)")
        }
        let (focus, path) = try focused(fields)
        return (focus, caption, path)
    }

    /// `X Y PATH` (what follows "#focus"): the focus and the path's bytes;
    /// throws, saying what to write, when they do not parse.
    static func focused(_ fields: ArraySlice<UInt8>) throws -> (PhotoFocus, ArraySlice<UInt8>) {
        var rest = fields
        func word() -> String? {
            rest = rest.drop(while: isBlank)
            let word = rest.prefix(while: { !isBlank($0) })
            rest = rest.dropFirst(word.count)
            return word.isEmpty ? nil : String(decoding: word, as: UTF8.self)
        }
        return try saying("write '#focus X Y PATH', X and Y fractions from 0 to 1, e.g. '#focus 0.5 0.2 beach.jpg'") {
            guard let x = word(), let y = word() else { throw ValueError("X and Y are missing") }
            let focus = try PhotoFocus(x: try PhotoFocus.fraction(parsing: x, exact: true),
                                       y: try PhotoFocus.fraction(parsing: y, exact: true))
            let path = rest.drop(while: isBlank)
            guard !path.isEmpty else { throw ValueError("no photo after X and Y") }
            return (focus, path)
        }
    }

    /// `"TEXT" PATH` (what follows "#caption"): TEXT unquoted and checked as
    /// `collage caption` checks it, and PATH's bytes.
    static func quotedCaption(_ rest: ArraySlice<UInt8>) throws -> (String, ArraySlice<UInt8>) {
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        guard rest.first == quote else {
            throw ValueError(rest.isEmpty ? "the caption and the photo are missing" : "the caption goes in double quotes")
        }
        var text: [UInt8] = []
        var at = rest.startIndex + 1
        while true {
            guard at < rest.endIndex else { throw ValueError("the caption's closing quote is missing") }
            if rest[at] == quote { break }
            if rest[at] == backslash {
                at += 1
                guard at < rest.endIndex, rest[at] == quote || rest[at] == backslash else {
                    throw ValueError("a backslash in the caption is written \\\\")
                }
            }
            text.append(rest[at])
            at += 1
        }
        let after = rest[(at + 1)...]
        if let next = after.first, !isBlank(next) {
            throw ValueError("leave a space between the caption's closing quote and the photo")
        }
        guard let caption = String(validating: text, as: UTF8.self) else {
            throw ValueError("the caption is not valid UTF-8: save the list as UTF-8")
        }
        let checked = try Photo.caption(parsing: caption, withoutIt: "leave out #caption")
        let path = after.drop(while: isBlank)
        guard !path.isEmpty else { throw ValueError("no photo after the caption") }
        return (checked, path)
    }

    /// `body`'s result; its error, if any, as "FORM (why)": what to write, then what was wrong.
    private static func saying<T>(_ form: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw ValueError("\(form) (\(error))") }
    }

    private mutating func add(_ photo: Photo, lineNumber: Int) -> BatchGroup? {
        mark(lineNumber)
        if firstPhotoLine == nil { firstPhotoLine = lineNumber }
        photos.append(photo)
        return nil
    }

    /// A line that belongs to the group: it spans from its first to its last.
    private mutating func mark(_ lineNumber: Int) {
        if firstLine == 0 { firstLine = lineNumber }
        lastLine = lineNumber
    }

    /// The group's problem: the one on its earliest line.
    private mutating func report(line: Int, _ text: String) {
        if problem == nil {
            problem = "line \(line): \(text)"
            problemLine = line
        }
    }

    /// The end of the list: returns the last group, if one is open.
    public mutating func finish() -> BatchGroup? { endGroup() }

    private mutating func endGroup() -> BatchGroup? {
        guard firstLine != 0 else { return nil }  // only comments, or nothing
        // Without photos, every line of the group is a setting line: its
        // first is followed by a blank line (or the end), so it is not a
        // setting for the whole list. Found only now, but its line comes
        // before any other problem of the group (a second #layout line):
        // named first, as the problem reading down would be, unless it is
        // a problem of its own (an unknown layout).
        if firstPhotoLine == nil, problemLine != firstLine,
           let setting = settingLines.first(where: { $0.value == firstLine })?.key {
            problem = "line \(firstLine): no photo follows this #\(setting.rawValue) line in its collage: write it right above the collage's first photo, with no blank line between (--\(setting.rawValue) sets every collage's \(setting.rawValue))"
        }
        groupsSoFar += 1
        defer {
            photos = []
            problem = nil
            problemLine = nil
            firstLine = 0
            firstPhotoLine = nil
            settingLines = [:]
            layout = nil
            title = nil
            size = nil
        }
        defer { warnings = [] }
        return BatchGroup(number: groupsSoFar, firstLine: firstLine, lastLine: lastLine, photos: photos,
                          layout: layout, title: title, size: size, problem: problem, warnings: warnings)
    }
}

extension String {
    /// At most `limit` characters, "..." ending one that was cut: a line
    /// quoted in a message, which may be as long as a line can be.
    func shortened(to limit: Int) -> String { count > limit ? prefix(limit) + "..." : self }
}

/// The groups of a batch list read from a file descriptor, lazily: a
/// Sequence that reads the next chunk only when the next group is asked for.
public struct BatchListReader: Sequence, IteratorProtocol {
    private var lines: LineReader
    private var parser: BatchListParser
    private var lineNumber = 0
    private var finished = false

    /// `prefix`: bytes already read from the descriptor, which come first.
    public init(fileDescriptor: Int32, baseDirectory: String, prefix: [UInt8] = []) {
        lines = LineReader(fileDescriptor: fileDescriptor, prefix: prefix)
        parser = BatchListParser(baseDirectory: baseDirectory)
    }

    public mutating func next() -> BatchGroup? {
        while !finished {
            guard let line = lines.next() else {
                finished = true
                return parser.finish()
            }
            lineNumber += 1
            // A UTF-8 byte-order mark (what some editors put first) is no part
            // of the first path. CRLF line ends need nothing: the parser trims
            // a line's whitespace, the "\r" with it.
            let text = lineNumber == 1 && line.starts(with: Self.byteOrderMark) ? Array(line.dropFirst(3)) : line
            if let group = parser.consume(bytes: text, lineNumber: lineNumber) { return group }
        }
        return nil
    }

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// A read error, if reading stopped because of one.
    public var readError: Int32? { lines.readError }
}

/// Lines from a file descriptor, as bytes, read in 64 KiB chunks.
struct LineReader: IteratorProtocol {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    /// Where the search for the next "\n" resumes: the bytes from `start` up
    /// to here have none. Without it, a line longer than a chunk was searched
    /// again from its start after every read, which is quadratic: a list that
    /// is one 64 MB line took 31 s instead of 5, and time grew with the square.
    private var scanned = 0
    private var atEnd = false
    private(set) var readError: Int32?

    init(fileDescriptor: Int32, prefix: [UInt8] = []) {
        fd = fileDescriptor
        buffer = prefix
    }

    mutating func next() -> [UInt8]? {
        while true {
            if let newline = buffer[max(start, scanned)...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                scanned = start
                return line
            }
            scanned = buffer.count
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = Array(buffer[start...])
                start = buffer.count
                return line
            }
            // Drop what was consumed, then read more.
            buffer.removeFirst(start)
            scanned -= start
            start = 0
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                readError = errno
                atEnd = true
            } else if count == 0 {
                atEnd = true
            } else {
                buffer.append(contentsOf: chunk[0..<count])
            }
        }
    }
}
