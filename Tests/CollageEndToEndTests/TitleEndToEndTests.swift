import CollageImaging
import CollageTestSupport
import Foundation
import Testing
@testable import CollageKit

/// `--title` through the built binary: the band the dry run prints is where
/// the saved file has its title, and nothing else is touched.
@Suite struct TitleEndToEndTests {
    let layouts = LayoutEndToEndTests()

    /// Four flat photos (none of them white, black or the grey used below).
    func collage() throws -> CLI {
        let cli = try CLI()
        var paths: [String] = []
        let colours: [[UInt8]] = [[230, 30, 30], [30, 200, 30], [30, 30, 230], [200, 30, 200]]
        for (index, colour) in colours.enumerated() {
            let (width, height) = index % 2 == 0 ? (160, 120) : (90, 120)
            let url = cli.workingDirectory.appendingPathComponent("photo-\(index).png")
            try Data(PNGFile.encode(width: width, height: height, colourType: 2,
                                    samples: (0..<width * height).flatMap { _ in colour })).write(to: url)
            paths.append(url.path)
        }
        let added = try cli.run(["add"] + paths)
        #expect(added.status == 0, "\(added.stderr)")
        return cli
    }

    struct Rect { let x, y, width, height: Int
        init(_ json: Any?) {
            let object = json as? [String: Any] ?? [:]
            (x, y, width, height) = (object["x"] as? Int ?? -1, object["y"] as? Int ?? -1,
                                     object["width"] as? Int ?? -1, object["height"] as? Int ?? -1)
        }
        func contains(_ px: Int, _ py: Int) -> Bool { px >= x && px < x + width && py >= y && py < y + height }
    }

    @Test("the title's ink lies in its band, and the cells below it", arguments: [
        ["--layout", "grid", "--size", "800x600"],
        ["--layout", "auto", "--size", "600x800", "--margin", "12", "--gap", "6"],
        ["--layout", "rows", "--size", "900x"],
        ["--layout", "columns", "--size", "x700", "--background", "black"],
        ["--layout", "rows", "--size", "800x600", "--background", "#777777"],
    ])
    func inkInTheBand(arguments: [String]) throws {
        let cli = try collage()
        let title = ["--title", "Holidays at the seaside, 2026"]
        let plan = try layouts.dryRun(cli, arguments + title + ["--keep"])
        let json = try #require(plan["title"] as? [String: Any], "no title in \(plan)")
        #expect(json["text"] as? String == "Holidays at the seaside, 2026")
        let band = Rect(json)
        let cells = (plan["photos"] as? [[String: Any]] ?? []).map { Rect($0["cell"]) }
        #expect(cells.count == 4)
        for cell in cells { #expect(cell.y >= band.y + band.height, "a cell at \(cell.y) overlaps the band to \(band.y + band.height)") }

        let saved = try cli.run(["save", "-o", "titled.png"] + arguments + title)
        #expect(saved.status == 0, "\(saved.stderr)")
        let image = try layouts.pixels(cli.workingDirectory.appendingPathComponent("titled.png").path)
        let canvas = plan["canvas"] as? [String: Any] ?? [:]
        #expect(image.width == canvas["width"] as? Int && image.height == canvas["height"] as? Int)
        let index = arguments.firstIndex(of: "--background")
        let background: [UInt8] = index.map { arguments[$0 + 1] == "black" ? [0, 0, 0] : [0x77, 0x77, 0x77] } ?? [255, 255, 255]
        var ink: [[UInt8]] = []
        for y in 0..<image.height {
            for x in 0..<image.width where !cells.contains(where: { $0.contains(x, y) }) {
                let offset = (y * image.width + x) * 3
                let pixel = Array(image.rgb[offset..<offset + 3])
                guard pixel != background else { continue }
                #expect(band.contains(x, y), "ink at \(x),\(y) outside the band \(band)")
                if !band.contains(x, y) { return }
                ink.append(pixel)
            }
        }
        #expect(ink.count > 300, "only \(ink.count) pixels of ink")
        // Dark on light, light on dark: the strongest ink is black or white,
        // whichever contrasts more with the background.
        let luminances = ink.map { (Int($0[0]) + Int($0[1]) + Int($0[2])) / 3 }
        if background == [0, 0, 0] {
            #expect(luminances.max() == 255)
            #expect(luminances.allSatisfy { $0 > 0 })
        } else {
            #expect(luminances.min() == 0)
            #expect(luminances.allSatisfy { $0 < Int(background[0]) })
        }
    }

    static let kyoto = "Summer in Kyoto · 2026"
    static let holidays = "Summer holidays with the family in Kyoto and Osaka · August 2026"

    /// The title follows the canvas's area: as tall on 1080x1920 as on
    /// 1920x1080, larger than 4% of a banner's height (20 px), its band at
    /// most 8% of the longer side (two lines on the portrait canvas: 7.6%)
    /// and a sixth of the height (the banner: a title that would wrap is
    /// drawn on one line, smaller). DejaVu Sans Bold (fonts-dejavu-core) is
    /// named so that the band's height is exact; `--font` without a size
    /// leaves the size to the canvas.
    @Test("the title is sized for the canvas, its band within its limit", arguments: [
        ("1920x1080", kyoto, 43.0, 95, 1), ("1080x1920", kyoto, 43, 95, 1), ("1080x1920", holidays, 43, 145, 2),
        ("3000x500", kyoto, 37, 82, 1), ("3000x500", String(repeating: "Summer in Kyoto · ", count: 8), 34, 74, 1),
    ])
    func sizedForTheCanvas(size: String, title: String, font: Double, band: Int, lines: Int) throws {
        let cli = try collage()
        let arguments = ["--size", size, "--layout", "auto", "--font", "DejaVu Sans Bold", "--title", title, "--caption", "name"]
        let plan = try layouts.dryRun(cli, arguments + ["--keep"])
        let json = try #require(plan["title"] as? [String: Any], "no title in \(plan)")
        #expect(json["fontSize"] as? Double == font)
        let rect = Rect(json)
        #expect(rect.height == band && rect.y == 0)
        let canvas = try CanvasSize(parsing: size)
        #expect(Double(band) <= min(0.08 * Double(max(canvas.width, canvas.height)), Double(canvas.height) / 6))
        // Captions: at least 12 px, at most the title's size.
        let captions = (plan["photos"] as? [[String: Any]] ?? []).compactMap { ($0["caption"] as? [String: Any])?["fontSize"] as? Double }
        #expect(captions.count == 4 && captions.allSatisfy { $0 >= 12 && $0 <= font }, "\(captions)")

        let saved = try cli.run(["save", "-o", "titled.png"] + arguments)
        #expect(saved.status == 0, "\(saved.stderr)")
        let image = try layouts.pixels(cli.workingDirectory.appendingPathComponent("titled.png").path)
        #expect(image.width == canvas.width && image.height == canvas.height)
        // The band's ink: its lines, clear of its edges (the padding, half the font, above and below).
        let rows = (0..<band).filter { y in (0..<image.width).contains { x in image.rgb[(y * image.width + x) * 3] != 255 } }
        let padding = Int(font / 4)
        #expect(rows.first! >= padding && rows.last! < band - padding, "ink rows \(rows.first!)-\(rows.last!) in a band of \(band)")
        let gaps = zip(rows, rows.dropFirst()).filter { $1 - $0 > 1 }.count
        #expect(gaps == lines - 1, "\(gaps + 1) lines of ink, not \(lines)")
    }

    /// DejaVu Sans Bold, whose two lines of 43 px fit the band's limit on
    /// 1920x1080 (153 px; Noto Sans's taller lines are drawn smaller).
    @Test func aLongTitleTakesTwoLinesAndNoMore() throws {
        let cli = try collage()
        let font = ["--font", "DejaVu Sans Bold"]
        let short = try layouts.dryRun(cli, font + ["--title", "Short", "--keep"])["title"] as? [String: Any]
        let longText = String(repeating: "A title that goes on and on ", count: 30)
        let long = try layouts.dryRun(cli, font + ["--title", longText, "--keep"])["title"] as? [String: Any]
        let shortHeight = Rect(short).height, longHeight = Rect(long).height
        // One line is about 1.2 em of 43 px, and its padding 2 x 22 px.
        #expect(shortHeight > 80 && shortHeight < 110, "\(shortHeight)")
        let line = shortHeight - 44
        #expect(abs(longHeight - (shortHeight + line)) <= 1, "\(longHeight) for two lines, \(shortHeight) for one")
        #expect(longHeight <= 153)
        // In the default font too, the two lines' band stays within the limit.
        let noto = Rect(try layouts.dryRun(cli, ["--title", longText, "--keep"])["title"])
        #expect(noto.height <= 153 && noto.height > shortHeight, "\(noto.height)")
        let saved = try cli.run(["save", "-o", "long.png", "--title", longText] + font)
        #expect(saved.status == 0, "\(saved.stderr)")
        let image = try layouts.pixels(cli.workingDirectory.appendingPathComponent("long.png").path)
        // Saved: the two lines' ink lies in the band, clear of its edges
        // (nothing cut), with a blank row between the lines.
        let rows = (0..<longHeight).filter { y in
            (0..<image.width).contains { x in image.rgb[(y * image.width + x) * 3] != 255 }
        }
        #expect(rows.first! >= 10 && rows.last! < longHeight - 10, "ink rows \(rows.first!)-\(rows.last!) in a band of \(longHeight)")
        #expect(zip(rows, rows.dropFirst()).contains { $1 - $0 > 1 }, "one line of ink, not two")
    }

    @Test func aWidthLeftToThePhotosKeepsTwoLinesOnlyWhenTheTitleNeedsThem() throws {
        let cli = try collage()
        let grid = Rect(try layouts.dryRun(cli, ["--title", "Short", "--keep"])["title"])
        let columns = Rect(try layouts.dryRun(cli, ["--title", "Short", "--layout", "columns", "--size", "x1080", "--keep"])["title"])
        #expect(columns.height == grid.height, "one line: \(columns.height), as on 1920x1080: \(grid.height)")
        let long = Rect(try layouts.dryRun(cli, ["--title", String(repeating: "Long title ", count: 20), "--layout", "columns",
                                                 "--size", "x1080", "--keep"])["title"])
        #expect(long.height > grid.height + 30)
    }

    @Test func aLatinTitleDrawsWithDejaVu() throws {
        // TextTests draw with DejaVu Sans by name; here, that fontconfig has it.
        let match = try CLI().bash("fc-match -f '%{family}' 'DejaVu Sans:bold'")
        #expect(match.stdout.contains("DejaVu Sans"), "fontconfig chose \(match.stdout): is fonts-dejavu-core installed?")
    }

    @Test func charactersNoFontHasAreWarnedOf() throws {
        let cli = try collage()
        let run = try cli.bash("exec \"$COLLAGE\" save --dry-run --title $'Private \\U0010FFFD use'")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("no installed font has 1 character of the title"), "\(run.stderr)")
        #expect(try cli.collage("save", "--dry-run", "--title", "Plain").stderr.isEmpty)
    }

    @Test func badTitlesAreUsageErrors() throws {
        let cli = try collage()
        let invalid = try cli.bash("exec \"$COLLAGE\" save --dry-run --title $'caf\\xe9'")
        #expect(invalid.status == 64)
        #expect(invalid.stderr.contains("--title is not valid UTF-8"), "\(invalid.stderr)")
        let tooLong = try cli.collage("save", "--dry-run", "--title", String(repeating: "x", count: 100_000))
        #expect(tooLong.status == 64)
        #expect(tooLong.stderr.contains("the title has 100000 characters, over the limit of 1000"), "\(tooLong.stderr)")
        let empty = try cli.collage("save", "--dry-run", "--title", "\u{07}")
        #expect(empty.status == 64)
        let help = try cli.collage("save", "--help")
        #expect(help.stdout.contains("at most 1000 characters"), "\(help.stdout)")
        for command in ["preview", "batch", "pick"] {
            #expect(try cli.collage(command, "--help").stdout.contains("--title"), "\(command)")
        }
        #expect(try cli.count() == 4)
    }

    @Test func withoutAnyFontTheCollageIsSavedWithoutItsTitle() throws {
        let cli = try collage()
        let config = try cli.fontlessConfig()
        let run = try cli.bash("FONTCONFIG_FILE=\(shellQuoted(config.path)) exec \"$COLLAGE\" save -o plain.png --keep --title 'Lost'")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("no font is installed"), "\(run.stderr)")
        #expect(!run.stderr.contains("Pango"), "\(run.stderr)")
        let image = try layouts.pixels(cli.workingDirectory.appendingPathComponent("plain.png").path)
        #expect(image.width == 1920 && image.height == 1080)
        // The photos fill the canvas: no band.
        #expect(Array(image.rgb[0..<3]) == [230, 30, 30])
        let dry = try cli.bash("FONTCONFIG_FILE=\(shellQuoted(config.path)) exec \"$COLLAGE\" save --dry-run --json --title 'Lost'")
        #expect(dry.status == 0)
        #expect(!dry.stdout.contains("\"title\""))
    }
}
