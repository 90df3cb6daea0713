// FuzzBatchList.swift — libFuzzer harness for the batch list format
// (BatchListParser and BatchListReader, Sources/CollageKit/Models/BatchList.swift),
// compiled by swiftc -sanitize=fuzzer,address together with the two model
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
//  - every photo path is absolute, without "." or ".." components.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

private func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fuzz: broken promise: \(message)\n".utf8))
    abort()
}

/// The format, modelled independently: for each line, nil (blank: ends a
/// group), "" (a comment) or the trimmed text (a photo).
private enum Line { case blank, comment, photo(String) }

private func model(_ lines: [[UInt8]]) -> [[(line: Int, text: String)]] {
    var groups: [[(line: Int, text: String)]] = []
    var open: [(line: Int, text: String)] = []
    for (index, bytes) in lines.enumerated() {
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let kind: Line = text.isEmpty ? .blank : text.first == "#" ? .comment : .photo(text)
        switch kind {
        case .blank:
            if !open.isEmpty { groups.append(open); open = [] }
        case .comment:
            break
        case let .photo(text):
            open.append((index + 1, text))
        }
    }
    if !open.isEmpty { groups.append(open) }
    return groups
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
        if let group = parser.consume(String(decoding: line, as: UTF8.self), lineNumber: index + 1) {
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
        if group.photos.count != want.count { fail("group \(group.number): \(group.photos.count) photos, want \(want.count)") }
        if group.firstLine != want.first!.line || group.lastLine != want.last!.line {
            fail("group \(group.number): lines \(group.firstLine)-\(group.lastLine), want \(want.first!.line)-\(want.last!.line)")
        }
        if group.firstLine <= previousLast { fail("group \(group.number) overlaps the one before") }
        previousLast = group.lastLine
        for photo in group.photos {
            let path = photo.path
            if !path.hasPrefix("/") { fail("relative path \(path.debugDescription)") }
            let components = path.split(separator: "/", omittingEmptySubsequences: false)
            if components.contains(".") || components.contains("..") {
                fail("unnormalised path \(path.debugDescription)")
            }
            // A relative line lands under the base folder unless it climbs out with "..".
            if let text = want.first(where: { _ in true })?.text, !text.hasPrefix("/"), !text.contains(".."),
               group.photos.first == photo, !path.hasPrefix(base) {
                fail("relative \(text.debugDescription) resolved outside \(base): \(path.debugDescription)")
            }
        }
    }
    return 0
}
