import Testing
@testable import CollageKit

/// `--max-pixels`' value: parsed by the model, written back as it is typed,
/// so `--help` shows the default from the model (issue #21).
@Suite struct PixelLimitTests {
    @Test func countsParseWithDecimalMultiples() throws {
        #expect(try PixelLimit(parsing: "100000000").pixels == 100_000_000)
        #expect(try PixelLimit(parsing: "250M").pixels == 250_000_000)
        #expect(try PixelLimit(parsing: "100mp").pixels == 100_000_000)
        #expect(try PixelLimit(parsing: "1.5G").pixels == 1_500_000_000)
        #expect(try PixelLimit(parsing: "2k").pixels == 2_000)
        for bad in ["0", "0.4", "-5", "lots", "1.5X", "M", "1e9", ""] {
            #expect(throws: ValueError("'\(bad)' is not a pixel count such as 100000000 or 100M"), "\(bad)") { try PixelLimit(parsing: bad) }
        }
        #expect(throws: ValueError("'300000G' is out of range: 1 to 281474976710656 pixels")) { try PixelLimit(parsing: "300000G") }
    }

    /// What a refusal offers: the least round limit that lets the photo through.
    @Test func theLimitAdmittingACountIsRoundedUpAsItWouldBeTyped() {
        #expect(PixelLimit.admitting(200_000_000).description == "200M")
        #expect(PixelLimit.admitting(200_000_001).description == "201M")
        #expect(PixelLimit.admitting(230_400).description == "231K")
        #expect(PixelLimit.admitting(999).description == "999")
        #expect(PixelLimit.admitting(10_000_000_000).description == "10G")
    }

    @Test func aLimitIsWrittenAsItWouldBeTyped() throws {
        #expect(PixelLimit.default.description == "100M")
        #expect(PixelLimit.default.pixels == ImageEngine.defaultMaxDecodedPixels)
        #expect(try PixelLimit(parsing: "1.5G").description == "1500M")
        #expect(try PixelLimit(parsing: "123456").description == "123456")
        #expect(try PixelLimit(parsing: "2000").description == "2K")
        for typed in ["1", "999", "65K", "1.25G", "4000000001"] {
            let limit = try PixelLimit(parsing: typed)
            #expect(try PixelLimit(parsing: limit.description) == limit, "\(typed)")
        }
    }
}
