import CollageImaging
import CollageTestSupport
import Foundation
import Testing
@testable import CollageKit

/// The photo formats of today, end to end: a HEIC is added, listed and
/// saved like a JPEG, recognised by its bytes whatever its name.
@Suite struct FormatTests {
    static let heic = CLI.sample("coffee-cup.heic")

    @Test func aHEICIsAddedAndSavedLikeAnyPhoto() throws {
        let cli = try CLI()
        let added = try cli.run("add", Self.heic, CLI.jpegs[0])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try cli.status()["photos"] as? [String] == [Self.heic, CLI.jpegs[0]])
        let saved = try cli.run("save", "-o", "out.png", "--size", "400x200")
        #expect(saved.status == 0, "\(saved.stderr)")
        let target = cli.workingDirectory.appendingPathComponent("out.png").path
        #expect(isCompleteImage(target, width: 400, height: 200))
        // The cup's cell (the left half) shows the cup: the JPEG it was made
        // from, drawn the same way, differs by a few levels at most.
        let reference = try CLI()
        #expect(try reference.run("add", CLI.jpegs[1], CLI.jpegs[0]).status == 0)
        #expect(try reference.run("save", "-o", "ref.png", "--size", "400x200").status == 0)
        let ours = try DecodedImage(target).rgb, theirs = try DecodedImage(reference.workingDirectory.appendingPathComponent("ref.png").path).rgb
        var total = 0
        for y in 0..<200 { for x in 0..<200 { for c in 0..<3 { total += abs(Int(ours[(y * 400 + x) * 3 + c]) - Int(theirs[(y * 400 + x) * 3 + c])) } } }
        let mean = Double(total) / Double(200 * 200 * 3)
        #expect(mean < 4, "the HEIC cup differs from the JPEG cup by \(mean) on average")
    }

    @Test func aHEICNamedLikeAJPEGIsStillAHEIC() throws {
        let cli = try CLI()
        let renamed = cli.workingDirectory.appendingPathComponent("holiday.jpg")
        try FileManager.default.copyItem(atPath: Self.heic, toPath: renamed.path)
        #expect(try cli.run("add", renamed.path).status == 0)
        var info = ci_photo_info()
        var error = ci_error()
        #expect(ci_probe_file(renamed.path, &info, &error) == CI_OK)
        #expect(info.format == CI_FORMAT_HEIF)
    }

    @Test("save and batch write WebP and AVIF at their --quality", arguments: [("webp", CI_FORMAT_WEBP), ("avif", CI_FORMAT_HEIF)])
    func savesAndBatchesWriteLossyFormatsWithTheirQuality(_ ext: String, _ format: ci_format) throws {
        let cli = try CLI()
        try cli.run(["add", CLI.jpegs[0], Self.heic])
        let saved = try cli.run("save", "-o", "out.\(ext)", "--size", "320x200", "--quality", "90", "--keep")
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stderr.isEmpty, "no --quality warning for \(ext): \(saved.stderr)")
        let target = cli.workingDirectory.appendingPathComponent("out.\(ext)").path
        var info = ci_photo_info()
        var error = ci_error()
        #expect(ci_probe_file(target, &info, &error) == CI_OK)
        #expect(info.format == format && info.width == 320 && info.height == 200)
        // The pixels: the same collage saved losslessly, within the codec's loss.
        #expect(try cli.run("save", "-o", "out.png", "--size", "320x200").status == 0)
        let lossy = try DecodedImage(target).rgb, exact = try DecodedImage(cli.workingDirectory.appendingPathComponent("out.png").path).rgb
        let squared = zip(lossy, exact).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) } / Double(exact.count)
        #expect(10 * log10(255 * 255 / squared) > 32, "\(ext) at quality 90: \(10 * log10(255 * 255 / squared)) dB")

        let list = cli.workingDirectory.appendingPathComponent("list.txt")
        try "\(CLI.jpegs[0])\n\(CLI.jpegs[1])\n\n\(Self.heic)\n\(CLI.png)\n".write(to: list, atomically: true, encoding: .utf8)
        func batch(_ quality: String, into folder: String) throws -> [Int] {
            let output = try cli.run("batch", list.path, "-o", folder, "--format", ext, "--quality", quality,
                                     "--size", "320x200")
            #expect(output.status == 0, "\(output.stderr)")
            return try (1...2).map { number in
                let path = cli.workingDirectory.appendingPathComponent("\(folder)/collage-00\(number).\(ext)").path
                #expect(ci_probe_file(path, &info, &error) == CI_OK && info.format == format)
                return try Data(contentsOf: URL(fileURLWithPath: path)).count
            }
        }
        let high = try batch("95", into: "high"), low = try batch("20", into: "low")
        #expect(zip(low, high).allSatisfy { $0 < $1 }, "--quality 20 \(low) bytes, 95 \(high)")
    }

    @Test func heicIsReadButNotWritten() throws {
        let cli = try CLI()
        try cli.run(["add", CLI.jpegs[0], Self.heic])
        let saved = try cli.run("save", "-o", "out.heic")
        #expect(saved.status == 64)
        #expect(saved.stderr.contains("cannot save as '.heic': use .jpg, .jpeg, .png, .avif, .webp or .pdf"), "\(saved.stderr)")
    }

    static func fixture(_ kind: String, _ name: String) -> String {
        CLI.packageRoot.appendingPathComponent("Tests/Fixtures/formats/\(kind)/\(name)").path
    }

    /// Issue #22: a GIF (an animation, drawn from its first frame) and a
    /// JPEG XL are added and saved like any photo, each cell what the same
    /// collage of their reference PNGs shows.
    @Test func aGIFAndAJPEGXLAreAddedAndSavedLikeAnyPhoto() throws {
        let gif = Self.fixture("gif", "animated.gif"), jxl = Self.fixture("jxl", "lossless.jxl")
        let cli = try CLI()
        let added = try cli.run("add", gif, jxl)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try cli.status()["photos"] as? [String] == [gif, jxl])
        let saved = try cli.run("save", "-o", "out.png", "--size", "400x200")
        #expect(saved.status == 0, "\(saved.stderr)")
        let target = cli.workingDirectory.appendingPathComponent("out.png").path
        #expect(isCompleteImage(target, width: 400, height: 200))
        let reference = try CLI()
        #expect(try reference.run("add", Self.fixture("gif", "animated.png"), Self.fixture("jxl", "lossless.png")).status == 0)
        #expect(try reference.run("save", "-o", "ref.png", "--size", "400x200").status == 0)
        let ours = try DecodedImage(target).rgb
        let theirs = try DecodedImage(reference.workingDirectory.appendingPathComponent("ref.png").path).rgb
        let largest = zip(ours, theirs).map { abs(Int($0) - Int($1)) }.max() ?? 255
        #expect(largest <= 1, "the GIF and JPEG XL cells differ from their references' by up to \(largest) levels")
    }

    @Test func aGIFOrJPEGXLCutShortOrNamedLikeAnotherIsJudgedByItsBytes() throws {
        let cli = try CLI()
        let gif = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixture("gif", "still.gif"))))
        let cut = cli.workingDirectory.appendingPathComponent("cut.gif")
        try Data(gif.prefix(gif.count / 2)).write(to: cut)
        // Cut in its frame's data: drawn as far as it goes, and said (issue #42).
        let added = try cli.run("add", cut.path)
        #expect(added.status == 0 && added.stderr.hasPrefix("collage: warning: \(cut.path): cut short: the top ")
                    && added.stderr.hasSuffix("% of it could be drawn (the rest is empty)\n"), "\(added.stderr)")
        // Only its trailer missing (the frame whole, the file not): refused.
        let noTrailer = cli.workingDirectory.appendingPathComponent("no-trailer.gif")
        try Data(gif.dropLast()).write(to: noTrailer)
        let refused = try cli.run("add", noTrailer.path)
        #expect(refused.status == 1 && refused.stderr == "collage: \(noTrailer.path): the file is cut short (no trailer)\n",
                "\(refused.stderr)")
        #expect(try cli.run("clear").status == 0)
        let renamed = cli.workingDirectory.appendingPathComponent("holiday.jpg")
        try FileManager.default.copyItem(atPath: Self.fixture("jxl", "lossy.jxl"), toPath: renamed.path)
        #expect(try cli.run("add", renamed.path).status == 0)
        #expect(try cli.count() == 1)
    }

    /// A JPEG XL can only be told whole by decoding it (0.5 s for 12
    /// megapixels), so only `add` asks: what wants a photo's size alone (the
    /// auto layout's plan, which `save`, `save --dry-run` and the previews
    /// make) reads its header, which a file cut short still has whole.
    @Test func onlyAddChecksThatAJPEGXLIsWhole() throws {
        let cli = try CLI()
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixture("jxl", "lossless.jxl"))))
        let cut = cli.workingDirectory.appendingPathComponent("cut.jxl")
        try Data(good.prefix(good.count * 2 / 3)).write(to: cut)
        let refused = try cli.run("add", cut.path)
        #expect(refused.status == 1 && refused.stderr.contains("\(cut.path): the file is cut short"), "\(refused.stderr)")
        #expect(try cli.count() == 0)

        // The plan reads the 96 x 64 header: two of them side by side in auto.
        let photos = [Photo(path: cut.path), Photo(path: Self.fixture("jxl", "lossless.jxl"))]
        let options = try CollageRenderOptions(size: RequestedSize(width: 384, height: 128), layout: .auto)
        let plan = try ImageEngine().plan(photos, options: options)
        #expect(plan.cells == [CellRect(x: 0, y: 0, width: 192, height: 128), CellRect(x: 192, y: 0, width: 192, height: 128)])
        #expect(throws: ImageEngineError.self) { try ImageEngine().admit(photos[0]) }
        #expect(try ImageEngine().admit(photos[1]) == Admission(info: try ImageEngine().inspect(photos[1])))
    }

    /// Help texts, completions and the photo browser take the formats from
    /// the engine's table: GIF and JPEG XL are in them without a line of
    /// their own.
    @Test func helpCompletionsAndTheBrowserNameGIFAndJPEGXL() throws {
        let cli = try CLI()
        let help = try cli.run("add", "--help").stdout
        #expect(help.contains("GIF") && help.contains("JPEG XL"), "\(help)")
        for shell in ["bash", "zsh", "fish"] {
            let script = try cli.run("--generate-completion-script", shell).stdout
            #expect(script.contains("gif") && script.contains("jxl"), "\(shell)")
        }
        let folder = try temporaryDirectory()
        try FileManager.default.copyItem(atPath: Self.fixture("gif", "still.gif"), toPath: folder.appendingPathComponent("a.gif").path)
        try FileManager.default.copyItem(atPath: Self.fixture("jxl", "alpha.jxl"), toPath: folder.appendingPathComponent("b.jxl").path)
        let browser = FileSystemBrowser()
        #expect(browser.isPhoto(Photo(path: folder.appendingPathComponent("a.gif").path)))
        #expect(browser.isPhoto(Photo(path: folder.appendingPathComponent("b.jxl").path)))
    }

    @Test func theFolderBrowserListsHEICs() throws {
        let folder = try temporaryDirectory()
        try FileManager.default.copyItem(atPath: Self.heic, toPath: folder.appendingPathComponent("cup.heic").path)
        try Data("not a photo".utf8).write(to: folder.appendingPathComponent("notes.heic"))
        let browser = FileSystemBrowser()
        #expect(browser.isPhoto(Photo(path: folder.appendingPathComponent("cup.heic").path)))
        #expect(!browser.isPhoto(Photo(path: folder.appendingPathComponent("notes.heic").path)))
    }
}


/// `save -o -`: the collage on standard output, for pipes.
@Suite struct StandardOutputTests {
    @Test("-o - writes the collage, and nothing else, to standard output", arguments: ["jpg", "png", "webp", "avif"])
    func writesTheFormatAsked(_ format: String) throws {
        let cli = try CLI()
        try cli.run(["add", CLI.jpegs[0], CLI.jpegs[1]])
        let piped = try cli.bash("\"$COLLAGE\" save -o - --format \(format) --size 320x200 > piped.\(format)")
        #expect(piped.status == 0 && piped.stderr.isEmpty, "\(piped.stderr)")
        // The same bytes save writes to a file (the collage cleared after the pipe: added again).
        try cli.run(["add", CLI.jpegs[0], CLI.jpegs[1]])
        #expect(try cli.run("save", "-o", "file.\(format)", "--size", "320x200").status == 0)
        let pipedBytes = try Data(contentsOf: cli.workingDirectory.appendingPathComponent("piped.\(format)"))
        #expect(pipedBytes == (try Data(contentsOf: cli.workingDirectory.appendingPathComponent("file.\(format)"))))
        #expect(isCompleteImage(cli.workingDirectory.appendingPathComponent("piped.\(format)").path, width: 320, height: 200))
    }

    /// Issue #44: into a pipe, JPEG unless --format says otherwise; onto a
    /// terminal, refused. Without -o, or with a folder, --format is the
    /// default name's; with a file name its extension decides, and a
    /// --format that differs is a usage error, as is a second -o.
    @Test func theFormatChoosesTheDefaultNameAndThePipesFormat() throws {
        let cli = try CLI()
        try cli.run(["add", CLI.jpegs[0], CLI.jpegs[1]])
        let bare = try cli.bash("\"$COLLAGE\" save -o - --size 64x32 --keep > out.bin")
        #expect(bare.status == 0 && bare.stderr.isEmpty, "\(bare.stderr)")
        let piped = try Data(contentsOf: cli.workingDirectory.appendingPathComponent("out.bin"))
        #expect(piped.starts(with: [0xFF, 0xD8, 0xFF]), "JPEG")
        // On a terminal (script gives it one), still refused.
        let terminal = try cli.bash("script -qec '\"$COLLAGE\" save -o - --size 64x32 --keep' /dev/null")
        #expect(terminal.stdout.contains("collage: standard output is a terminal: pipe it to a program or redirect it to a file"), "\(terminal)")

        // No -o: the default name, in --format's format; a folder likewise.
        let here = try cli.run("save", "--format", "png", "--size", "64x32", "--keep")
        #expect(here.status == 0, "\(here.stderr)")
        let name = here.stdout.dropFirst("Saved ".count).trimmingCharacters(in: .newlines)
        #expect(name.range(of: #"/collage-\d{8}-\d{6}\.png$"#, options: .regularExpression) != nil, "\(here.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: name)).starts(with: [0x89, 0x50, 0x4E, 0x47]), "PNG")
        let folder = try cli.run("save", "--format", "webp", "-o", "out/", "--size", "64x32", "--keep")
        #expect(folder.status == 0 && folder.stdout.range(of: #"/out/collage-\d{8}-\d{6}\.webp\n$"#, options: .regularExpression) != nil,
                "\(folder)")
        // A file name: its extension decides; the same format by another name is fine.
        #expect(try cli.run("save", "--format", "jpeg", "-o", "x.jpg", "--size", "64x32", "--keep").status == 0)
        let differs = try cli.run("save", "-o", "x.png", "--format", "jpg")
        #expect(differs.status == 64)
        #expect(differs.stderr == "collage: --format jpg does not go with x.png: a named file's format follows its extension (PNG)\n")
        // Two -o: which one is meant is not guessed.
        let twice = try cli.run("save", "-o", "-", "--format", "png", "-o", "x.png")
        #expect(twice.status == 64)
        #expect(twice.stderr == "collage: -o is given 2 times ('-', 'x.png'): give one output\n", "\(twice.stderr)")
        #expect(try cli.run("save", "--output=a.jpg", "-o", "b.jpg").stderr == "collage: -o is given 2 times ('a.jpg', 'b.jpg'): give one output\n")
        let batch = try cli.run("batch", "-", "-o", "a", "-o", "b")
        #expect(batch.status == 64 && batch.stderr == "collage: -o is given 2 times ('a', 'b'): give one output\n", "\(batch.stderr)")
        #expect(try cli.run("status").stdout.hasPrefix("2 photos"))
    }

    @Test func aReaderThatStopsEarlyIsAFailureAndKeepsTheSelection() throws {
        let cli = try CLI()
        try cli.run(["add", CLI.jpegs[0], CLI.jpegs[1]])
        let cut = try cli.bash("set -o pipefail; \"$COLLAGE\" save -o - --format png --size 2000x2000 | head -c 10 > /dev/null")
        #expect(cut.status == 1)
        // After the warnings that the small samples are enlarged on this canvas.
        #expect(cut.stderr.hasSuffix("\ncollage: cannot save to standard output: Broken pipe\n"), "\(cut.stderr)")
        #expect(cut.stderr.split(separator: "\n").dropLast().allSatisfy { $0.hasPrefix("collage: warning: ") }, "\(cut.stderr)")
        #expect(try cli.run("status").stdout.hasPrefix("2 photos"))
    }
}
