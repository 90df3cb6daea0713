import CollageTestSupport
import Foundation
import Testing
@testable import CollageKit

/// Captions through the built binary: each in its photo's cell, on a band
/// that keeps it legible whatever the photo, from the source `--caption`
/// names or the person's own.
@Suite struct CaptionDrawingEndToEndTests {
    let layouts = LayoutEndToEndTests()
    typealias Rect = TitleEndToEndTests.Rect

    /// Flat photos of these colours, and one of random noise (a busy photo) for nil, added in order.
    func collage(_ colours: [[UInt8]?]) throws -> CLI {
        let cli = try CLI()
        var generator = SystemRandomNumberGenerator()
        var paths: [String] = []
        for (index, colour) in colours.enumerated() {
            let (width, height) = (160, 120)
            let samples = colour.map { c in (0..<width * height).flatMap { _ in c } }
                ?? (0..<width * height * 3).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let url = cli.workingDirectory.appendingPathComponent("photo-\(index).png")
            try Data(PNGFile.encode(width: width, height: height, colourType: 2, samples: samples)).write(to: url)
            paths.append(url.path)
        }
        let added = try cli.run(["add"] + paths)
        #expect(added.status == 0, "\(added.stderr)")
        return cli
    }

    func image(_ cli: CLI, _ name: String) throws -> DecodedImage {
        try layouts.pixels(cli.workingDirectory.appendingPathComponent(name).path)
    }

    static func pixel(_ image: DecodedImage, _ x: Int, _ y: Int) -> [UInt8] {
        let at = (y * image.width + x) * 3
        return Array(image.rgb[at..<at + 3])
    }

    @Test("each caption lies in its cell's band, across the bottom", arguments: [
        ["--layout", "grid", "--size", "800x600"],
        ["--layout", "auto", "--size", "600x800", "--margin", "12", "--gap", "6"],
        ["--layout", "rows", "--size", "900x", "--title", "Names"],
    ])
    func captionsStayInTheirCells(arguments: [String]) throws {
        let cli = try collage([[230, 30, 30], [30, 200, 30], [30, 30, 230], [200, 30, 200]])
        let plan = try layouts.dryRun(cli, arguments + ["--caption", "name", "--keep"])
        let entries = try #require(plan["photos"] as? [[String: Any]])
        let cells = entries.map { Rect($0["cell"]) }
        let bands = entries.map { Rect(($0["caption"] as? [String: Any])?["band"]) }
        #expect(entries.map { ($0["caption"] as? [String: Any])?["text"] as? String } == ["photo-0", "photo-1", "photo-2", "photo-3"])
        for (cell, band) in zip(cells, bands) {
            #expect(band.x == cell.x && band.width == cell.width && band.y + band.height == cell.y + cell.height)
            // A quarter: auto lays the four 4:3 photos on 600x800 as one
            // across, two side by side, one across, the middle cells 156 px
            // high (issue #31), and their bands are 32.
            #expect(band.height > 10 && band.height <= cell.height / 4, "band \(band) in cell \(cell)")
        }
        try #require(try cli.run(["save", "-o", "plain.png", "--keep"] + arguments).status == 0)
        let saved = try cli.run(["save", "-o", "captioned.png", "--caption", "name"] + arguments)
        #expect(saved.status == 0, "\(saved.stderr)")
        let (plain, captioned) = (try image(cli, "plain.png"), try image(cli, "captioned.png"))
        try #require(plain.width == captioned.width && plain.height == captioned.height)
        var changed = [Int](repeating: 0, count: bands.count)
        for y in 0..<plain.height {
            for x in 0..<plain.width where Self.pixel(plain, x, y) != Self.pixel(captioned, x, y) {
                guard let index = bands.firstIndex(where: { $0.contains(x, y) }) else {
                    Issue.record("a pixel changed at \(x),\(y), outside every caption's band")
                    return
                }
                changed[index] += 1
            }
        }
        // Every pixel of every band is shaded (no photo here is black).
        for (index, band) in bands.enumerated() { #expect(changed[index] == band.width * band.height, "band \(index)") }
    }

    /// Issue #41: a caption never covers a face. The astronaut of
    /// SampleImages/ cut below the chin and set at the foot of a sky (her
    /// face in the cell's bottom fifth): the band moves to the top of the
    /// cell, clear of her head, in the plan and in the pixels; on the same
    /// photo turned upside down (no face found) it stays at the bottom.
    @Test func aCaptionMovesClearOfAFaceAtTheFootOfItsCell() throws {
        let cli = try CLI()
        let astronaut = try DecodedImage(CLI.samples.appendingPathComponent("astronaut-eileen-collins.jpg").path)
        let (width, height, sky) = (astronaut.width, 640, 440)
        var upright = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let pixel = y < sky ? [120, 170, 230] : astronaut.pixel(x, y - sky)
                upright.replaceSubrange((y * width + x) * 3..<(y * width + x) * 3 + 3, with: pixel)
            }
        }
        var turned = upright
        for y in 0..<height {
            turned.replaceSubrange(y * width * 3..<(y + 1) * width * 3,
                                   with: upright[(height - 1 - y) * width * 3..<(height - y) * width * 3])
        }
        for (name, samples) in [("standing", upright), ("upside-down", turned)] {
            let url = cli.workingDirectory.appendingPathComponent("\(name).png")
            try Data(PNGFile.encode(width: width, height: height, colourType: 2, samples: samples)).write(to: url)
            try #require(try cli.run(["add", url.path]).status == 0)
        }
        // Two cells of the photos' own shape: nothing to crop, so the faces are looked for for the caption alone.
        let arguments = ["--layout", "grid", "--size", "\(2 * width)x\(height)", "--caption", "name"]
        let plan = try layouts.dryRun(cli, arguments + ["--keep"])
        let entries = try #require(plan["photos"] as? [[String: Any]])
        let cells = entries.map { Rect($0["cell"]) }, bands = entries.map { Rect(($0["caption"] as? [String: Any])?["band"]) }
        #expect(bands[0].y == cells[0].y && bands[0].height > 10, "the band \(bands[0]) over her face in \(cells[0])")
        #expect(bands[1].y + bands[1].height == cells[1].y + cells[1].height, "\(bands[1]) in \(cells[1])")
        let saved = try cli.run(["save", "-o", "captioned.png"] + arguments)
        #expect(saved.status == 0, "\(saved.stderr)")
        let image = try image(cli, "captioned.png")
        // The sky under the top band is shaded; her face (rows 515-612 of 640) is not.
        #expect(Self.pixel(image, 5, bands[0].y + 2) != [120, 170, 230])
        #expect(image.pixel(200, sky + 120) == astronaut.pixel(200, 120))
    }

    /// Issue #41's person at the foot of a lighthouse: a face of 9% of the
    /// short side, too small for the frontal search, at the bottom of a
    /// square of sky (the astronaut's head and shoulders, rows 0-199 of
    /// SampleImages/' 341x512, pasted at its foot). The small faces' search
    /// finds it in the band's rows and the band moves to the top; upside
    /// down it stays at the bottom.
    @Test func aCaptionMovesClearOfASmallFaceAtTheFootOfItsCell() throws {
        let cli = try CLI()
        let astronaut = try DecodedImage(CLI.samples.appendingPathComponent("astronaut-eileen-collins.jpg").path)
        let (side, head, left) = (1200, 200, (1200 - astronaut.width) / 2)
        var upright = [UInt8](repeating: 0, count: side * side * 3)
        for y in 0..<side {
            for x in 0..<side {
                let inHead = y >= side - head && x >= left && x < left + astronaut.width
                let pixel = inHead ? astronaut.pixel(x - left, y - (side - head)) : [120, 170, 230]
                upright.replaceSubrange((y * side + x) * 3..<(y * side + x) * 3 + 3, with: pixel)
            }
        }
        var turned = upright
        for y in 0..<side {
            turned.replaceSubrange(y * side * 3..<(y + 1) * side * 3, with: upright[(side - 1 - y) * side * 3..<(side - y) * side * 3])
        }
        for (name, samples) in [("lighthouse", upright), ("upside-down", turned)] {
            let url = cli.workingDirectory.appendingPathComponent("\(name).png")
            try Data(PNGFile.encode(width: side, height: side, colourType: 2, samples: samples)).write(to: url)
            try #require(try cli.run(["add", url.path]).status == 0)
        }
        let arguments = ["--layout", "grid", "--size", "1200x600", "--caption", "name"]
        let plan = try layouts.dryRun(cli, arguments)
        let entries = try #require(plan["photos"] as? [[String: Any]])
        let cells = entries.map { Rect($0["cell"]) }, bands = entries.map { Rect(($0["caption"] as? [String: Any])?["band"]) }
        #expect(bands[0].y == cells[0].y && bands[0].height > 10, "the band \(bands[0]) over her face in \(cells[0])")
        #expect(bands[1].y + bands[1].height == cells[1].y + cells[1].height, "\(bands[1]) in \(cells[1])")
    }

    /// The band's own pixels (those the shading alone explains) against the
    /// text's colour, on a white, a black and a busy photo.
    @Test("the text contrasts at least 4.5:1 with its band on any photo", arguments: [
        ([String](), [UInt8](arrayLiteral: 255, 255, 255)),
        (["--text-colour", "black"], [0, 0, 0]),
        (["--text-colour", "yellow"], [255, 255, 0]),
    ])
    func contrastOnAnyPhoto(arguments: [String], text: [UInt8]) throws {
        let cli = try collage([[255, 255, 255], [0, 0, 0], nil, [128, 128, 128]])
        try #require(try cli.run(["save", "-o", "plain.png", "--keep", "--size", "800x600"]).status == 0)
        for index in 1...4 { try #require(try cli.run(["caption", "\(index)", "Grandma, 1962"]).status == 0) }
        let plan = try layouts.dryRun(cli, ["--size", "800x600"] + arguments)
        let bands = (plan["photos"] as? [[String: Any]] ?? []).map { Rect(($0["caption"] as? [String: Any])?["band"]) }
        try #require(bands.count == 4)
        let saved = try cli.run(["save", "-o", "captioned.png", "--keep", "--size", "800x600"] + arguments)
        #expect(saved.status == 0, "\(saved.stderr)")
        let (plain, captioned) = (try image(cli, "plain.png"), try image(cli, "captioned.png"))
        let textColour = RGBColor(red: text[0], green: text[1], blue: text[2])
        let band = CaptionBand.colours(text: textColour).band
        let alpha = Int(CaptionBand.opacity)
        for (index, rect) in bands.enumerated() {
            var backgroundPixels = 0, textPixels = 0, worst = 21.0
            for y in rect.y..<rect.y + rect.height {
                for x in rect.x..<rect.x + rect.width {
                    let under = Self.pixel(plain, x, y), drawn = Self.pixel(captioned, x, y)
                    let shaded = zip(under, [band.red, band.green, band.blue]).map { (Int($1) * alpha + Int($0) * (255 - alpha) + 127) / 255 }
                    if zip(shaded, drawn).allSatisfy({ abs($0 - Int($1)) <= 1 }) {
                        backgroundPixels += 1
                        worst = min(worst, TitleBand.contrast(textColour, RGBColor(red: drawn[0], green: drawn[1], blue: drawn[2])))
                    } else if zip(drawn, text).allSatisfy({ abs(Int($0) - Int($1)) <= 3 }) {
                        textPixels += 1
                    }
                }
            }
            #expect(backgroundPixels > rect.width * rect.height / 2, "photo \(index + 1)")
            // (15 px captions on 800x600: about 40 pixels of full colour)
            #expect(textPixels > 30, "photo \(index + 1): \(textPixels) pixels of text")
            #expect(worst >= 4.5, "photo \(index + 1): the band's contrast with the text falls to \(worst)")
        }
    }

    @Test func aPersonsCaptionIsDrawnWhateverCaptionSays() throws {
        let cli = try collage([[230, 30, 30], [30, 200, 30]])
        try #require(try cli.run(["caption", "2", "Mine"]).status == 0)
        let plan = try layouts.dryRun(cli, ["--caption", "none"])
        let captions = (plan["photos"] as? [[String: Any]] ?? []).map { ($0["caption"] as? [String: Any])?["text"] as? String }
        #expect(captions == [nil, "Mine"])
    }

    @Test func theDateTakenIsWrittenInTheLocalesWords() throws {
        let cli = try collage([[230, 30, 30]])
        // The sample coffee cup with a DateTimeOriginal of its own, first.
        let sample = try Data(contentsOf: CLI.samples.appendingPathComponent("coffee-cup.jpg"))
        let dated = cli.workingDirectory.appendingPathComponent("dated.jpg")
        try Data(EXIFBlock.inserted(EXIFBlock.dateTaken("2023:02:21 23:59:59"), into: Array(sample))).write(to: dated)
        try #require(try cli.run(["add", dated.path]).status == 0)
        for (locale, expected) in [("de_DE.UTF-8", "21.02.2023"), ("C", "Feb 21, 2023"), ("ja_JP.UTF-8", "2023/02/21")] {
            let dry = try cli.bash("LC_ALL=\(locale) exec \"$COLLAGE\" save --dry-run --json --caption date --size 800x400")
            #expect(dry.status == 0, "\(dry.stderr)")
            let plan = try JSONSerialization.jsonObject(with: Data(dry.stdout.utf8)) as? [String: Any] ?? [:]
            let captions = (plan["photos"] as? [[String: Any]] ?? []).map { ($0["caption"] as? [String: Any])?["text"] as? String }
            // The PNG has no date: no caption, no band.
            #expect(captions == [nil, expected], "\(locale)")
        }
    }

    @Test func badTextOptionsAreUsageErrorsNamingTheValue() throws {
        let cli = try collage([[230, 30, 30], [30, 200, 30]])
        let colour = try cli.run(["save", "--dry-run", "--text-colour", "blurple"])
        #expect(colour.status == 64 && colour.stderr.contains("blurple"), "\(colour.stderr)")
        let caption = try cli.run(["save", "--dry-run", "--caption", "title"])
        #expect(caption.status == 64 && caption.stderr.contains("caption 'title' is not none, name or date"), "\(caption.stderr)")
        let font = try cli.run(["save", "--dry-run", "--font", "Sans 9999"])
        #expect(font.status == 64 && font.stderr.contains("--font 'Sans 9999'") && font.stderr.contains("over 4096"), "\(font.stderr)")
        for command in ["save", "preview", "batch", "pick"] {
            let help = try cli.run([command, "--help"]).stdout
            #expect(help.contains("--caption") && help.contains("--font") && help.contains("--text-colour"), "\(command)")
        }
        #expect(try cli.count() == 2)
    }

    @Test func withoutAnyFontTheCollageIsSavedWithoutCaptions() throws {
        let cli = try collage([[230, 30, 30], [30, 200, 30]])
        try #require(try cli.run(["caption", "1", "Mine"]).status == 0)
        let config = try cli.fontlessConfig()
        let run = try cli.bash("FONTCONFIG_FILE=\(shellQuoted(config.path)) exec \"$COLLAGE\" save -o plain.png --keep --caption name")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("no font is installed"), "\(run.stderr)")
        let image = try image(cli, "plain.png")
        // The photos as they are, to the bottom row: no band.
        #expect(Self.pixel(image, 0, image.height - 1) == [230, 30, 30])
        #expect(Self.pixel(image, image.width - 1, image.height - 1) == [30, 200, 30])
    }

    @Test func aFontsSizeSetsTheTitlesAndTheCaptionsFollow() throws {
        let cli = try collage([[230, 30, 30], [30, 200, 30]])
        let plan = try layouts.dryRun(cli, ["--title", "Big", "--font", "DejaVu Serif Bold 30px", "--caption", "name"])
        let title = try #require(plan["title"] as? [String: Any])
        #expect(title["fontSize"] as? Double == 30)
        let caption = (plan["photos"] as? [[String: Any]])?.first?["caption"] as? [String: Any]
        #expect(caption?["fontSize"] as? Double == 21)
    }
}
