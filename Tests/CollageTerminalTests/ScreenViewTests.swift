import Foundation
import CollageTestSupport
import Testing
@testable import CollageKit
@testable import CollageTerminal

@Suite struct ScreenViewTests {
    @Test func theCollageScreenShowsTitlePhotosAndDimmedActions() {
        let state = CollageScreenViewModel.screenState(for: CollageState(photos: [Photo(path: "/x/cat.jpg")]))
        let screen = CollageScreenView.render(state, columns: 120, rows: 12)
        let lines = screen.text.components(separatedBy: "\n")
        #expect(lines[0] == " 1 photo")
        #expect(lines[2].hasPrefix(" 1. cat.jpg"))
        // The photo is highlighted (x, [ and ] act on it), across the list.
        #expect(screen.cells[2][1].style.reverse && screen.cells[2][20].style.reverse)
        // Every key fits in 120 columns.
        let keys = " ↑↓ select  a add  x remove  [] move  HJKL crop  F reset  e caption  t title  l layout  c clear  s save  q quit  ? keys"
        #expect(lines[11] == keys)
        // "s save" is dimmed: one photo cannot be saved; the keys of a set
        // ("HJKL") are as bold as one key.
        let save = column(of: "s save", in: keys), crop = column(of: "HJKL", in: keys)
        #expect(screen.cells[11][save].character == "s")
        #expect(screen.cells[11][save].style.dim)
        #expect(screen.cells[11][crop].character == "H" && screen.cells[11][crop + 3].character == "L")
        #expect(screen.cells[11][crop + 3].style.bold && !screen.cells[11][crop + 5].style.bold)
        #expect(!screen.cells[11][1].style.dim)
        #expect(screen.cells[0][1].style.bold)
    }

    /// The column `text` starts at in `line` (one cell per character).
    func column(of text: String, in line: String) -> Int {
        line.distance(from: line.startIndex, to: line.range(of: text)!.lowerBound)
    }

    @Test func theKeyBarListsEveryKeyAt200ColumnsAndTheMostUsedWithQuestionMarkAt80() {
        let state = CollageScreenViewModel.screenState(for: CollageState(photos: [Photo(path: "/x/a.jpg"), Photo(path: "/x/b.jpg")]))
        let wide = CollageScreenView.render(state, columns: 200, rows: 50).text.components(separatedBy: "\n")[49]
        for action in state.actions {
            #expect(wide.contains("\(action.key) \(action.label)"), "\(action.key) is missing from \(wide)")
        }
        for key in ["↑↓", " a ", " x ", "[]", "HJKL", " F ", " l ", " c ", " s ", " q ", " ? "] {
            #expect(wide.contains(key))
        }
        let narrow = CollageScreenView.render(state, columns: 80, rows: 24).text.components(separatedBy: "\n")[23]
        #expect(narrow == " a add  x remove  [] move  HJKL crop  l layout  c clear  s save  q quit  ? keys")
        // The narrowest screen still says how to save, quit and see the rest.
        let tiny = CollageScreenView.render(state, columns: 40, rows: 10).text.components(separatedBy: "\n")[9]
        #expect(tiny == " a add  c clear  s save  q quit  ? keys")
    }

    @Test func questionMarkShowsEveryKeyInPlaceOfThePhotosAndPicture() {
        var state = CollageScreenViewModel.screenState(for: CollageState(photos: [Photo(path: "/x/a.jpg")]))
        state.preview = .picture(TerminalPicture(kind: .symbols, columns: 10, rows: 5, lines: Array(repeating: "xxxxxxxxxx", count: 5)))
        state.showingKeys = true
        let screen = CollageScreenView.render(state, columns: 80, rows: 24)
        let text = screen.text
        #expect(screen.pictures.isEmpty)
        #expect(!text.contains("1. a.jpg"))
        for action in state.actions {
            #expect(text.contains(action.keys) && text.contains(action.help), "\(action.keys) is missing")
        }
        #expect(text.contains("next layout: auto, grid, rows, columns"))
        #expect(text.components(separatedBy: "\n")[23] == " Any key closes this list")
    }

    @Test func onTheSmallestScreenTheListOfKeysIsFlowedSoEveryKeyShows() {
        var state = CollageScreenViewModel.screenState(for: CollageState(photos: [Photo(path: "/x/a.jpg")]))
        state.showingKeys = true
        let text = CollageScreenView.render(state, columns: 40, rows: 10).text
        for action in state.actions {
            #expect(text.contains("\(action.keys) \(action.label)"), "\(action.keys) is missing from\n\(text)")
        }
    }

    @Test func aPictureThatCannotBeDrawnSaysWhyInFull() {
        var state = CollageScreenViewModel.screenState(for: CollageState(photos: [Photo(path: "/x/a.jpg")]))
        state.preview = .failed("a 200x200 canvas with a gap of 40 px and a margin of 60 px has no room for 6 photos in the grid layout")
        let lines = CollageScreenView.render(state, columns: 80, rows: 24).text.components(separatedBy: "\n")
        let pane = lines[2...5].map { String($0.dropFirst(34)) }
        #expect(pane == ["a 200x200 canvas with a gap of 40 px and a", "margin of 60 px has no room for 6 photos in",
                         "the grid layout", ""])
    }

    @Test func theLayoutAndCanvasShowAboveThePicture() {
        var state = CollageScreenViewModel.screenState(for: CollageState(photos: [Photo(path: "/x/a.jpg")]))
        let auto = CollageScreenView.render(state, columns: 80, rows: 24).text.components(separatedBy: "\n")
        // Above the picture, which starts at column 34.
        #expect(auto[1] == String(repeating: " ", count: 34) + "auto layout  1920x1080")
        state.layout = .rows
        state.canvas = "1920 wide"
        let rows = CollageScreenView.render(state, columns: 80, rows: 24)
        #expect(rows.text.components(separatedBy: "\n")[1].hasSuffix("rows layout  1920 wide"))
        #expect(rows.cells[1][34].style.bold && rows.cells[1][48].style.dim)
    }

    @Test func aLongSavePathKeepsItsEndInView() {
        var state = CollageScreenViewModel.screenState(for: CollageState(photos: [Photo(path: "/x/a.jpg")]))
        state.prompt = "/home/someone/Pictures/holidays/2024/the-long-summer/collage-20240801-120000.jpg"
        let line = CollageScreenView.render(state, columns: 60, rows: 12).text.components(separatedBy: "\n")[10]
        #expect(line.hasPrefix(" Save as: …"))
        #expect(line.hasSuffix("collage-20240801-120000.jpg▏"))
        #expect(line.count <= 59)
    }

    @Test func theTitlePromptAndTheTitleAboveThePicture() throws {
        var state = CollageScreenViewModel.screenState(
            for: CollageState(photos: [Photo(path: "/x/a.jpg")]),
            options: try CollageRenderOptions(layout: .grid, title: CollageTitle("Summer in Kyoto · 2026")))
        let shown = CollageScreenView.render(state, columns: 100, rows: 24).text.components(separatedBy: "\n")
        #expect(shown[1] == String(repeating: " ", count: 42) + "grid layout  1920x1080  “Summer in Kyoto · 2026”")
        // Cut to the picture's width when narrower.
        let narrow = CollageScreenView.render(state, columns: 80, rows: 24).text.components(separatedBy: "\n")
        #expect(narrow[1] == String(repeating: " ", count: 34) + "grid layout  1920x1080  “Summer in Kyoto · 2…")
        state.prompt = "Summer in 京都"
        state.promptPurpose = .title
        let screen = CollageScreenView.render(state, columns: 80, rows: 24)
        let lines = screen.text.components(separatedBy: "\n")
        #expect(lines[22] == " Title: Summer in 京都▏")
        #expect(lines[23] == " Enter set (empty: none)   Esc cancel   Ctrl-U clear")
        // 京 and 都 take two columns each: the cursor is in column 22.
        #expect(screen.cells[22][8].character == "S" && screen.cells[22][18].character == "京")
        #expect(screen.cells[22][19].isRightHalf && screen.cells[22][20].character == "都" && screen.cells[22][22].character == "▏")
        #expect(screen.cells[22][1].style.bold)
    }

    /// A caption of wide characters is cut at the list's width in columns,
    /// as the terminal draws it, on the highlighted row as on the others: it
    /// never reaches the gap before the picture (column 33 of 80).
    @Test("a caption of wide characters is cut by display columns", arguments: [0, 1])
    func wideCaptionsAreCutByColumns(highlighted: Int) throws {
        let caption = "東京の夏の思い出、二〇二六年の旅 🎉"
        let photos = [Photo(path: "/x/a.jpg").captioned(caption), Photo(path: "/x/b.jpg").captioned("🎉🎉 " + caption)]
        var state = CollageScreenViewModel.screenState(for: CollageState(photos: photos))
        state.highlighted = highlighted
        let picture = TerminalPicture(kind: .symbols, columns: 10, rows: 5, lines: Array(repeating: "xxxxxxxxxx", count: 5))
        state.preview = .picture(picture)
        let screen = CollageScreenView.render(state, columns: 80, rows: 24)
        let lines = screen.text.components(separatedBy: "\n")
        // " 1. a.jpg  “" takes columns 1-11, ten characters of two columns
        // 12-31, and "…" column 32, the list's last; a character of two
        // that would straddle the cut is left out (row 3: "…" in 31).
        #expect(lines[2].hasPrefix(" 1. a.jpg  “東京の夏の思い出、二…"))
        #expect(lines[3].hasPrefix(" 2. b.jpg  “🎉🎉 東京の夏の思い…"))
        #expect(screen.cells[2][32].character == "…" && screen.cells[3][31].character == "…")
        for row in [2, 3] {
            // The row takes the screen's 80 columns exactly, as the terminal draws it.
            #expect(screen.text(row: row).terminalColumns == 80, "row \(row): \(screen.text(row: row))")
            #expect(screen.cells[row][33] == .blank, "row \(row): the gap before the picture")
            #expect(screen.cells[row][32].style.reverse == (row == 2 + highlighted))
        }
        #expect(screen.pictures == [PlacedPicture(column: 34, row: 2, picture: picture)])
    }

    @Test func aPhotosFocusIsShownBesideIt() throws {
        let cat = Photo(path: "/x/cat.jpg").focused(try PhotoFocus(x: 0.5, y: 0.2))
        let state = CollageScreenViewModel.screenState(for: CollageState(photos: [cat, Photo(path: "/x/dog.jpg")]))
        let lines = CollageScreenView.render(state, columns: 80, rows: 12).text.components(separatedBy: "\n")
        #expect(lines[2].hasPrefix(" 1. cat.jpg  (focus 0.5,0.2)"))
        #expect(lines[3].hasPrefix(" 2. dog.jpg") && !lines[3].contains("focus"))
    }

    /// The empty collage's hint is read whole at 80 columns (and down to
    /// the smallest screen), not cut before the key to press.
    @Test func theEmptyCollagesHintFitsEightyColumns() {
        let empty = CollageScreenViewModel.screenState(for: CollageState(photos: []))
        for columns in [ScreenLayout.minimumColumns, 80] {
            let lines = CollageScreenView.render(empty, columns: columns, rows: 24).text.components(separatedBy: "\n")
            #expect(lines[2].hasPrefix(" No photos yet:") && lines[3].hasPrefix(" press a to add some."), "\(columns): \(lines)")
        }
        let wide = CollageScreenView.render(empty, columns: 140, rows: 24).text.components(separatedBy: "\n")
        #expect(wide[2].hasPrefix(" No photos yet: press a to add some."))
    }

    @Test func aMissingPhotoIsMarkedAndAFailedSaveSaysWhyUnderThePrompt() {
        let cat = Photo(path: "/x/cat.jpg"), dog = Photo(path: "/x/dog.jpg")
        var state = CollageScreenViewModel.screenState(for: CollageState(photos: [cat, dog], missing: [dog]))
        state.prompt = "out.jpg"
        state.message = "cannot save /w/out.jpg: /w/out.jpg already exists"
        let screen = CollageScreenView.render(state, columns: 70, rows: 12)
        let lines = screen.text.components(separatedBy: "\n")
        #expect(lines[3].hasPrefix(" 2. dog.jpg  (missing)"))
        let locked = CollageScreenView.render(CollageScreenViewModel.screenState(for: CollageState(
            photos: [cat, dog], absences: [cat: .unreadable(reason: "Permission denied")])), columns: 140, rows: 12)
        #expect(locked.text.components(separatedBy: "\n")[2].hasPrefix(" 1. cat.jpg  (unreadable (Permission denied))"))
        #expect(lines[10].hasPrefix(" Save as: out.jpg"))
        #expect(lines[11] == " cannot save /w/out.jpg: /w/out.jpg already exists")
    }

    @Test func photosAlreadyInTheCollageAreMarkedWithTheirCount() {
        var state = PhotosScreenState(directory: "/pics")
        let a = Photo(path: "/pics/a.jpg"), b = Photo(path: "/pics/b.jpg"), c = Photo(path: "/pics/c.jpg")
        state.entries = [a, b, c].map { DirectoryEntry(name: $0.fileName, file: $0, kind: .photo) }
        state.inCollage = [a: 1, c: 2]
        let lines = PhotosScreenView.render(state, columns: 80, rows: 12).text.components(separatedBy: "\n")
        #expect(lines[2].hasPrefix(" a.jpg  ✓") && !lines[2].hasPrefix(" a.jpg  ✓2"))
        #expect(lines[3] == " b.jpg")
        #expect(lines[4].hasPrefix(" c.jpg  ✓2"))
    }

    @Test func thePhotosScreenHighlightsAndScrolls() {
        var state = PhotosScreenState(directory: "/pics")
        state.entries = [DirectoryEntry(name: "trips", file: Photo(path: "/pics/trips"), kind: .folder)]
            + (1...30).map { DirectoryEntry(name: "p\($0).jpg", file: Photo(path: "/pics/p\($0).jpg"), kind: .photo) }
        state.highlighted = 20
        state.collageTitle = "2 photos"
        let screen = PhotosScreenView.render(state, columns: 70, rows: 14)
        let lines = screen.text.components(separatedBy: "\n")
        #expect(lines[0] == " 2 photos · add photos")
        #expect(lines[1] == " /pics")
        // 9 list rows; the highlight (p20.jpg) sits in the middle.
        let listed = lines[2..<11].map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(listed == ["p16.jpg", "p17.jpg", "p18.jpg", "p19.jpg", "p20.jpg", "p21.jpg", "p22.jpg", "p23.jpg", "p24.jpg"])
        #expect(screen.cells[6][1].style.reverse)
        #expect(!screen.cells[5][1].style.reverse)
        #expect(lines[11].hasPrefix(" 21/31"))
    }

    @Test func aPictureIsPlacedBesideTheList() {
        var state = PhotosScreenState(directory: "/pics")
        state.entries = [DirectoryEntry(name: "a.jpg", file: Photo(path: "/pics/a.jpg"), kind: .photo)]
        state.highlighted = 0
        let picture = TerminalPicture(kind: .symbols, columns: 10, rows: 5, lines: Array(repeating: "xxxxxxxxxx", count: 5))
        state.preview = .picture(picture)
        let screen = PhotosScreenView.render(state, columns: 80, rows: 24)
        #expect(screen.pictures == [PlacedPicture(column: 34, row: 2, picture: picture)])
    }

    @Test func aTinyWindowAsksForMoreRoom() {
        let screen = CollageScreenView.render(CollageScreenViewModel.screenState(for: CollageState(photos: [])), columns: 30, rows: 8)
        #expect(screen.text.hasPrefix("Make the window larger"))
    }
}
