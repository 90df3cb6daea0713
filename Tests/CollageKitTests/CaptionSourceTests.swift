import Foundation
import Testing
@testable import CollageKit

/// What caption each photo gets (`--caption`), in which locale's words,
/// and where its band goes.
@Suite struct CaptionSourceTests {
    let photo = Photo(path: "/photos/Grandma at the lake.2.JPG")

    @Test func aPersonsOwnCaptionWinsOverEverySource() {
        let own = photo.captioned("Grandma, 1962")
        for source in CaptionSource.allCases {
            #expect(source.caption(for: own, dateTaken: "2019:07:04 18:30:00") == "Grandma, 1962")
        }
    }

    @Test func nameIsTheFileNameWithoutItsExtension() {
        #expect(CaptionSource.name.caption(for: photo, dateTaken: nil) == "Grandma at the lake.2")
        #expect(CaptionSource.name.caption(for: Photo(path: "/p/.hidden"), dateTaken: nil) == ".hidden")
        // A name with a line break in it (files can have one) is drawn as one line.
        #expect(CaptionSource.name.caption(for: Photo(path: "/p/two\nlines.jpg"), dateTaken: nil) == "two lines")
    }

    @Test func noneAndAMissingDateGiveNoCaption() {
        #expect(CaptionSource.none.caption(for: photo, dateTaken: "2019:07:04 18:30:00") == nil)
        #expect(CaptionSource.date.caption(for: photo, dateTaken: nil) == nil)
        #expect(CaptionSource.date.caption(for: photo, dateTaken: "not a date") == nil)
    }

    @Test("the date in the locale's medium format", arguments: [
        ("en_US_POSIX", "Jul 4, 2019"),
        ("de_DE", "04.07.2019"),
        ("en_GB", "4 Jul 2019"),
        ("ja_JP", "2019/07/04"),
    ])
    func dateInTheLocalesWords(_ locale: String, _ expected: String) {
        // 23:30 is a minute from the next day: the date is the camera's own, never moved by a time zone.
        #expect(CaptionSource.date.caption(for: photo, dateTaken: "2019:07:04 23:59:00", locale: Locale(identifier: locale)) == expected)
    }

    @Test func anOffsetFromUTCLeavesTheLocalDate() {
        // 23:59 in New York is the next day in UTC: the caption keeps the camera's day.
        let us = Locale(identifier: "en_US")
        #expect(CaptionSource.date.caption(for: photo, dateTaken: "2019:07:04 23:59:00-04:00", locale: us)
                == CaptionSource.date.caption(for: photo, dateTaken: "2019:07:04 23:59:00", locale: us))
        #expect(CaptionSource.date.caption(for: photo, dateTaken: "2019:07:04 23:59:00-04:00", locale: us) != nil)
    }

    @Test func theLocaleIsChosenAsPOSIXSays() {
        #expect(CaptionSource.environmentLocale(["LANG": "de_DE.UTF-8"]).identifier == "de_DE")
        #expect(CaptionSource.environmentLocale(["LANG": "de_DE.UTF-8", "LC_TIME": "fr_FR.UTF-8@euro"]).identifier == "fr_FR")
        #expect(CaptionSource.environmentLocale(["LANG": "de_DE.UTF-8", "LC_TIME": "fr_FR", "LC_ALL": "ja_JP"]).identifier == "ja_JP")
        // An empty variable is unset; C, POSIX and nothing are en_US_POSIX.
        #expect(CaptionSource.environmentLocale(["LC_ALL": "", "LANG": "en_GB.UTF-8"]).identifier == "en_GB")
        #expect(CaptionSource.environmentLocale(["LANG": "C.UTF-8"]).identifier == "en_US_POSIX")
        #expect(CaptionSource.environmentLocale([:]).identifier == "en_US_POSIX")
    }

    @Test func theOptionsWordsParseInAnyCase() throws {
        #expect(try CaptionSource(parsing: "DATE") == .date)
        #expect(throws: ValueError("caption 'title' is not none, name or date")) { try CaptionSource(parsing: "title") }
        #expect(throws: ValueError("layout 'grids' is not auto, grid, rows or columns: did you mean grid?")) { try LayoutMode(parsing: "grids") }
        #expect(throws: ValueError("fit 'contian' is not cover or contain: did you mean contain?")) { try FitMode(parsing: "contian") }
        // --crop is a choice of words like the others, with one other spelling, never listed.
        #expect(try CropMode(parsing: "Center") == .centre && CropMode(parsing: "ATTENTION") == .attention)
        #expect(throws: ValueError("crop 'middle' is not smart, centre or attention")) { try CropMode(parsing: "middle") }
        #expect(CropMode.allCases.map(\.rawValue) == ["smart", "centre", "attention"])
    }

    @Test func oneLineOfTextIsWhatIsDrawn() {
        #expect(TextLine.cleaned("  a\tb\r\nc\u{2028}d\u{1B}e\u{7F}  ") == "a b  c de")
        #expect(TextLine.cleaned("\u{07}\n ") == "")
    }

    @Test("a band lies at the bottom of its cell, the full width, never taller than the cell", arguments: [
        (CellRect(x: 10, y: 20, width: 300, height: 200), 36, 30.0, CellRect(x: 10, y: 166, width: 300, height: 54)),
        (CellRect(x: 0, y: 0, width: 50, height: 20), 36, 30.0, CellRect(x: 0, y: 0, width: 50, height: 20)),
    ])
    func bandGeometry(cell: CellRect, lineHeight: Int, pixels: Double, expected: CellRect) {
        #expect(CaptionBand.rect(in: cell, lineHeight: lineHeight, fontPixels: pixels) == expected)
        let box = CaptionBand.textBox(in: expected, fontPixels: pixels)
        #expect(box.x >= expected.x && box.x + box.width <= expected.x + expected.width && box.height == expected.height)
    }

    @Test func captionsAre70PercentOfTheTitleAndAtMostATenthOfTheShortestCell() {
        let cells = [CellRect(x: 0, y: 0, width: 640, height: 540), CellRect(x: 640, y: 0, width: 640, height: 540)]
        #expect(CaptionBand.fontPixels(base: 43, cells: cells) == 30)
        #expect(CaptionBand.fontPixels(base: 43, cells: cells + [CellRect(x: 0, y: 540, width: 100, height: 130)]) == 13)
        // Never under the legible size, in however small a cell ...
        #expect(CaptionBand.fontPixels(base: 43, cells: cells + [CellRect(x: 0, y: 540, width: 100, height: 60)]) == 12)
        #expect(CaptionBand.fontPixels(base: 14, cells: cells) == 12)
        // ... nor over the title (a small --font's).
        #expect(CaptionBand.fontPixels(base: 8, cells: cells) == 8)
        #expect(CaptionBand.fontPixels(base: 2, cells: cells) == 2)
    }

    @Test("the band keeps the text at 4.5:1 over any photo, white or black", arguments: [
        RGBColor.white, .black, try! RGBColor(parsing: "yellow"), try! RGBColor(parsing: "navy"),
    ])
    func bandContrast(text: RGBColor) {
        let (drawn, band) = CaptionBand.colours(text: text == .white ? nil : text)
        #expect(drawn == text)
        func over(_ photo: UInt8, _ band: UInt8) -> UInt8 {
            let alpha = Int(CaptionBand.opacity)
            return UInt8((Int(band) * alpha + Int(photo) * (255 - alpha) + 127) / 255)
        }
        // The worst photo under the band is the colour the band is not.
        let worst: UInt8 = band == .black ? 255 : 0
        let shade = over(worst, band.red)
        let contrast = TitleBand.contrast(drawn, RGBColor(red: shade, green: shade, blue: shade))
        #expect(contrast >= 4.5, "\(text) on \(shade): \(contrast)")
    }
}
