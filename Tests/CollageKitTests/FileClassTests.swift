import Foundation
import Testing
import CollageTestSupport
@testable import CollageKit

/// Files that look like images but are not ones collage reads: listed dimmed
/// with the reason, so a folder of them is never silently empty (issue #22).
@Suite struct FileClassTests {
    let read = ["jpg", "jpeg", "png", "heic", "webp"]

    @Test func aPhotoshopDocumentIsKnownByItsBytesOrItsName() {
        let reason = FileClass.unreadable(reason: "a Photoshop document: export it as JPEG, PNG or TIFF")
        #expect(FileClass.unrecognised(name: "design.psd", firstBytes: [], readExtensions: read) == reason)
        #expect(FileClass.unrecognised(name: "design", firstBytes: Array("8BPS".utf8) + [0, 1], readExtensions: read) == reason)
    }

    @Test func imageFormatsCollageDoesNotReadAreNamed() {
        #expect(FileClass.unrecognised(name: "logo.SVG", firstBytes: Array("<svg".utf8), readExtensions: read)
                == .unreadable(reason: "an SVG drawing: not a format collage reads"))
        #expect(FileClass.unrecognised(name: "scan.bmp", firstBytes: Array("BM".utf8), readExtensions: read)
                == .unreadable(reason: "a BMP image: not a format collage reads"))
    }

    @Test func aNameThatPromisesAReadFormatOverOtherBytesIsSaidSo() {
        #expect(FileClass.unrecognised(name: "notes.heic", firstBytes: Array("not a photo".utf8), readExtensions: read)
                == .unreadable(reason: "named .heic, but its bytes are not that format (or any collage reads)"))
    }

    @Test func everythingElseIsNotListed() {
        #expect(FileClass.unrecognised(name: "notes.txt", firstBytes: Array("hello".utf8), readExtensions: read) == .other)
        #expect(FileClass.unrecognised(name: "Makefile", firstBytes: [], readExtensions: read) == .other)
    }

    @MainActor @Test func thePhotosScreenListsThemDimmedAndEnterSaysWhy() async throws {
        let browser = FakeBrowser(["/p": ["design.psd", "notes.txt", "a.jpg", "logo.svg"]])
        let collage = try makeViewModel()
        let (screen, _) = await makePhotosScreen(browser, at: "/p", collage: collage)
        #expect(names(screen) == ["a.jpg", "design.psd", "logo.svg"])
        #expect(screen.currentState.entries.map(\.kind) == [.photo, .unreadable, .unreadable])
        screen.handle(.down)
        screen.handle(.enter)
        #expect(screen.currentState.message == "design.psd: a Photoshop document: export it as JPEG, PNG or TIFF")
        #expect(collage.currentState.photos.isEmpty)
    }
}
