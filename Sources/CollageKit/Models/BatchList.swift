import Foundation

/// One collage of a batch list: its position in the list (numbering the
/// output file), the lines it was written on, its photos and its layout.
public struct BatchGroup: Equatable, Sendable {
    public let number: Int
    /// Its first and last lines that are not comments: photos, `#focus`
    /// and `#layout` lines.
    public let firstLine: Int
    public let lastLine: Int
    public let photos: [Photo]
    /// The layout its `#layout MODE` line gives; nil for the run's (`--layout`).
    public var layout: LayoutMode?
    /// Why the group cannot be made as written (a `#focus` or `#layout` line
    /// that does not parse or is out of place), naming the line; nil when fine.
    public var problem: String?

    public init(number: Int, firstLine: Int, lastLine: Int, photos: [Photo], layout: LayoutMode? = nil,
                problem: String? = nil) {
        self.number = number
        self.firstLine = firstLine
        self.lastLine = lastLine
        self.photos = photos
        self.layout = layout
        self.problem = problem
    }

    public var lineRange: String { firstLine == lastLine ? "line \(firstLine)" : "lines \(firstLine)-\(lastLine)" }
}

/// The batch list format, one line at a time:
/// - one photo path per line, surrounding whitespace trimmed (CRLF accepted);
/// - a blank line, or a run of them, ends a collage; the last needs none;
/// - lines starting with `#` are comments, but for `#focus X Y PATH`: the
///   photo at PATH with its focus (`collage focus`), X and Y fractions from
///   0 to 1 (or percentages) of the photo as you see it, PATH the rest of the
///   line after them. No file name is read as a focus nor a focus from a
///   name: a line starting with `#` is never a plain path (write `./#name`),
///   and PATH, after the two numbers, is taken whole, spaces and all;
/// - `#layout MODE` (grid, auto, rows or columns, any case) sets the layout
///   of the collage it is a line of, for that collage only (`--layout` sets
///   the others'). It goes above the collage's first photo, with no blank
///   line between: a blank line ends a collage, here as everywhere, so a
///   `#layout` line followed by a blank line cannot be mistaken for a
///   setting of the whole list and is a problem, as are a `#layout` line
///   below the collage's first photo, a second one, and an unknown or missing
///   MODE. Each names its line. `#layouts`, `#layoutx` (no blank after the
///   word) are comments, as `#focused` is;
/// - relative paths are relative to `baseDirectory`;
/// - a line is a file name as bytes: one that is not valid UTF-8 names its
///   file exactly (only ASCII whitespace is trimmed from such a line).
///
/// It holds only the group being read, so a list of any length streams
/// through in bounded memory.
public struct BatchListParser {
    public let baseDirectory: String
    private var photos: [Photo] = []
    private var firstLine = 0
    private var lastLine = 0
    private var groupsSoFar = 0
    /// Why the group cannot be made, naming its earliest wrong line (a
    /// `#focus` line that does not parse, a `#layout` line that does not or
    /// is out of place).
    private var problem: String?
    /// The group's first line meaning a photo (a `#focus` one that did not
    /// parse included): `#layout` lines must come before it.
    private var firstPhotoLine: Int?
    /// The group's `#layout` line and the layout it gave.
    private var layoutLine: Int?
    private var layout: LayoutMode?

    public init(baseDirectory: String) {
        self.baseDirectory = baseDirectory
    }

    /// Feeds one line (without its "\n"); returns a group when this line ends one.
    public mutating func consume(_ line: String, lineNumber: Int) -> BatchGroup? {
        let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty { return endGroup() }
        // The first byte, not Character: "#" followed by a combining mark is
        // one Character that is not "#", but the line still starts with "#".
        if text.utf8.first == UInt8(ascii: "#") { return comment(ArraySlice(text.utf8), lineNumber: lineNumber) }
        return add(Photo(resolving: text, against: baseDirectory), lineNumber: lineNumber)
    }

    /// The same for a line as read from the file, byte for byte.
    public mutating func consume(bytes line: [UInt8], lineNumber: Int) -> BatchGroup? {
        if let text = String(validating: line, as: UTF8.self) { return consume(text, lineNumber: lineNumber) }
        // Not UTF-8, so not blank; whitespace here can only be ASCII.
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || (0x09...0x0D).contains($0) }
        guard let first = line.firstIndex(where: { !isSpace($0) }),
              let last = line.lastIndex(where: { !isSpace($0) }) else { return endGroup() }
        if line[first] == UInt8(ascii: "#") { return comment(line[first...last], lineNumber: lineNumber) }
        return add(Photo(resolvingFileSystemPath: Array(line[first...last]), against: baseDirectory),
                   lineNumber: lineNumber)
    }

    /// A line starting with "#": a photo with its focus, a collage's layout, or a comment.
    private mutating func comment(_ line: ArraySlice<UInt8>, lineNumber: Int) -> BatchGroup? {
        if let mode = Self.layoutLine(line) {
            layoutLine(mode, lineNumber: lineNumber)
            return nil
        }
        do {
            guard let (focus, path) = try Self.focusLine(line) else { return nil }
            return add(Photo(resolvingFileSystemPath: Array(path), against: baseDirectory).focused(focus),
                       lineNumber: lineNumber)
        } catch {
            // The line meant a photo: its collage cannot be made as written.
            mark(lineNumber)
            if firstPhotoLine == nil { firstPhotoLine = lineNumber }
            report("line \(lineNumber): write '#focus X Y PATH', X and Y fractions from 0 to 1, e.g. '#focus 0.5 0.2 beach.jpg' (\(error))")
            return nil
        }
    }

    /// A `#layout` line. Only above the collage's first photo: one below it
    /// would be read as applying to the photos after it, and is most likely
    /// a missing blank line (the next collage's layout), so applying it to
    /// the whole collage would silently make the wrong one.
    private mutating func layoutLine(_ mode: ArraySlice<UInt8>, lineNumber: Int) {
        mark(lineNumber)
        if let firstPhotoLine {
            report("line \(lineNumber): a #layout line goes above its collage's first photo (line \(firstPhotoLine)); to start another collage, leave a blank line above it")
        } else if let layoutLine {
            report("line \(lineNumber): this collage already has a #layout line (line \(layoutLine))")
        } else {
            layoutLine = lineNumber
            let modes = LayoutMode.allCases.map(\.rawValue)
            let example = "write '#layout MODE', MODE \(modes.dropLast().joined(separator: ", ")) or \(modes.last!), e.g. '#layout rows'"
            if mode.isEmpty {
                report("line \(lineNumber): the layout is missing: \(example)")
                return
            }
            do {
                layout = try LayoutMode(parsing: String(decoding: mode, as: UTF8.self))
            } catch {
                let text = String(decoding: mode, as: UTF8.self)
                let shown = text.count > 40 ? text.prefix(40) + "..." : Substring(text)
                report("line \(lineNumber): '\(shown)' is not a layout: \(example)")
            }
        }
    }

    private static let layoutWord = Array("#layout".utf8)

    /// `#layout MODE` (a trimmed line): MODE's bytes, the rest of the line
    /// after the blanks that follow the word (empty for a bare "#layout");
    /// nil for any other comment ("#layouts", "#layout-x").
    static func layoutLine(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard line.starts(with: layoutWord) else { return nil }
        let rest = line.dropFirst(layoutWord.count)
        if let next = rest.first, !isBlank(next) { return nil }
        return rest.drop(while: isBlank)
    }

    private static let focusWord = Array("#focus".utf8)

    /// `#focus X Y PATH` (a trimmed line): the focus and the path's bytes;
    /// nil for any other comment; throws for a `#focus` line that does not parse.
    static func focusLine(_ line: ArraySlice<UInt8>) throws -> (PhotoFocus, ArraySlice<UInt8>)? {
        let isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard line.starts(with: focusWord) else { return nil }
        var rest = line.dropFirst(focusWord.count)
        guard let next = rest.first, isBlank(next) else { return nil }  // "#focused ..." is a comment
        func word() -> String? {
            rest = rest.drop(while: isBlank)
            let word = rest.prefix(while: { !isBlank($0) })
            rest = rest.dropFirst(word.count)
            return word.isEmpty ? nil : String(decoding: word, as: UTF8.self)
        }
        guard let x = word(), let y = word() else { throw OptionError("X and Y are missing") }
        let focus = try PhotoFocus(x: try PhotoFocus.fraction(parsing: x, exact: true),
                                   y: try PhotoFocus.fraction(parsing: y, exact: true))
        let path = rest.drop(while: isBlank)
        guard !path.isEmpty else { throw OptionError("no photo after X and Y") }
        return (focus, path)
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
    private mutating func report(_ text: String) {
        if problem == nil { problem = text }
    }

    /// The end of the list: returns the last group, if one is open.
    public mutating func finish() -> BatchGroup? { endGroup() }

    private mutating func endGroup() -> BatchGroup? {
        guard firstLine != 0 else { return nil }  // only comments, or nothing
        if let layoutLine, firstPhotoLine == nil, layout != nil {
            // Followed by a blank line (or the end): not a layout for the
            // whole list. Found only now, but its line comes before any other
            // problem of a collage without photos (a second #layout line):
            // named first, as the problem reading down would be.
            problem = "line \(layoutLine): no photo follows this #layout line in its collage: write it right above the collage's first photo, with no blank line between (--layout sets every collage's layout)"
        }
        groupsSoFar += 1
        defer {
            photos = []
            problem = nil
            firstLine = 0
            firstPhotoLine = nil
            layoutLine = nil
            layout = nil
        }
        return BatchGroup(number: groupsSoFar, firstLine: firstLine, lastLine: lastLine, photos: photos,
                          layout: layout, problem: problem)
    }
}

/// The groups of a batch list read from a file descriptor, lazily: a
/// Sequence that reads the next chunk only when the next group is asked for.
public struct BatchListReader: Sequence, IteratorProtocol {
    private var lines: LineReader
    private var parser: BatchListParser
    private var lineNumber = 0
    private var finished = false

    public init(fileDescriptor: Int32, baseDirectory: String) {
        lines = LineReader(fileDescriptor: fileDescriptor)
        parser = BatchListParser(baseDirectory: baseDirectory)
    }

    public mutating func next() -> BatchGroup? {
        while !finished {
            guard let line = lines.next() else {
                finished = true
                return parser.finish()
            }
            lineNumber += 1
            if let group = parser.consume(bytes: line, lineNumber: lineNumber) { return group }
        }
        return nil
    }

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

    init(fileDescriptor: Int32) { fd = fileDescriptor }

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
