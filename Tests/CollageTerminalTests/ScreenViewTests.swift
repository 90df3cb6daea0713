import Foundation
import CollageTestSupport
import Testing
@testable import CollageKit
@testable import CollageTerminal

@Suite struct ScreenViewTests {
    @Test func theCollageScreenShowsTitlePhotosAndDimmedActions() {
        let state = CollageScreenViewModel.screenState(for: CollageState(photos: [Photo(path: "/x/cat.jpg")]))
        let screen = CollageScreenView.render(state, columns: 60, rows: 12)
        let lines = screen.text.components(separatedBy: "\n")
        #expect(lines[0] == " 1 photo")
        #expect(lines[2].hasPrefix(" 1. cat.jpg"))
        // The photo is highlighted (x, [ and ] act on it), across the list.
        #expect(screen.cells[2][1].style.reverse && screen.cells[2][20].style.reverse)
        #expect(lines[11] == " a add  x remove  HJKL crop  c clear  s save  q quit")
        // "s save" is dimmed: one photo cannot be saved; the keys of a set
        // ("HJKL") are as bold as one key.
        #expect(screen.cells[11][38].character == "s")
        #expect(screen.cells[11][38].style.dim)
        #expect(screen.cells[11][18].character == "H" && screen.cells[11][21].character == "L")
        #expect(screen.cells[11][21].style.bold && !screen.cells[11][23].style.bold)
        #expect(!screen.cells[11][1].style.dim)
        #expect(screen.cells[0][1].style.bold)
    }

    @Test func aPhotosFocusIsShownBesideIt() throws {
        let cat = Photo(path: "/x/cat.jpg").focused(try PhotoFocus(x: 0.5, y: 0.2))
        let state = CollageScreenViewModel.screenState(for: CollageState(photos: [cat, Photo(path: "/x/dog.jpg")]))
        let lines = CollageScreenView.render(state, columns: 80, rows: 12).text.components(separatedBy: "\n")
        #expect(lines[2].hasPrefix(" 1. cat.jpg  (focus 0.5,0.2)"))
        #expect(lines[3].hasPrefix(" 2. dog.jpg") && !lines[3].contains("focus"))
    }

    @Test func aMissingPhotoIsMarkedAndAFailedSaveSaysWhyUnderThePrompt() {
        let cat = Photo(path: "/x/cat.jpg"), dog = Photo(path: "/x/dog.jpg")
        var state = CollageScreenViewModel.screenState(for: CollageState(photos: [cat, dog], missing: [dog]))
        state.prompt = "out.jpg"
        state.message = "cannot save /w/out.jpg: /w/out.jpg already exists"
        let screen = CollageScreenView.render(state, columns: 70, rows: 12)
        let lines = screen.text.components(separatedBy: "\n")
        #expect(lines[3].hasPrefix(" 2. dog.jpg  (missing)"))
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
