import CollageTestSupport
import Testing
@testable import CollageKit

@Suite struct GridLayoutTests {
    @Test("rows and columns follow the original app", arguments: [
        (1, 1, 1), (2, 1, 2), (3, 2, 2), (4, 2, 2), (5, 2, 3), (6, 2, 3),
    ])
    func grid(count: Int, rows: Int, columns: Int) {
        let layout = GridLayout(count: count)
        #expect(layout.rows == rows)
        #expect(layout.columns == columns)
    }

    @Test func sixPhotosOnFullHD() {
        let cells = GridLayout(count: 6).cells(canvasWidth: 1920, canvasHeight: 1080)
        #expect(cells == [
            CellRect(x: 0, y: 0, width: 640, height: 540),
            CellRect(x: 640, y: 0, width: 640, height: 540),
            CellRect(x: 1280, y: 0, width: 640, height: 540),
            CellRect(x: 0, y: 540, width: 640, height: 540),
            CellRect(x: 640, y: 540, width: 640, height: 540),
            CellRect(x: 1280, y: 540, width: 640, height: 540),
        ])
    }

    @Test func onePhotoFillsTheCanvas() {
        #expect(GridLayout(count: 1).cells(canvasWidth: 801, canvasHeight: 601)
            == [CellRect(x: 0, y: 0, width: 801, height: 601)])
    }

    @Test func twoPhotosSideBySideOnAnOddWidth() {
        // round(1001 / 2) = 501 (half away from zero): the second cell overhangs by one pixel.
        #expect(GridLayout(count: 2).cells(canvasWidth: 1001, canvasHeight: 500) == [
            CellRect(x: 0, y: 0, width: 501, height: 500),
            CellRect(x: 501, y: 0, width: 501, height: 500),
        ])
    }

    @Test func threePhotosLeaveTheFourthCellEmpty() {
        #expect(GridLayout(count: 3).cells(canvasWidth: 1000, canvasHeight: 701) == [
            CellRect(x: 0, y: 0, width: 500, height: 351),
            CellRect(x: 500, y: 0, width: 500, height: 351),
            CellRect(x: 0, y: 351, width: 500, height: 351),
        ])
    }

    @Test func fivePhotosOnACanvasNotDivisibleByThree() {
        // round(1000 / 3) = 333: one pixel column on the right stays background.
        let cells = GridLayout(count: 5).cells(canvasWidth: 1000, canvasHeight: 600)
        #expect(cells.map(\.x) == [0, 333, 666, 0, 333])
        #expect(cells.map(\.y) == [0, 0, 0, 300, 300])
        #expect(cells.allSatisfy { $0.width == 333 && $0.height == 300 })
    }

    @Test func fourPhotosRoundingUp() {
        // round(1001 / 2) = 501, round(999 / 2) = 500 (499.5 rounds away from zero).
        let cells = GridLayout(count: 4).cells(canvasWidth: 1001, canvasHeight: 999)
        #expect(cells == [
            CellRect(x: 0, y: 0, width: 501, height: 500),
            CellRect(x: 501, y: 0, width: 501, height: 500),
            CellRect(x: 0, y: 500, width: 501, height: 500),
            CellRect(x: 501, y: 500, width: 501, height: 500),
        ])
    }

    @Test func gapLiesBetweenCellsOnly() {
        // (1920 - 2 * 10) / 3 = 633.33 -> 633; (1080 - 10) / 2 = 535.
        let cells = GridLayout(count: 6).cells(canvasWidth: 1920, canvasHeight: 1080, gap: 10)
        #expect(cells.map(\.x) == [0, 643, 1286, 0, 643, 1286])
        #expect(cells.map(\.y) == [0, 0, 0, 545, 545, 545])
        #expect(cells.allSatisfy { $0.width == 633 && $0.height == 535 })
    }

    @Test func aGapThatLeavesNoRoomGivesNoCells() {
        #expect(GridLayout(count: 6).cells(canvasWidth: 20, canvasHeight: 20, gap: 10).isEmpty)
    }

    @Test func noPhotosNoCells() {
        #expect(GridLayout(count: 0).cells(canvasWidth: 100, canvasHeight: 100).isEmpty)
    }
}
