// FuzzBatchList.swift — libFuzzer harness for the batch list format
// (BatchListParser and BatchListReader, Sources/CollageKit/Models/BatchList.swift),
// compiled by swiftc -sanitize=fuzzer,address together with the model
// files it is made of (see scripts/fuzz.sh and Fuzz/README.md).
//
// Each input is a list. It is read twice: through BatchListReader from a file
// descriptor (64 KiB chunks, so lines straddle chunk boundaries), and through
// BatchListParser fed the lines split in memory. Both must give the same
// groups, and those must obey the format's promises, checked against an
// independent model of the format:
//  - groups are numbered 1, 2, 3... in order, each with at least one photo;
//  - every line that is not blank and not a comment is exactly one photo, in
//    order, and its group's line range covers it; blank lines separate groups;
//  - a `#focus X Y PATH` line is the photo PATH with that focus, and one
//    that starts so but does not parse marks its group as not makeable;
//  - a `#caption "TEXT" PATH` line is the photo PATH with caption TEXT
//    (unescaped: \" and \\ only; valid UTF-8; as `collage caption` takes
//    it), `#caption "TEXT" #focus X Y PATH` the same with that focus, and
//    one that starts so but does not parse marks its group not makeable;
//  - a `#layout MODE` or `#title TEXT` line is a line of its group (in its
//    line range); the group has that layout (title) when it is the group's
//    only `#layout` (`#title`) line, comes before its first photo, has at
//    least one photo after it and MODE is a layout (TEXT valid UTF-8 that
//    `--title` would take); any other such line marks the group not
//    makeable, and the problem names the earliest such line (or bad
//    `#focus` or `#caption` line);
//  - every photo names exactly the bytes of its line (trimmed), made absolute
//    against the list's folder and standardised as the kernel would resolve
//    it ("." and repeated slashes removed, "x/.." only where x is a real
//    folder): no line ever names a different file than it says.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

private func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fuzz: broken promise: \(message)\n".utf8))
    abort()
}

/// The format, modelled independently: a line is blank (ends a group), a
/// comment, a photo given by the bytes of its trimmed text (with a focus
/// for `#focus X Y PATH`, a caption for `#caption "TEXT" PATH`), a `#focus`
/// or `#caption` line that does not parse, a `#layout` line with its mode
/// (nil when it names none of the layouts) or a `#title` line with its
/// title (nil when it is not one).
private enum Line {
    case blank, comment, photo([UInt8], PhotoFocus?, String?), bad, layout(LayoutMode?), title(CollageTitle?)
}

/// WORD, then the end of the line or a blank (space, tab), then blanks and
/// the rest of the line, returned; nil when the line does not start so
/// ("#layouts", "#title-x").
private func rest(after word: String, _ text: [UInt8]) -> [UInt8]? {
    let blank: Set<UInt8> = [0x20, 0x09]
    let head = Array(word.utf8)
    guard text.count >= head.count, Array(text[0..<head.count]) == head else { return nil }
    if text.count > head.count && !blank.contains(text[head.count]) { return nil }
    var at = head.count
    while at < text.count, blank.contains(text[at]) { at += 1 }
    return Array(text[at...])
}

/// "#layout MODE": one of the four names in any ASCII case.
private func layoutModel(_ text: [UInt8]) -> Line? {
    guard let mode = rest(after: "#layout", text) else { return nil }
    let word = mode.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
    let names: [(String, LayoutMode)] = [("grid", .grid), ("auto", .auto), ("rows", .rows), ("columns", .columns)]
    return .layout(names.first { Array($0.0.utf8) == word }?.1)
}

/// "#title TEXT": TEXT valid UTF-8 that `--title` takes.
private func titleModel(_ text: [UInt8]) -> Line? {
    guard let title = rest(after: "#title", text) else { return nil }
    return .title(String(validating: title, as: UTF8.self).flatMap { try? CollageTitle($0) })
}

/// "#caption", then a quoted TEXT (a backslash only before a quote or a
/// backslash, standing for it), a blank, then PATH or `#focus X Y PATH`.
/// nil when the line is not a `#caption` line.
private func captionModel(_ text: [UInt8]) -> Line? {
    guard let quoted = rest(after: "#caption", text) else { return nil }
    let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
    guard quoted.first == quote else { return .bad }
    var caption: [UInt8] = []
    var escaped = false
    var end: Int?
    for (index, byte) in quoted.enumerated().dropFirst() {
        if escaped {
            guard byte == quote || byte == backslash else { return .bad }
            caption.append(byte)
            escaped = false
        } else if byte == backslash {
            escaped = true
        } else if byte == quote {
            end = index
            break
        } else {
            caption.append(byte)
        }
    }
    guard let end, end + 1 < quoted.count, [0x20, 0x09].contains(quoted[end + 1]),
          let string = String(validating: caption, as: UTF8.self),
          let checked = try? Photo.caption(parsing: string) else { return .bad }
    let path = Array(quoted[(end + 1)...].drop { $0 == 0x20 || $0 == 0x09 })
    guard let first = path.first else { return .bad }
    guard first == UInt8(ascii: "#") else { return .photo(path, nil, checked) }
    guard case let .photo(focusPath, focus, nil) = focusModel(path) else { return .bad }
    return .photo(focusPath, focus, checked)
}

/// "#focus", a blank, then X, Y and PATH separated by blanks (spaces, tabs);
/// X and Y a number, or a number and "%", from 0 to 1 once divided.
private func focusModel(_ text: [UInt8]) -> Line {
    let blank: Set<UInt8> = [0x20, 0x09]
    let head = Array("#focus".utf8)
    guard text.count > head.count, Array(text[0..<head.count]) == head, blank.contains(text[head.count]) else {
        return .comment
    }
    var fields: [[UInt8]] = []
    var at = head.count
    for _ in 0..<2 {
        while at < text.count, blank.contains(text[at]) { at += 1 }
        let start = at
        while at < text.count, !blank.contains(text[at]) { at += 1 }
        fields.append(Array(text[start..<at]))
    }
    while at < text.count, blank.contains(text[at]) { at += 1 }
    let path = Array(text[at...])
    func fraction(_ field: [UInt8]) -> Double? {
        var body = field
        let percent = body.last == UInt8(ascii: "%")
        if percent { body.removeLast() }
        guard let text = String(validating: body, as: UTF8.self), let value = Double(text), value.isFinite else { return nil }
        let result = percent ? value / 100 : value
        return result >= 0 && result <= 1 ? result : nil
    }
    guard !path.isEmpty, let x = fraction(fields[0]), let y = fraction(fields[1]),
          let focus = try? PhotoFocus(x: x, y: y) else { return .bad }
    return .photo(path, focus, nil)
}

private func trimmed(_ bytes: [UInt8]) -> [UInt8] {
    if !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) {
        return Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
    }
    let isSpace: (UInt8) -> Bool = { $0 == 0x20 || (0x09...0x0D).contains($0) }
    return Array(bytes.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
}

/// A modelled group: its lines that are not comments, in order.
private typealias ModelGroup = [(line: Int, kind: Line)]

private func model(_ lines: [[UInt8]]) -> [ModelGroup] {
    var groups: [ModelGroup] = []
    var open: ModelGroup = []
    for (index, raw) in lines.enumerated() {
        let text = trimmed(raw)
        let kind: Line = text.isEmpty ? .blank
            : text.first == UInt8(ascii: "#")
                ? layoutModel(text) ?? titleModel(text) ?? captionModel(text) ?? focusModel(text)
                : .photo(text, nil, nil)
        switch kind {
        case .blank:
            if !open.isEmpty { groups.append(open); open = [] }
        case .comment:
            break
        default:
            open.append((index + 1, kind))
        }
    }
    if !open.isEmpty { groups.append(open) }
    return groups
}

/// What a modelled group must be made of: its photos (line, bytes, focus,
/// caption), its layout and title, each from the first line setting it,
/// and the line its problem names (nil when it has none).
private struct Expected {
    var photos: [(line: Int, bytes: [UInt8], focus: PhotoFocus?, caption: String?)] = []
    var layout: LayoutMode?
    var title: CollageTitle?
    var problemLine: Int?
}

private func expectations(_ group: ModelGroup) -> Expected {
    var expected = Expected()
    var badLines: [Int] = []
    // Lines that mean a photo, bad #focus and #caption lines included.
    let firstPhotoLine = group.first { entry in
        switch entry.kind {
        case .layout, .title: return false
        default: return true
        }
    }?.line
    var layoutLines = 0, titleLines = 0
    for entry in group {
        // A setting line is wrong when it is not its collage's first of its
        // kind, is not above a photo, or does not parse.
        let placed = firstPhotoLine.map { entry.line < $0 } ?? false
        switch entry.kind {
        case let .photo(bytes, focus, caption):
            expected.photos.append((entry.line, bytes, focus, caption))
        case .bad:
            badLines.append(entry.line)
        case let .layout(mode):
            layoutLines += 1
            if layoutLines > 1 || !placed || mode == nil { badLines.append(entry.line) } else { expected.layout = mode }
        case let .title(title):
            titleLines += 1
            if titleLines > 1 || !placed || title == nil { badLines.append(entry.line) } else { expected.title = title }
        default:
            break
        }
    }
    expected.problemLine = badLines.min()
    return expected
}

/// Absolute against `base`, "." and repeated or trailing slashes removed,
/// "/.." as "/", and "x/.." removed only where x is a real folder (as the
/// kernel resolves it; checked here with FileManager, which does not follow
/// a final symbolic link): what the line must name.
private func expectedPath(_ line: [UInt8]) -> [UInt8] {
    let slash = UInt8(ascii: "/")
    let absolute = line.first == slash ? line : Array(base.utf8) + [slash] + line
    var components: [[UInt8]] = []
    func isRealFolder(_ parts: [[UInt8]]) -> Bool {
        let path = parts.flatMap { [slash] + $0 }
        guard !path.contains(0), let text = String(validating: path, as: UTF8.self),
              let type = try? FileManager.default.attributesOfItem(atPath: text)[.type] as? FileAttributeType
        else { return false }
        return type == .typeDirectory
    }
    for component in absolute.split(separator: slash).map(Array.init) {
        if component == [0x2E] { continue }
        if component == [0x2E, 0x2E] {
            if components.isEmpty { continue }
            if components.last != [0x2E, 0x2E] && isRealFolder(components) { components.removeLast(); continue }
        }
        components.append(component)
    }
    return components.isEmpty ? [slash] : components.flatMap { [slash] + $0 }
}

/// The lines of `bytes` as the format defines them: split at "\n"; a last
/// line without "\n" counts, an empty one after the final "\n" does not.
private func splitLines(_ bytes: [UInt8]) -> [[UInt8]] {
    var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
    if lines.last?.isEmpty == true { lines.removeLast() }
    return lines
}

private let base = "/fuzz/base"

private func readThroughFileDescriptor(_ bytes: [UInt8]) -> [BatchGroup] {
    guard let file = tmpfile() else { fail("tmpfile") }
    defer { fclose(file) }
    if !bytes.isEmpty && fwrite(bytes, 1, bytes.count, file) != bytes.count { fail("fwrite") }
    fflush(file)
    let fd = fileno(file)
    lseek(fd, 0, SEEK_SET)
    var reader = BatchListReader(fileDescriptor: fd, baseDirectory: base)
    var groups: [BatchGroup] = []
    while let group = reader.next() { groups.append(group) }
    if reader.readError != nil { fail("read error on a temporary file") }
    if reader.next() != nil { fail("a finished reader yielded another group") }
    return groups
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBatchList(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let lines = splitLines(bytes)

    var parser = BatchListParser(baseDirectory: base)
    var parsed: [BatchGroup] = []
    for (index, line) in lines.enumerated() {
        if let group = parser.consume(bytes: line, lineNumber: index + 1) {
            parsed.append(group)
        }
    }
    if let group = parser.finish() { parsed.append(group) }

    let streamed = readThroughFileDescriptor(bytes)
    if streamed != parsed { fail("the reader and the parser disagree: \(streamed.count) vs \(parsed.count) groups") }

    let expected = model(lines)
    if parsed.count != expected.count { fail("\(parsed.count) groups, the model says \(expected.count)") }
    var previousLast = 0
    for (index, (group, want)) in zip(parsed, expected).enumerated() {
        if group.number != index + 1 { fail("group \(index + 1) is numbered \(group.number)") }
        let wanted = expectations(want)
        let (wantPhotos, problemLine) = (wanted.photos, wanted.problemLine)
        if group.photos.count != wantPhotos.count { fail("group \(group.number): \(group.photos.count) photos, want \(wantPhotos.count)") }
        if let problemLine {
            guard let problem = group.problem, problem.hasPrefix("line \(problemLine): ") else {
                fail("group \(group.number): problem \(group.problem ?? "none"), the model says one naming line \(problemLine)")
            }
        } else if let problem = group.problem {
            fail("group \(group.number): problem \(problem), the model says none")
        }
        // One that cannot be made has no layout (title), or its first
        // #layout (#title) line's.
        let firstMode = want.lazy.compactMap { entry -> LayoutMode?? in
            if case let .layout(mode) = entry.kind { return mode } else { return nil }
        }.first ?? nil
        let firstTitle = want.lazy.compactMap { entry -> CollageTitle?? in
            if case let .title(title) = entry.kind { return title } else { return nil }
        }.first ?? nil
        if problemLine == nil ? group.layout != wanted.layout : group.layout != nil && group.layout != firstMode {
            fail("group \(group.number): layout \(String(describing: group.layout)), want \(String(describing: wanted.layout))")
        }
        if problemLine == nil ? group.title != wanted.title : group.title != nil && group.title != firstTitle {
            fail("group \(group.number): title \(String(describing: group.title)), want \(String(describing: wanted.title))")
        }
        if group.firstLine != want.first!.line || group.lastLine != want.last!.line {
            fail("group \(group.number): lines \(group.firstLine)-\(group.lastLine), want \(want.first!.line)-\(want.last!.line)")
        }
        if group.firstLine <= previousLast { fail("group \(group.number) overlaps the one before") }
        previousLast = group.lastLine
        for (photo, line) in zip(group.photos, wantPhotos) {
            if photo.focus != line.focus { fail("line \(line.line): focus \(String(describing: photo.focus)), want \(String(describing: line.focus))") }
            if photo.caption != line.caption {
                fail("line \(line.line): caption \(String(describing: photo.caption)), want \(String(describing: line.caption))")
            }
            let expected = expectedPath(line.bytes)
            if photo.fileSystemPath != expected {
                fail("line \(line.line) \(line.bytes) names \(photo.fileSystemPath), want \(expected)")
            }
            // Exact bytes when they are UTF-8 without NUL, lossy text otherwise.
            if photo.pathIsExact != (String(validating: expected, as: UTF8.self) != nil) {
                fail("line \(line.line): pathIsExact is \(photo.pathIsExact)")
            }
            // What the C engine is given: the exact bytes, or nothing at all.
            let cPath = photo.withFileSystemPath { String(cString: $0) }
            if expected.contains(0) ? cPath != nil : cPath == nil { fail("line \(line.line): C path \(String(describing: cPath))") }
        }
    }
    return 0
}
