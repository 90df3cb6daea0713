import CollageImaging
import Foundation
import Testing

// GIF through giflib (formats/gif_load.c): the conformance files against
// what ImageMagick shows for them, GIFs written here byte by byte for what
// those do not have (a local colour table, interlacing, a frame smaller
// than its screen), and the refusals: cut short, corrupt, over the limit.

/// A GIF89a of one frame written by hand: 2-bit indices, each LZW code
/// after a clear code, so every code stays 3 bits wide (valid, if large).
private struct HandmadeGIF {
    var screenWidth = 4, screenHeight = 4
    var global: [[UInt8]]? = nil       // up to 4 RGB entries
    var local: [[UInt8]]? = nil
    var left = 0, top = 0, width = 4, height = 4
    var interlaced = false
    var transparent: UInt8? = nil
    var indices: [UInt8] = []          // width x height, in file order

    private static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private static func table(_ entries: [[UInt8]]) -> [UInt8] {
        (0..<4).flatMap { $0 < entries.count ? entries[$0] : [0, 0, 0] }
    }

    var bytes: [UInt8] {
        var out = Array("GIF89a".utf8) + Self.le16(screenWidth) + Self.le16(screenHeight)
        out += [global == nil ? 0 : 0x81, 0, 0]  // a 4-entry global table, when there is one
        if let global { out += Self.table(global) }
        if let transparent { out += [0x21, 0xF9, 4, 1, 0, 0, transparent, 0] }
        out += [0x2C] + Self.le16(left) + Self.le16(top) + Self.le16(width) + Self.le16(height)
        out += [(local == nil ? 0 : 0x81) | (interlaced ? 0x40 : 0)]
        if let local { out += Self.table(local) }
        // Codes: clear (4) before each index, then end (5); packed 3 bits
        // each from the low bit.
        var codes = indices.flatMap { [UInt8(4), $0] }
        codes.append(5)
        var data = [UInt8](), bits = 0, count = 0
        for code in codes {
            bits |= Int(code) << count
            count += 3
            while count >= 8 { data.append(UInt8(bits & 0xFF)); bits >>= 8; count -= 8 }
        }
        if count > 0 { data.append(UInt8(bits & 0xFF)) }
        out.append(2)  // LZW minimum code size
        for start in stride(from: 0, to: data.count, by: 255) {
            let block = data[start..<min(start + 255, data.count)]
            out += [UInt8(block.count)] + block
        }
        return out + [0, 0x3B]
    }
}

private let red: [UInt8] = [255, 0, 0], green: [UInt8] = [0, 255, 0], blue: [UInt8] = [0, 0, 255],
    white: [UInt8] = [255, 255, 255]

@Suite("GIF (giflib)")
struct GIFTests {
    @Test("Still, transparent and animated GIFs draw as ImageMagick shows them (their first frame)",
          arguments: ["still", "transparent", "animated"])
    func conformance(name: String) throws {
        try FormatFixtures.expectDrawnLikeReference(FormatFixtures.path("gif", name + ".gif"),
                                                    FormatFixtures.path("gif", name + ".png"), largest: 0, mean: 0)
    }

    /// Issue #32: GIFs other readers show that were refused. With no colour
    /// table the picture is a grey ramp (its reference: the same GIF with
    /// that ramp as its table); stray bytes before the image are skipped,
    /// as ImageMagick skips them.
    @Test("A GIF with no colour table, and one with stray bytes before its image, draw as other readers show them",
          arguments: ["no-colour-table", "stray-bytes"])
    func openedAsOthersOpenThem(name: String) throws {
        let path = FormatFixtures.path("gif", name + ".gif")
        #expect(FormatFixtures.admit(path).0 == CI_OK, "\(FormatFixtures.admit(path).2)")
        try FormatFixtures.expectDrawnLikeReference(path, FormatFixtures.path("gif", name + ".png"), largest: 0, mean: 0)
    }

    /// Issue #32: a first frame whose data stops halfway (the file itself
    /// whole) is drawn as far as it goes, as browsers draw a GIF loading.
    @Test("A first frame whose data ends early is drawn as far as it goes, the rest background")
    func shortFrameDrawsWhatIsThere() throws {
        let path = FormatFixtures.path("gif", "short-frame.gif")
        #expect(FormatFixtures.admit(path).0 == CI_OK, "\(FormatFixtures.admit(path).2)")
        let whole = try FormatFixtures.reference(FormatFixtures.path("gif", "short-frame.png"), background: FormatFixtures.background)
        let drawn = FormatFixtures.drawAtOwnSize(path)
        try #require(drawn.status == CI_OK, "\(drawn.message)")
        let row = whole.width * 3
        let same = (0..<whole.height).first { Array(drawn.rgb[$0 * row..<($0 + 1) * row]) != Array(whole.pixels[$0 * row..<($0 + 1) * row]) } ?? whole.height
        // Half the data holds about half the rows; below the row it stops in, background.
        #expect(same >= whole.height / 4 && same < whole.height, "\(same) rows as the whole frame")
        let bg = FormatFixtures.background
        let rest = drawn.rgb[min(drawn.rgb.count, (same + 1) * row)...]
        #expect(stride(from: rest.startIndex, to: rest.endIndex, by: 3).allSatisfy {
            rest[$0] == bg.r && rest[$0 + 1] == bg.g && rest[$0 + 2] == bg.b
        })
    }

    /// Issue #42: Pillow's issue_2811.gif says an LZW minimum code size of
    /// 11, which giflib refuses (it stops at 8) and Pillow and browsers
    /// decode: decoded here, to the level of Pillow's decode, nothing said.
    @Test func anLZWCodeSizeOver8IsDecodedAsPillowDecodesIt() throws {
        let path = FormatFixtures.path("gif", "issue_2811.gif")
        #expect(FormatFixtures.admit(path).0 == CI_OK, "\(FormatFixtures.admit(path).2)")
        var placed = ci_placement()
        var error = ci_error()
        #expect(ci_check_complete(path, nil, &placed, &error) == CI_OK && placed.corrupt_data == 0)
        try FormatFixtures.expectDrawnLikeReference(path, FormatFixtures.path("gif", "issue_2811.png"), largest: 0, mean: 0)
    }

    /// Its sub-blocks cut after a third (then the terminator and the
    /// trailer: the file itself whole): the rows that came are drawn as
    /// Pillow draws them, the rest is background, and add is told it was
    /// cut short. A code size over 11 (codes past GIF's 12 bits) is refused.
    @Test func anLZWCodeSizeOver8CutShortIsDrawnAsFarAsItGoes() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: FormatFixtures.path("gif", "issue_2811.gif"))))
        // 13 bytes of screen, its 256-entry table, the 10-byte descriptor, the code size (11), the sub-blocks.
        let codeSize = 13 + 768 + 10
        #expect(whole[codeSize - 10] == 0x2C && whole[codeSize] == 11)
        var blocks = codeSize + 1
        for _ in 0..<7 { blocks += Int(whole[blocks]) + 1 }
        let cut = folder.appendingPathComponent("cut.gif").path
        try Data(whole[..<blocks] + [0x00, 0x3B]).write(to: URL(fileURLWithPath: cut))
        var placed = ci_placement()
        var error = ci_error()
        #expect(ci_check_complete(cut, nil, &placed, &error) == CI_OK && placed.corrupt_data > 0, "\(PNGTestSupport.message(error))")
        #expect(placed.cut_short == CI_CUT_ROWS_EMPTY && placed.drawn_share > 0.2 && placed.drawn_share < 1, "\(placed.drawn_share)")
        let reference = try FormatFixtures.reference(FormatFixtures.path("gif", "issue_2811.png"), background: FormatFixtures.background)
        let drawn = FormatFixtures.drawAtOwnSize(cut)
        try #require(drawn.status == CI_OK, "\(drawn.message)")
        let row = reference.width * 3
        let same = (0..<reference.height).first {
            Array(drawn.rgb[$0 * row..<($0 + 1) * row]) != Array(reference.pixels[$0 * row..<($0 + 1) * row])
        } ?? reference.height
        #expect(same >= reference.height / 5 && same < reference.height, "\(same) rows as the whole frame")
        let bg = FormatFixtures.background
        let rest = drawn.rgb[min(drawn.rgb.count, (same + 1) * row)...]
        #expect(stride(from: rest.startIndex, to: rest.endIndex, by: 3).allSatisfy {
            rest[$0] == bg.r && rest[$0 + 1] == bg.g && rest[$0 + 2] == bg.b
        })
        var twelve = whole
        twelve[codeSize] = 12
        let refused = try FormatFixtures.refusal(twelve, named: "twelve.gif", in: folder)
        #expect(refused.add == CI_ERR_CORRUPT && refused.addMessage.hasSuffix("broken GIF data (an LZW code size of 12, over 11)"),
                "\(refused.addMessage)")
    }

    /// GIF's LZW as an encoder writes it (giflib's order: a code's width
    /// grows once the next entry would need it; when the table is full it
    /// stops growing, with no clear code: a decoder must keep going).
    static func lzw(_ indices: [Int], minimum: Int) -> (bytes: [UInt8], filled: Bool) {
        let clear = 1 << minimum
        var size = minimum + 1, next = clear + 2
        var table: [Int: Int] = [:]  // prefix code << 12 | index -> code
        var out: [UInt8] = [], bits = 0, count = 0
        func put(_ code: Int) {
            bits |= code << count
            count += size
            while count >= 8 { out.append(UInt8(bits & 0xFF)); bits >>= 8; count -= 8 }
            if next >= 1 << size && size < 12 { size += 1 }
        }
        put(clear)
        var prefix = indices[0]
        for index in indices.dropFirst() {
            if let code = table[prefix << 12 | index] { prefix = code; continue }
            put(prefix)
            if next < 4096 { table[prefix << 12 | index] = next; next += 1 }
            prefix = index
        }
        put(prefix)
        put(clear + 1)
        if count > 0 { out.append(UInt8(bits & 0xFF)) }
        return (out, next == 4096)
    }

    /// A one-frame GIF of `indices` (a 4-entry global table) whose LZW
    /// minimum code size is `minimum`.
    static func gif(width: Int, height: Int, table: [[UInt8]], indices: [Int], minimum: Int) -> (bytes: [UInt8], filled: Bool) {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        var out = Array("GIF89a".utf8) + le16(width) + le16(height) + [0x81, 0, 0] + table.joined()
        out += [0x2C] + le16(0) + le16(0) + le16(width) + le16(height) + [0, UInt8(minimum)]
        let coded = lzw(indices, minimum: minimum)
        var data = coded.bytes[...]
        while !data.isEmpty {
            let block = data.prefix(255)
            out += [UInt8(block.count)] + block
            data = data.dropFirst(block.count)
        }
        return (out + [0x00, 0x3B], coded.filled)
    }

    /// Code sizes 9 and 10 start narrower than 12 bits: their codes grow
    /// to 12 and the table fills (4096 codes) with no clear code; 8 is
    /// giflib's, the same picture. An index past the colour table is black
    /// (300 needs a code size over 8), as giflib's are.
    @Test("LZW code sizes giflib refuses decode index for index, their codes growing to 12 bits", arguments: [8, 9, 10])
    func wideCodesDecode(minimum: Int) throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (width, height) = (160, 160)
        var seed: UInt32 = 7
        let indices: [Int] = (0..<width * height).map { i in
            seed = seed &* 1_103_515_245 &+ 12345
            let value = Int(seed >> 16) % 5 == 4 && i % 7 == 0 ? 300 : Int(seed >> 16) % 4
            return minimum == 8 && value == 300 ? 0 : value
        }
        let table: [[UInt8]] = [red, green, blue, white]
        let path = folder.appendingPathComponent("wide-\(minimum).gif").path
        let file = Self.gif(width: width, height: height, table: table, indices: indices, minimum: minimum)
        #expect(file.filled, "the table fills")
        try Data(file.bytes).write(to: URL(fileURLWithPath: path))
        #expect(FormatFixtures.admit(path).0 == CI_OK, "\(FormatFixtures.admit(path).2)")
        let drawn = FormatFixtures.drawAtOwnSize(path)
        try #require(drawn.status == CI_OK, "\(drawn.message)")
        let expected = indices.flatMap { $0 < 4 ? table[$0] : [0, 0, 0] }
        // Counted, not compared whole: a failure would print 76,800 samples twice.
        let differing = zip(drawn.rgb, expected).filter { $0 != $1 }.count
        #expect(drawn.rgb.count == expected.count && differing == 0, "\(differing) samples differ")
        if minimum > 8 { #expect(indices.contains(300)) }
    }

    @Test("The probe says GIF, its size and whether anything is transparent")
    func probe() {
        for (name, alpha) in [("still", false), ("transparent", true), ("animated", false)] {
            var info = ci_photo_info()
            var error = ci_error()
            #expect(ci_probe_file(FormatFixtures.path("gif", name + ".gif"), &info, &error) == CI_OK)
            #expect(info.format == CI_FORMAT_GIF && info.orientation == 1)
            #expect((info.has_alpha != 0) == alpha, "\(name)")
        }
    }

    @Test("A local colour table, interlaced rows, and a frame smaller than its screen over the background")
    func handmade() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 2 x 9, interlaced: stored rows 0, 8, 4, 2, 6, 1, 3, 5, 7; the row
        // index is its colour, so a wrong order shows.
        var gif = HandmadeGIF()
        gif.screenWidth = 2
        gif.screenHeight = 9
        gif.width = 2
        gif.height = 9
        gif.global = [white, white, white, white]  // not used: the local table wins
        gif.local = [red, green, blue, white]
        gif.interlaced = true
        let order = [0, 8, 4, 2, 6, 1, 3, 5, 7]
        gif.indices = order.flatMap { [UInt8($0 % 4), UInt8($0 % 4)] }
        let file = folder.appendingPathComponent("interlaced.gif").path
        try Data(gif.bytes).write(to: URL(fileURLWithPath: file))
        let drawn = FormatFixtures.drawAtOwnSize(file)
        try #require(drawn.status == CI_OK, "\(drawn.message)")
        let colours = [red, green, blue, white]
        for y in 0..<9 {
            #expect(Array(drawn.rgb[(y * 2 * 3)..<(y * 2 * 3 + 3)]) == colours[y % 4], "row \(y)")
        }

        // A 2 x 2 frame at (1, 1) of a 4 x 3 screen, index 3 transparent:
        // the rest of the screen and that pixel are the background.
        var small = HandmadeGIF()
        small.screenWidth = 4
        small.screenHeight = 3
        small.global = [red, green, blue, white]
        small.left = 1
        small.top = 1
        small.width = 2
        small.height = 2
        small.transparent = 3
        small.indices = [0, 1, 2, 3]
        let offset = folder.appendingPathComponent("offset.gif").path
        try Data(small.bytes).write(to: URL(fileURLWithPath: offset))
        var info = ci_photo_info()
        var error = ci_error()
        #expect(ci_probe_file(offset, &info, &error) == CI_OK)
        #expect(info.width == 4 && info.height == 3 && info.has_alpha != 0)
        let placed = FormatFixtures.drawAtOwnSize(offset)
        try #require(placed.status == CI_OK, "\(placed.message)")
        let bg: [UInt8] = [FormatFixtures.background.r, FormatFixtures.background.g, FormatFixtures.background.b]
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(placed.rgb[((y * 4 + x) * 3)..<((y * 4 + x) * 3 + 3)]) }
        #expect(pixel(0, 0) == bg && pixel(3, 2) == bg && pixel(0, 1) == bg)
        #expect(pixel(1, 1) == red && pixel(2, 1) == green && pixel(1, 2) == blue)
        #expect(pixel(2, 2) == bg)  // the transparent index

        // RGBA from ci_decode_memory keeps the transparency.
        var options = ci_decode_options()
        options.keep_alpha = 1
        var image = ci_image()
        let bytes = small.bytes
        #expect(ci_decode_memory(bytes, bytes.count, "offset.gif", &options, &image, &error) == CI_OK)
        defer { ci_image_free(&image) }
        let rgba = PNGTestSupport.pixels(of: image)
        #expect(rgba[(1 * 4 + 1) * 4 + 3] == 255 && rgba[3] == 0 && rgba[(2 * 4 + 2) * 4 + 3] == 0)
    }

    @Test("A GIF cut short or broken is refused with its name and the reason")
    func brokenFilesAreRefused() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: FormatFixtures.path("gif", "still.gif"))))
        // Cut inside the first frame's data (issue #42: other readers draw
        // it): added and drawn as far as it goes, and said cut short with
        // how much came, the rest empty (the background shows).
        let cut = try FormatFixtures.refusal(Array(good.prefix(good.count * 2 / 3)), named: "cut.gif", in: folder)
        #expect(cut.add == CI_OK && cut.draw == CI_OK, "\(cut.addMessage) \(cut.drawMessage)")
        var placed = ci_placement()
        var error = ci_error()
        #expect(ci_check_complete(folder.appendingPathComponent("cut.gif").path, nil, &placed, &error) == CI_OK)
        #expect(placed.cut_short == CI_CUT_ROWS_EMPTY && placed.drawn_share > 0 && placed.drawn_share < 1,
                "\(placed.cut_short) \(placed.drawn_share)")
        // Only the trailer missing: the picture is whole, the file is not.
        let noTrailer = try FormatFixtures.refusal(Array(good.dropLast()), named: "no-trailer.gif", in: folder)
        #expect(noTrailer.add == CI_ERR_CORRUPT, "\(noTrailer.addMessage)")
        // An animation cut in its second frame: refused when added.
        let animated = [UInt8](try Data(contentsOf: URL(fileURLWithPath: FormatFixtures.path("gif", "animated.gif"))))
        let cutAnimation = try FormatFixtures.refusal(Array(animated.prefix(animated.count - 200)),
                                                      named: "cut-animation.gif", in: folder)
        #expect(cutAnimation.add == CI_ERR_CORRUPT, "\(cutAnimation.addMessage)")
        // The image separator replaced: a block of no known kind, skipped,
        // and no image found after it.
        var corrupt = HandmadeGIF()
        corrupt.global = [red, green, blue, white]
        corrupt.indices = [UInt8](repeating: 1, count: 16)
        var bytes = corrupt.bytes
        let separator = try #require(bytes.firstIndex(of: 0x2C))
        bytes[separator] = 0x77
        let broken = try FormatFixtures.refusal(bytes, named: "corrupt.gif", in: folder)
        #expect(broken.add == CI_ERR_CORRUPT && broken.draw == CI_ERR_CORRUPT, "\(broken.addMessage)")
    }

    @Test("A screen of 50,000 x 50,000 is refused by the pixel limit before anything is allocated")
    func pixelLimit() throws {
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: FormatFixtures.path("gif", "still.gif"))))
        bytes[6] = UInt8(50_000 & 0xFF); bytes[7] = UInt8(50_000 >> 8)
        bytes[8] = UInt8(50_000 & 0xFF); bytes[9] = UInt8(50_000 >> 8)
        let huge = try FormatFixtures.refusal(bytes, named: "huge.gif", in: folder)
        #expect(huge.add == CI_OK)  // the header is fine; `add` checks the size against --max-pixels
        #expect(huge.draw == CI_ERR_TOO_LARGE && huge.drawMessage.contains("limit"), "\(huge.drawMessage)")
        // And a limit below the fixture's own 96 x 64.
        let small = FormatFixtures.drawAtOwnSize(FormatFixtures.path("gif", "still.gif"), maxPixels: 96 * 64 - 1)
        #expect(small.status == CI_ERR_TOO_LARGE, "\(small.message)")
    }
}
