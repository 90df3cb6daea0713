import CollageImaging
import Testing

/// The one shrink-on-load rule (shrink.c) that the draws, the decode API, the
/// fuzz model and the Swift side share.
@Suite struct ShrinkRuleTests {
    @Test func scaledSizesRoundUpAsLibjpegDoes() {
        #expect(ci_scaled_size(4032, 1) == 504)
        #expect(ci_scaled_size(4033, 1) == 505)
        #expect(ci_scaled_size(3024, 3) == 1134)
        #expect(ci_scaled_size(7, 1) == 1)
        #expect(ci_scaled_size(65500, 8) == 65500)
    }

    @Test func coverTargetFillsTheCellAndAddsTheFilterHeadroom() {
        // 4032 x 3024 into 640 x 540: the height decides (540 / 3024 > 640 / 4032).
        let target = ci_shrink_target_for_box(4032, 3024, 640, 540, 0)
        #expect(target.height == 540 && target.width == 720)
        #expect(target.filter_width == 960 && target.filter_height == 720)
        // The deciding axis comes out exactly as the cell, not one pixel more.
        let exact = ci_shrink_target_for_box(1000, 1000, 333, 100, 0)
        #expect(exact.width == 333 && exact.height == 333)
    }

    @Test func containTargetFitsTheBox() {
        let target = ci_shrink_target_for_box(4032, 3024, 80, 80, 1)
        #expect(target.width == 80 && target.height == 60)
    }

    /// The fuzz model once clamped to the photo after the headroom: a 7 px
    /// photo then got scale 7/8 where the draw used 8/8.
    @Test func headroomIsTakenFromWhatThePhotoHas() {
        let target = ci_shrink_target_for_box(7, 7, 20, 20, 0)
        #expect(target.width == 7 && target.height == 7)
        #expect(target.filter_width == 10 && target.filter_height == 10)
        #expect(ci_shrink_scale(7, 7, target.filter_width, target.filter_height) == 8)
        #expect(ci_draw_scale(7, 7, 1, 20, 20, nil) == 8)
    }

    @Test func smallestScaleThatCovers() {
        #expect(ci_shrink_scale(4032, 3024, 504, 378) == 1)
        #expect(ci_shrink_scale(4032, 3024, 505, 378) == 2)
        #expect(ci_shrink_scale(4032, 3024, 0, 0) == 8)
        #expect(ci_shrink_scale(100, 100, 500, 500) == 8)
    }

    @Test func drawScaleTurnsTheTargetForOrientations5To8() {
        // Stored 4032 x 3024, shown upright 3024 x 4032 (orientation 6), in a
        // 640 x 540 cell: the width decides, 640 x 854, filter 853 x 1139 upright,
        // so 1139 x 853 stored: 3/8 (1512 x 1134).
        #expect(ci_draw_scale(4032, 3024, 6, 640, 540, nil) == 3)
        // Upright (orientation 1) the same cell needs 960 x 720: 2/8 is 1008 x 756.
        #expect(ci_draw_scale(4032, 3024, 1, 640, 540, nil) == 2)
    }

    @Test func drawScaleFallsBackToTheCoverSizeAtThePixelLimit() {
        // 8000 x 8000 into a 6000 x 6000 cell: the headroom wants 8/8 (64 MP),
        // covering wants 6/8 (36 MP). Under a 50 MP limit only the latter fits.
        var limits = ci_limits(max_pixels: 50_000_000)
        #expect(ci_draw_scale(8000, 8000, 1, 6000, 6000, nil) == 8)
        #expect(ci_draw_scale(8000, 8000, 1, 6000, 6000, &limits) == 6)
    }
}

/// Pixel counts in messages (issue #14): units that make sense at any size.
@Suite struct PixelWordingTests {
    func describe(_ pixels: UInt64, _ limit: UInt64) -> (String, String) {
        var a = [CChar](repeating: 0, count: 48), b = [CChar](repeating: 0, count: 48)
        ci_describe_pixels(pixels, limit, &a, &b, 48)
        // Through the buffers' pointers: String(cString:) of an array is deprecated in Swift 6.
        return (a.withUnsafeBufferPointer { String(cString: $0.baseAddress!) },
                b.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    @Test func smallLimitsCountPixels() {
        #expect(describe(120_000, 40_000) == ("120000 pixels", "40000 pixels"))
    }

    @Test func megapixelsWithTheDecimalsThatTellThemApart() {
        #expect(describe(10_000_000_000, 100_000_000) == ("10000.0 megapixels", "100.0 megapixels"))
        #expect(describe(100_000_001, 100_000_000) == ("100.000001 megapixels", "100.000000 megapixels"))
        #expect(describe(100_040_000, 100_000_000) == ("100.04 megapixels", "100.00 megapixels"))
    }
}
