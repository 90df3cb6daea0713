import Foundation

/// One collage of a batch list: its position in the list (numbering the
/// output file), the lines its photos came from, and the photos.
public struct BatchGroup: Equatable, Sendable {
    public let number: Int
    public let firstLine: Int
    public let lastLine: Int
    public let photos: [Photo]
    /// Why the group cannot be made as written (a `#focus` line that does
    /// not parse or has no photo after it), naming the line; nil when fine.
    public var problem: String?

    public init(number: Int, firstLine: Int, lastLine: Int, photos: [Photo], problem: String? = nil) {
        self.number = number
        self.firstLine = firstLine
        self.lastLine = lastLine
        self.photos = photos
        self.problem = problem
    }

    public var lineRange: String { firstLine == lastLine ? "line \(firstLine)" : "lines \(firstLine)-\(lastLine)" }
}

/// The batch list format, one line at a time:
/// - one photo path per line, surrounding whitespace trimmed (CRLF accepted);
/// - a blank line, or a run of them, ends a collage; the last needs none;
/// - lines starting with `#` are comments, but for `#focus X Y`, which sets
///   the focus (`collage focus`) of the photo on the next line: X and Y are
///   fractions from 0 to 1 (or percentages) of the photo, as you see it. A
///   file name cannot begin with `#` here anyway (write `./#name`), so no
///   name is ever read as a focus, and no focus is read from a name;
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
    /// A `#focus` line waiting for its photo, and the line it was on.
    private var pendingFocus: (focus: PhotoFocus, line: Int)?
    private var problem: String?

    public init(baseDirectory: String) {
        self.baseDirectory = baseDirectory
    }

    /// Feeds one line (without its "\n"); returns a group when this line ends one.
    public mutating func consume(_ line: String, lineNumber: Int) -> BatchGroup? {
        let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty { return endGroup() }
        // The first byte, not Character: "#" followed by a combining mark is
        // one Character that is not "#", but the line still starts with "#".
        if text.utf8.first == UInt8(ascii: "#") {
            readFocus(text, lineNumber: lineNumber)
            return nil
        }
        return add(Photo(resolving: text, against: baseDirectory), lineNumber: lineNumber)
    }

    /// The same for a line as read from the file, byte for byte.
    public mutating func consume(bytes line: [UInt8], lineNumber: Int) -> BatchGroup? {
        if let text = String(validating: line, as: UTF8.self) { return consume(text, lineNumber: lineNumber) }
        // Not UTF-8, so not blank; whitespace here can only be ASCII.
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || (0x09...0x0D).contains($0) }
        guard let first = line.firstIndex(where: { !isSpace($0) }),
              let last = line.lastIndex(where: { !isSpace($0) }) else { return endGroup() }
        if line[first] == UInt8(ascii: "#") { return nil }
        return add(Photo(resolvingFileSystemPath: Array(line[first...last]), against: baseDirectory),
                   lineNumber: lineNumber)
    }

    /// `#focus X Y`; any other comment is left alone.
    private mutating func readFocus(_ text: String, lineNumber: Int) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.first == "#focus" else { return }
        noteDanglingFocus()
        do {
            guard words.count == 3 else { throw OptionError("needs X and Y") }
            let focus = try PhotoFocus(x: try PhotoFocus.fraction(parsing: String(words[1])),
                                       y: try PhotoFocus.fraction(parsing: String(words[2])))
            pendingFocus = (focus, lineNumber)
        } catch {
            noteProblem("line \(lineNumber): '#focus X Y' takes two fractions from 0 to 1, e.g. '#focus 0.5 0.2' (\(error))")
        }
    }

    private mutating func noteProblem(_ text: String) {
        if problem == nil { problem = text }
    }

    /// A focus no photo took.
    private mutating func noteDanglingFocus() {
        if let pending = pendingFocus {
            noteProblem("line \(pending.line): '#focus' is not followed by a photo on the next line")
            pendingFocus = nil
        }
    }

    private mutating func add(_ photo: Photo, lineNumber: Int) -> BatchGroup? {
        if photos.isEmpty { firstLine = lineNumber }
        lastLine = lineNumber
        photos.append(photo.focused(pendingFocus?.focus))
        pendingFocus = nil
        return nil
    }

    /// The end of the list: returns the last group, if one is open.
    public mutating func finish() -> BatchGroup? { endGroup() }

    private mutating func endGroup() -> BatchGroup? {
        noteDanglingFocus()
        // A problem before any photo waits for the group that follows.
        guard !photos.isEmpty else { return nil }
        groupsSoFar += 1
        defer {
            photos = []
            problem = nil
        }
        return BatchGroup(number: groupsSoFar, firstLine: firstLine, lastLine: lastLine, photos: photos,
                          problem: problem)
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
