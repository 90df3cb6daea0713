// PNG files built byte by byte, for tests that need what no encoder here
// makes (grey, grey + alpha and palette images; absurd headers; bad CRCs).
// One copy, used by every test target.

public enum PNGFile {
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Big-endian 32 bits, as PNG stores lengths and sizes.
    public static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }

    /// A chunk: length (or `declaredLength`, to lie about it), type, data, CRC.
    public static func chunk(_ type: String, _ data: [UInt8], declaredLength: UInt32? = nil) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(declaredLength ?? UInt32(data.count)) + body + be32(crc32(body))
    }

    /// `data` as a zlib stream of stored (uncompressed) blocks: valid for any
    /// decoder, and written without a compressor.
    public static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let count = min(65535, data.count - start)
            let final: UInt8 = start + count == data.count ? 1 : 0
            out += [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[start..<start + count]
            start += count
        } while start < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return out + be32(b << 16 | a)
    }

    /// An 8-bit PNG of `colourType` (0 grey, 2 RGB, 3 palette, 4 grey + alpha,
    /// 6 RGBA) from its samples, row by row without filter bytes; `palette`
    /// (RGB triplets) and `transparency` (tRNS) for palette images.
    public static func encode(width: Int, height: Int, colourType: UInt8, samples: [UInt8],
                              palette: [UInt8]? = nil, transparency: [UInt8]? = nil) -> [UInt8] {
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(colourType)]!
        precondition(samples.count == width * height * channels)
        var raw: [UInt8] = []
        raw.reserveCapacity((width * channels + 1) * height)
        for row in 0..<height {
            raw.append(0)  // filter: none
            raw += samples[row * width * channels..<(row + 1) * width * channels]
        }
        var file = signature + chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, colourType, 0, 0, 0])
        if let palette { file += chunk("PLTE", palette) }
        if let transparency { file += chunk("tRNS", transparency) }
        return file + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
    }
}
