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
        // The edge at round(1001 / 2) = 501 (halves up): the second cell is a
        // pixel narrower and ends at the canvas's edge (the original's 501-pixel
        // tiles overhung it by one).
        #expect(GridLayout(count: 2).cells(canvasWidth: 1001, canvasHeight: 500) == [
            CellRect(x: 0, y: 0, width: 501, height: 500),
            CellRect(x: 501, y: 0, width: 500, height: 500),
        ])
    }

    @Test func threePhotosLeaveTheFourthCellEmpty() {
        #expect(GridLayout(count: 3).cells(canvasWidth: 1000, canvasHeight: 701) == [
            CellRect(x: 0, y: 0, width: 500, height: 351),
            CellRect(x: 500, y: 0, width: 500, height: 351),
            CellRect(x: 0, y: 351, width: 500, height: 350),
        ])
    }

    @Test func fivePhotosOnACanvasNotDivisibleByThree() {
        // Edges at round(1000 i / 3) = 0, 333, 667, 1000: the last column is a
        // pixel wider and reaches the right edge (the original's 333-pixel
        // tiles left a background column there).
        let cells = GridLayout(count: 5).cells(canvasWidth: 1000, canvasHeight: 600)
        #expect(cells.map(\.x) == [0, 333, 667, 0, 333])
        #expect(cells.map(\.width) == [333, 334, 333, 333, 334])
        #expect(cells.map(\.y) == [0, 0, 0, 300, 300])
        #expect(cells.allSatisfy { $0.height == 300 })
    }

    @Test func sixPhotosOnA1366x768ScreenReachTheRightEdge() {
        // 1366 / 3 = 455.33: edges at 0, 455, 911, 1366 (the original's
        // 455-pixel tiles ended at 1365, a background column at the right).
        let cells = GridLayout(count: 6).cells(canvasWidth: 1366, canvasHeight: 768)
        #expect(cells.map(\.x) == [0, 455, 911, 0, 455, 911])
        #expect(cells.map(\.width) == [455, 456, 455, 455, 456, 455])
        #expect(cells.map(\.y) == [0, 0, 0, 384, 384, 384])
        #expect(cells.allSatisfy { $0.height == 384 })
        #expect(cells.map { $0.x + $0.width }.max() == 1366)
    }

    @Test func fourPhotosOnOddSides() {
        // Edges at round(1001 / 2) = 501 and round(999 / 2) = 500 (halves up).
        let cells = GridLayout(count: 4).cells(canvasWidth: 1001, canvasHeight: 999)
        #expect(cells == [
            CellRect(x: 0, y: 0, width: 501, height: 500),
            CellRect(x: 501, y: 0, width: 500, height: 500),
            CellRect(x: 0, y: 500, width: 501, height: 499),
            CellRect(x: 501, y: 500, width: 500, height: 499),
        ])
    }

    @Test func gapLiesBetweenCellsOnly() {
        // (1920 - 2 * 10) / 3 = 633.33: edges at 0, 633, 1267, 1900 of the
        // 1900 pixels less the gaps; (1080 - 10) / 2 = 535.
        let cells = GridLayout(count: 6).cells(canvasWidth: 1920, canvasHeight: 1080, gap: 10)
        #expect(cells.map(\.x) == [0, 643, 1287, 0, 643, 1287])
        #expect(cells.map(\.width) == [633, 634, 633, 633, 634, 633])
        #expect(cells.map(\.y) == [0, 0, 0, 545, 545, 545])
        #expect(cells.allSatisfy { $0.height == 535 })
    }

    @Test("every gap is the gap, and the cells reach the canvas's edges", arguments: [
        (2, 1001, 500, 0), (3, 1000, 701, 3), (5, 1000, 600, 7), (6, 1366, 768, 0), (6, 1366, 768, 10),
        (4, 1001, 999, 1), (6, 17, 13, 1), (5, 16384, 2, 0),
    ])
    func cellsTileTheCanvas(count: Int, width: Int, height: Int, gap: Int) {
        let grid = GridLayout(count: count)
        let cells = grid.cells(canvasWidth: width, canvasHeight: height, gap: gap)
        #expect(cells.count == count)
        let columns = Array(cells.prefix(grid.columns))
        for (left, right) in zip(columns, columns.dropFirst()) { #expect(right.x - (left.x + left.width) == gap) }
        #expect(columns.first?.x == 0 && columns.last.map { $0.x + $0.width } == width)
        if grid.rows == 2 {
            #expect(cells[grid.columns].y - (cells[0].y + cells[0].height) == gap)
            #expect(cells[grid.columns].y + cells[grid.columns].height == height)
        } else {
            #expect(cells[0].height == height)
        }
        // No two cells more than a pixel apart in either side.
        #expect(cells.map(\.width).max()! - cells.map(\.width).min()! <= 1)
        #expect(cells.map(\.height).max()! - cells.map(\.height).min()! <= 1)
    }

    @Test func aGapThatLeavesNoRoomGivesNoCells() {
        #expect(GridLayout(count: 6).cells(canvasWidth: 20, canvasHeight: 20, gap: 10).isEmpty)
    }

    @Test func noPhotosNoCells() {
        #expect(GridLayout(count: 0).cells(canvasWidth: 100, canvasHeight: 100).isEmpty)
    }
}
