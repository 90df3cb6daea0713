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
//  - a `#layout MODE` line is a line of its group (in its line range); the
//    group has that layout when it is the group's only one, comes before its
//    first photo, has at least one photo after it and MODE is a layout; any
//    other `#layout` line marks the group not makeable, and the problem
//    names the earliest such line (or bad `#focus` line);
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
/// for `#focus X Y PATH`), a `#focus` line that does not parse, or a
/// `#layout` line with its mode (nil when it names none of the layouts).
private enum Line { case blank, comment, photo([UInt8], PhotoFocus?), bad, layout(LayoutMode?) }

/// "#layout", then the end of the line or a blank (space, tab), then blanks
/// and MODE, the rest of the line: one of the four names in any ASCII case.
/// nil when the line is not a `#layout` line ("#layouts", "#layout-x").
private func layoutModel(_ text: [UInt8]) -> Line? {
    let blank: Set<UInt8> = [0x20, 0x09]
    let head = Array("#layout".utf8)
    guard text.count >= head.count, Array(text[0..<head.count]) == head else { return nil }
    if text.count > head.count && !blank.contains(text[head.count]) { return nil }
    var at = head.count
    while at < text.count, blank.contains(text[at]) { at += 1 }
    let word = text[at...].map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
    let names: [(String, LayoutMode)] = [("grid", .grid), ("auto", .auto), ("rows", .rows), ("columns", .columns)]
    return .layout(names.first { Array($0.0.utf8) == word }?.1)
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
    return .photo(path, focus)
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
            : text.first == UInt8(ascii: "#") ? layoutModel(text) ?? focusModel(text) : .photo(text, nil)
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

/// What a modelled group must be made of: its photos (bytes, focus, line),
/// its layout, and the line its problem names (nil when it has none).
private func expectations(_ group: ModelGroup)
    -> (photos: [(line: Int, bytes: [UInt8], focus: PhotoFocus?)], layout: LayoutMode?, problemLine: Int?) {
    var photos: [(line: Int, bytes: [UInt8], focus: PhotoFocus?)] = []
    var badLines: [Int] = []
    // Lines that mean a photo, bad #focus lines included.
    let photoLines = group.filter { if case .layout = $0.kind { return false } else { return true } }.map(\.line)
    let layoutLines = group.compactMap { entry -> (line: Int, mode: LayoutMode?)? in
        if case let .layout(mode) = entry.kind { return (entry.line, mode) } else { return nil }
    }
    for entry in group {
        switch entry.kind {
        case let .photo(bytes, focus): photos.append((entry.line, bytes, focus))
        case .bad: badLines.append(entry.line)
        default: break
        }
    }
    var layout: LayoutMode?
    for (index, entry) in layoutLines.enumerated() {
        let abovePhotos = photoLines.first.map { entry.line < $0 } ?? false
        if index > 0 || !abovePhotos || entry.mode == nil {
            badLines.append(entry.line)
        } else {
            layout = entry.mode
        }
    }
    return (photos, layout, badLines.min())
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
        let (wantPhotos, wantLayout, problemLine) = expectations(want)
        if group.photos.count != wantPhotos.count { fail("group \(group.number): \(group.photos.count) photos, want \(wantPhotos.count)") }
        if let problemLine {
            guard let problem = group.problem, problem.hasPrefix("line \(problemLine): ") else {
                fail("group \(group.number): problem \(group.problem ?? "none"), the model says one naming line \(problemLine)")
            }
        } else if let problem = group.problem {
            fail("group \(group.number): problem \(problem), the model says none")
        }
        // One that cannot be made has no layout, or its first #layout line's.
        let firstMode = want.lazy.compactMap { entry -> LayoutMode?? in
            if case let .layout(mode) = entry.kind { return mode } else { return nil }
        }.first ?? nil
        if problemLine == nil ? group.layout != wantLayout : group.layout != nil && group.layout != firstMode {
            fail("group \(group.number): layout \(String(describing: group.layout)), want \(String(describing: wantLayout))")
        }
        if group.firstLine != want.first!.line || group.lastLine != want.last!.line {
            fail("group \(group.number): lines \(group.firstLine)-\(group.lastLine), want \(want.first!.line)-\(want.last!.line)")
        }
        if group.firstLine <= previousLast { fail("group \(group.number) overlaps the one before") }
        previousLast = group.lastLine
        for (photo, line) in zip(group.photos, wantPhotos) {
            if photo.focus != line.focus { fail("line \(line.line): focus \(String(describing: photo.focus)), want \(String(describing: line.focus))") }
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
