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

    @Test func collageRowsKeepTheCollagesProportions() throws {
        let previews = PreviewService(renderer: SizingRenderer())
        // 40 columns = 320 px; 16:9 is 180 px high = 11.25 rows of 16 px.
        #expect(previews.collageRows(columns: 40, canvas: .default) == 12)
        #expect(previews.collageRows(columns: 80, canvas: .default) == 23)
        // A portrait canvas: 320 px wide is 569 px high, 35.6 rows.
        #expect(previews.collageRows(columns: 40, canvas: try CanvasSize(width: 1080, height: 1920)) == 36)
    }
}
