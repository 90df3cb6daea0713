// FuzzMeasuresCache.swift — libFuzzer harness for the reader of `collage
// suggest`'s measures cache (MeasuresFile, Sources/CollageKit/Models/
// Suggestion/MeasuresFile.swift, which MeasuresCache reads and writes
// through), compiled by swiftc -sanitize=fuzzer,address together with the
// model files it is made of (see scripts/fuzz.sh and Fuzz/README.md).
//
// Each input is read twice:
//  - as the whole file: read only when its first line is the checksum of the
//    rest (a random change is never trusted);
//  - as the JSON after a correct checksum line, so that the fuzzer reaches
//    the JSON decoding and the measures' own decoding (the hash as hex, the
//    optional faces) rather than stopping at the checksum.
// Whatever it is, the reader returns or refuses, never crashes; what it
// returns holds only values a measure can have (finite, shares from 0 to 1,
// sizes not below zero), and the writer writes it back (an infinite number
// would make it throw) to bytes the reader reads as the same entries.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

private func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fuzz: broken promise: \(message)\n".utf8))
    abort()
}

private func check(_ entries: [String: MeasuresFile.Entry], _ what: String) {
    for (key, entry) in entries where !entry.isPlausible {
        fail("\(what): \(key) read with values no measure has: \(entry)")
    }
    let written: [UInt8]
    do {
        written = try MeasuresFile.bytes(of: entries)
    } catch {
        fail("\(what): what was read cannot be written back: \(error)")
    }
    guard let again = MeasuresFile.entries(reading: written) else { fail("\(what): the writer's bytes are not read back") }
    if again != entries { fail("\(what): \(entries.count) entries written, \(again.count) different ones read back") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMeasuresCache(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    if let entries = MeasuresFile.entries(reading: bytes) {
        if MeasuresFile.checked(bytes) == nil { fail("a file whose checksum fails was read") }
        check(entries, "the file")
    }

    let file = Array(MeasuresFile.checksum(bytes).utf8) + [UInt8(ascii: "\n")] + bytes
    if let entries = MeasuresFile.entries(reading: file) { check(entries, "the JSON") }
    return 0
}
