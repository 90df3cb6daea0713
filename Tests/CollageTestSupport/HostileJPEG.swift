// Hostile files built in code, shared by the engine's and the command
// line's tests (a test target cannot import another test target).

/// A greyscale progressive JPEG of `side` x `side` pixels: one DC scan, then
/// `scans` identical AC scans, each a few end-of-band runs of 32767 blocks
/// (libjpeg warns about the repeated bands but reads them all, walking every
/// block each time). Its Huffman tables hold one code each.
public func manyScansJPEG(side: Int, scans: Int) -> [UInt8] {
    var out: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
    out += [0xFF, 0xC2, 0x00, 0x0B, 0x08, UInt8(side >> 8), UInt8(side & 0xFF), UInt8(side >> 8), UInt8(side & 0xFF),
            0x01, 0x01, 0x11, 0x00]
    func oneCode(_ value: UInt8) -> [UInt8] { [1] + [UInt8](repeating: 0, count: 15) + [value] }
    out += [0xFF, 0xC4, 0x00, 0x14, 0x00] + oneCode(0x00)  // DC: difference 0
    out += [0xFF, 0xC4, 0x00, 0x14, 0x10] + oneCode(0xE0)  // AC: EOB14, then 14 bits of run
    let blocks = (side / 8) * (side / 8)
    func packed(_ bits: [Bool]) -> [UInt8] {
        var bytes: [UInt8] = []
        var bits = bits
        while bits.count % 8 != 0 { bits.append(true) }
        for start in Swift.stride(from: 0, to: bits.count, by: 8) {
            let byte = bits[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
            bytes.append(byte)
            if byte == 0xFF { bytes.append(0) }  // byte stuffing
        }
        return bytes
    }
    out += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00] + packed([Bool](repeating: false, count: blocks))
    let runs = (blocks + 32766) / 32767
    let scan = packed(Array(repeating: [false] + [Bool](repeating: true, count: 14), count: runs).flatMap { $0 })
    for _ in 0..<scans { out += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x01, 0x3F, 0x00] + scan }
    return out + [0xFF, 0xD9]
}
