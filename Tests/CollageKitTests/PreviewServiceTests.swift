import CollageTestSupport
import Foundation
import Testing
@testable import CollageKit

@Suite struct PreviewServiceTests {
    /// Hands back the size it was asked for, so the test sees the geometry.
    struct SizingRenderer: PictureRendering {
        func pixelSize(columns: Int, rows: Int) -> (width: Int, height: Int) { (columns * 8, rows * 16) }
        func render(_ image: RGBImage, columns: Int, rows: Int) -> TerminalPicture {
            TerminalPicture(kind: .symbols, columns: columns, rows: rows, lines: ["\(image.width)x\(image.height)"])
        }
    }

    /// A preview's result, awaited: the service works on its own queue and
    /// answers on the main actor (at once from its cache).
    @MainActor
    func result(_ ask: (@escaping @MainActor (Result<TerminalPicture, Error>) -> Void) -> PreviewTicket) async
        -> Result<TerminalPicture, Error>? {
        await withCheckedContinuation { done in
            _ = ask { done.resume(returning: $0) }
        }
    }

    @MainActor @Test func aPhotoIsDecodedForThePicturesPixelsOnceThenComesFromTheCache() async throws {
        let engine = FakeDrawer()
        let previews = PreviewService(renderer: SizingRenderer(), engine: engine)
        let first = await result { previews.photoPreview(photo("a.jpg"), columns: 10, rows: 5, completion: $0) }
        #expect(try first?.get().lines == ["80x80"])
        let again = await result { previews.photoPreview(photo("a.jpg"), columns: 10, rows: 5, completion: $0) }
        #expect(try again?.get().lines == ["80x80"])
        let wider = await result { previews.photoPreview(photo("a.jpg"), columns: 20, rows: 5, completion: $0) }
        #expect(try wider?.get().lines == ["160x80"])
        #expect(engine.decodedBoxes == ["a.jpg 80x80", "a.jpg 160x80"], "the second picture came from the cache")
        let gone = await result { previews.photoPreview(photo("gone.jpg"), columns: 10, rows: 5, completion: $0) }
        #expect(throws: ImageEngineError.self) { try gone?.get() }
    }

    /// Centred crops are drawn at the pixels the picture shows; smart ones at
    /// the saved canvas's size, where faces can be seen, then scaled down.
    @MainActor @Test func collagePicturesDrawTheSavedPlanAtTheSizeTheCropNeeds() async throws {
        let engine = FakeDrawer()
        let previews = PreviewService(renderer: SizingRenderer(), engine: engine)
        let photos = [photo("a.jpg"), photo("b.jpg")]
        let centre = try CollageRenderOptions(gap: 20, crop: .centre)
        let picture = try previews.collagePicture(photos, options: centre, columns: 40, rows: 12)
        #expect(picture.lines == ["320x180"])
        let saved = try engine.plan(photos, options: centre)
        #expect(engine.drawnPlans.last == saved.scaled(by: 320.0 / 1920))
        // Smart, on a canvas four times the default's area: drawn at the default's area.
        let smart = try CollageRenderOptions(size: RequestedSize(width: 3840, height: 2160))
        _ = try previews.collagePicture(photos, options: smart, columns: 40, rows: 12)
        #expect(engine.drawnPlans.last?.canvas == (try CanvasSize(width: 1920, height: 1080)))
        // Where the last picture centred each crop, for exactly its photos and options.
        let centres = try [PhotoFocus(x: 0.75, y: 0.5), PhotoFocus(x: 0.75, y: 0.5)]
        #expect(previews.cropCentres(of: photos, options: smart) == centres)
        #expect(previews.cropCentres(of: photos, options: centre) == nil)
        // A layout with no room is the plan's refusal, passed on.
        let cramped = try CollageRenderOptions(size: RequestedSize(width: 100, height: 50), gap: 100)
        let refused = await result { previews.collagePreview(photos, options: cramped, columns: 40, rows: 12, completion: $0) }
        #expect(throws: LayoutError.self) { try refused?.get() }
    }

    @Test func collageRowsKeepTheCollagesProportions() throws {
        let previews = PreviewService(renderer: SizingRenderer(), engine: ImageEngine())
        // 40 columns = 320 px; 16:9 is 180 px high = 11.25 rows of 16 px.
        #expect(previews.collageRows(columns: 40, canvas: .default) == 12)
        #expect(previews.collageRows(columns: 80, canvas: .default) == 23)
        // A portrait canvas: 320 px wide is 569 px high, 35.6 rows.
        #expect(previews.collageRows(columns: 40, canvas: try CanvasSize(width: 1080, height: 1920)) == 36)
    }
}
