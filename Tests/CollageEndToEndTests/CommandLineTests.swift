import CollageKit
import CollageTestSupport
import Foundation
import Testing

/// The command line as a person meets it (issue #14): one error shape, exit
/// statuses that tell usage from failure, honest units, safe output.
@Suite struct CommandLineTests {
    @Test func everyErrorIsOneLineWithOnePrefixAndUsageErrorsExit64() throws {
        let cli = try CLI()
        let cases: [([String], String)] = [
            // The model's words (CollageRenderOptions.init, the one validator).
            (["save", "--gap", "-1"], "collage: --gap -1 is negative: use 0 or more pixels\n"),
            (["preview", "--margin", "-2"], "collage: --margin -2 is negative: use 0 or more pixels\n"),
            (["batch", "-", "--jobs", "-1"], "collage: --jobs -1 is less than 1: use 1 or more collages at once\n"),
            (["batch", "-", "--quality", "101"], "collage: --quality 101 is out of range: use 1 to 100\n"),
            (["save", "--size", "1920x"], "collage: --layout auto cannot be drawn: --size 1920x leaves the height to the photos, which only rows does; give --size WIDTHxHEIGHT\n"),
            (["save", "-o", "x.gif"], "collage: cannot save as '.gif': use .jpg, .jpeg, .png, .avif, .webp or .pdf\n"),
            (["nope"], "collage: no command 'nope' (see 'collage --help')\n"),
            (["help", "nope"], "collage: no command 'nope' (see 'collage --help')\n"),
            // The nearest command or option by edit distance (issue #24).
            (["sav"], "collage: no command 'sav': did you mean 'save'?\n"),
            (["stauts", "--json"], "collage: no command 'stauts': did you mean 'status'?\n"),
            (["help", "bach"], "collage: no command 'bach': did you mean 'batch'?\n"),
            (["save", "--sze", "10x10"], "collage: unknown option '--sze': did you mean '--size'?\n"),
            (["batch", "-", "--formt", "png"], "collage: unknown option '--formt': did you mean '--format'?\n"),
            // A negative number is taken for an option, so the rule is what is said.
            (["focus", "1", "-0.1", "0.5"], "collage: give the focus as X Y: a focus is two fractions from 0 to 1 (0 0 is the top left, 0.5 0.5 the middle), e.g. 0.5 0.2; or --clear\n"),
            (["save", "--size", "0x10"], "collage: --size: size 0x10 is out of range: each side must be 1 to 16384 pixels\n"),
        ]
        for (arguments, expected) in cases {
            let output = try cli.run(arguments)
            #expect(output.status == 64, "\(arguments)")
            #expect(output.stderr == expected, "\(arguments)")
            #expect(output.stdout.isEmpty)
        }
        // A layout with no room for the photos: the options', in the layout model's words; 64 from every command.
        try cli.run("add", CLI.jpegs[0], CLI.jpegs[1])
        for command in ["save", "preview"] {
            let cramped = try cli.run(command, "--size", "100x50", "--gap", "100")
            #expect(cramped.status == 64, "\(command)")
            #expect(cramped.stderr.hasSuffix("a 100x50 canvas with a gap of 100 px has no room for 2 photos in the auto layout\n"), "\(cramped.stderr)")
        }
        try cli.run("clear")
        // A failure that is not a usage error: 1.
        let empty = try cli.run("save")
        #expect(empty.status == 1 && empty.stderr == "collage: nothing to save: the collage is empty\n")
        #expect(try cli.run("help", "add").status == 0)
    }

    /// "0.1 megapixels, over the limit of 0.0 megapixels" said nothing.
    @Test func pixelLimitsAreWordedInUnitsThatFitTheirSize() throws {
        let cli = try CLI()
        let small = try cli.run("add", "--max-pixels", "1000", CLI.png)
        #expect(small.status == 1)
        #expect(small.stderr.hasSuffix("480x480 is 230400 pixels, over the limit of 1000 pixels (--max-pixels 231K lets it through)\n"), "\(small.stderr)")
        #expect(try cli.run("add", "--max-pixels", "231K", CLI.png).status == 0, "the value offered lets it through")
        // `save` has --max-pixels too: one line naming the output, the photo,
        // the reason and the option's value (the kit's error names no option:
        // the collage screen, which has none, says the same without it).
        try cli.run("add", CLI.png)
        let save = try cli.run("save", "--max-pixels", "1000", "-o", "x.jpg")
        #expect(save.status == 1)
        #expect(save.stderr.hasPrefix("collage: cannot save \(cli.workingDirectory.path)/x.jpg: \(CLI.png): 480x480 is 230400 pixels, over the limit of 1000 pixels (--max-pixels 231K lets it through)\n"), "\(save.stderr)")
        #expect(save.stderr.filter { $0 == "\n" }.count == 1, "\(save.stderr)")
    }

    @Test func versionNamesTheImageLibraries() throws {
        let output = try CLI().run("--version")
        #expect(output.status == 0)
        #expect(output.stdout.hasPrefix("0.1.0 (libjpeg-turbo "))
        #expect(output.stdout.contains(", libpng 1.") && output.stdout.contains(", libchafa 1."))
        // The libraries loaded at run time say their own versions (not the
        // headers' words, like "loaded on first use").
        for library in [#"libheif \d+\.\d+\.\d+ with libde265 \d+\.\d+\.\d+"#, #"libwebp \d+\.\d+\.\d+"#,
                        #"lcms2 2\.\d+"#, #"Pango 1\.\d+\.\d+, Cairo 1\.\d+\.\d+"#, #"giflib \d+\.\d+\.\d+"#,
                        #"libjxl \d+\.\d+\.\d+"#] {
            #expect(output.stdout.range(of: library, options: .regularExpression) != nil, "\(library) in \(output.stdout)")
        }
    }

    @Test func statusEscapesControlCharactersAndJSONKeepsBytesThatAreNotUTF8() throws {
        let cli = try CLI()
        let odd = cli.workingDirectory.appendingPathComponent("a\u{1B}[31mred\nx.jpg")
        try FileManager.default.copyItem(atPath: CLI.jpegs[0], toPath: odd.path)
        try cli.run("add", odd.path, CLI.jpegs[1])
        let text = try cli.run("status").stdout
        #expect(text.contains("  1. \(cli.workingDirectory.path)/a\\u{1B}[31mred\\nx.jpg\n"))
        #expect(!text.contains("\u{1B}"))
        let json = try cli.status()
        #expect((json["pathBytes"] as? [Any])?.count == 2)
        #expect((json["pathBytes"] as? [Any])?.allSatisfy { $0 is NSNull } == true, "UTF-8 names need no bytes")
    }

    /// A line break in a saved file's name would print as a second line.
    @Test func savedEscapesControlCharactersAsStatusDoes() throws {
        let cli = try CLI()
        try cli.run("add", CLI.jpegs[0], CLI.jpegs[1])
        let saved = try cli.run("save", "-o", "two\nlines\u{1B}[2J.jpg", "--size", "64x64")
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stdout == "Saved \(cli.workingDirectory.path)/two\\nlines\\u{1B}[2J.jpg\n")
        #expect(FileManager.default.fileExists(atPath: cli.workingDirectory.appendingPathComponent("two\nlines\u{1B}[2J.jpg").path))
    }

    /// A photo there but refused by the system is told from one that has
    /// gone, with the system's reason. (The tests may run as root, who reads
    /// any file whatever its mode: a link that loops is refused to anyone.)
    @Test func anUnreadablePhotoIsNotCalledMissing() throws {
        let cli = try CLI()
        let photo = cli.workingDirectory.appendingPathComponent("cat.jpg")
        try FileManager.default.copyItem(atPath: CLI.jpegs[0], toPath: photo.path)
        try cli.run("add", photo.path, CLI.jpegs[1])
        try FileManager.default.removeItem(at: photo)
        #expect(try cli.run("status").stdout.contains("  1. \(photo.path)  (missing)\n"))
        try FileManager.default.createSymbolicLink(atPath: photo.path, withDestinationPath: photo.path)
        #expect(try cli.run("status").stdout.contains("  1. \(photo.path)  (unreadable (Too many levels of symbolic links))\n"))
        let save = try cli.run("save", "-o", "out.jpg")
        #expect(save.status == 1)
        #expect(save.stderr == "collage: photo 1 is unreadable (Too many levels of symbolic links): \(photo.path) (remove it, or make it readable)\n")
    }

    /// So that the README cannot drift from the program again (the manual,
    /// generated by `make install`, is checked in InstallTests).
    @Test func everyOptionInHelpIsInTheReadme() throws {
        let options = try CLI().helpOptions()
        #expect(options.count > 25 && ["--shard", "--max-pixels", "--graphics", "--clear"].allSatisfy(options.contains), "\(options)")
        let readme = try String(contentsOf: CLI.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for option in options.sorted() { #expect(CLI.names(option, in: readme), "the README does not name \(option)") }
    }

    /// What the help said wrongly in a new user's trial (issue #24): crops
    /// "centred" (the default is smart) and "JPEG quality" (WebP has one too).
    @Test func helpSaysWhatTheProgramDoes() throws {
        let cli = try CLI()
        let root = try cli.run("--help").stdout
        #expect(root.contains("(default: \(CropMode.smart.rawValue))") && !root.contains("cropped centred"))
        let quality = ImageFormat.writable.filter(\.hasQuality).map(\.saveTitle)
        for command in ["save", "batch"] {
            let line = try cli.run(command, "--help").stdout.split(separator: "\n").first { $0.contains("--quality <1-100>") } ?? ""
            #expect(quality.count > 1 && quality.allSatisfy(line.contains), "\(command): \(line)")
        }
    }

    @Test func readOnlyCommandsCreateNothing() throws {
        let cli = try CLI()
        for arguments in [["status"], ["status", "--json"], ["preview"], ["--help"], ["save", "--help"]] {
            _ = try cli.run(arguments)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.state.path).isEmpty)
    }

    @Test func saveIntoAFolderCreatesMissingParentsAndNeverCollides() throws {
        let cli = try CLI()
        let add = { _ = try cli.run("add", CLI.jpegs[0], CLI.jpegs[1]) }
        // "-o DIR/": the default name inside, the folder created.
        try add()
        let intoNew = try cli.run("save", "-o", "new/deeper/", "--size", "64x32")
        #expect(intoNew.status == 0, "\(intoNew.stderr)")
        let made = try FileManager.default.contentsOfDirectory(atPath: cli.workingDirectory.appendingPathComponent("new/deeper").path)
        #expect(made.count == 1 && made[0].hasPrefix("collage-") && made[0].hasSuffix(".jpg"))
        // An existing folder named without "/": the same.
        try add()
        #expect(try cli.run("save", "-o", "new", "--size", "64x32").status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.workingDirectory.appendingPathComponent("new").path)
            .filter { $0.hasPrefix("collage-") }.count == 1)
        // A file in a missing folder.
        try add()
        #expect(try cli.run("save", "-o", "made/here.png", "--size", "64x32").status == 0)
        #expect(isCompleteImage(cli.workingDirectory.appendingPathComponent("made/here.png").path))
        // Two default-name saves in the same second: -2.
        try add()
        #expect(try cli.run("save", "-o", "twice/", "--size", "64x32").status == 0)
        try add()
        #expect(try cli.run("save", "-o", "twice/", "--size", "64x32").status == 0)
        let twice = try FileManager.default.contentsOfDirectory(atPath: cli.workingDirectory.appendingPathComponent("twice").path).sorted()
        #expect(twice.count == 2, "\(twice)")
        if twice.count == 2, twice[0].dropLast(4) == twice[1].dropLast(6) {
            #expect(twice[1].hasSuffix("-2.jpg"))
        }
    }

    @Test func helpShowsEveryDefaultOnce() throws {
        let cli = try CLI()
        let save = try cli.run("save", "--help").stdout
        for text in ["(default: 1920x1080)", "(default: white)", "(default: 100M)", "(default: 90)", "(default: 0)"] {
            #expect(save.contains(text), "\(text)")
        }
        let batch = try cli.run("batch", "--help").stdout
        #expect(batch.components(separatedBy: "(default:").count - 1 == batch.components(separatedBy: "\n").filter { $0.contains("(default:") }.count,
                "one default per option")
        #expect(batch.contains("(default: the number of cores)") && !batch.contains("cores).\n                          (default: "))
    }

    /// The help of every command that draws lists each value of the options
    /// whose type is a model's, what it does, and the default, from the model
    /// (issue #21): nothing written twice by hand.
    @Test func helpListsTheModelsValuesAndDefaults() throws {
        let cli = try CLI()
        let choices: [(option: String, values: [String], default: String)] = [
            ("--layout <layout>", LayoutMode.allCases.map(\.rawValue), "auto"),
            ("--crop <crop>", CropMode.allCases.map(\.rawValue), "smart"),
            ("--fit <fit>", FitMode.allCases.map(\.rawValue), "cover"),
            ("--caption <caption>", CaptionSource.allCases.map(\.rawValue), "none"),
        ]
        for command in [[], ["save"], ["batch"], ["preview"], ["pick"]] {
            let help = try cli.run(command + ["--help"])
            #expect(help.status == 0)
            let lines = help.stdout.split(separator: "\n").map(String.init)
            for choice in choices {
                // The option's line ends with its default; each value has a line of its own below it.
                guard let at = lines.firstIndex(where: { $0.hasPrefix("  \(choice.option) ") }) else {
                    Issue.record("\(command): no \(choice.option)")
                    continue
                }
                let block = lines[at...].prefix { $0 == lines[at] || !$0.hasPrefix("  -") }
                #expect(block.joined(separator: " ").contains("(default: \(choice.default))"), "\(command) \(choice.option)")
                let listed = block.compactMap { line -> String? in
                    let words = line.split(separator: " ")
                    return line.hasPrefix("        ") && words.count > 1 && words[1] == "-" ? String(words[0]) : nil
                }
                #expect(listed == choice.values, "\(command) \(choice.option)")
            }
            let flat = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(flat.contains("--size <WxH> Canvas size in pixels, or on paper (drawn at --dpi where the command takes it): A3, A4, A5, A6, letter, legal") && flat.contains("(default: 1920x1080)"))
            #expect(flat.contains("(default: white)"), "\(command) --background")
            if command == ["preview"] || command == ["pick"] {
                #expect(flat.contains("(values: auto, symbols, sixel, kitty, iterm2; default: auto)"), "\(command) --graphics")
            }
        }
    }

    /// A value a model refuses is named, with the model's reason (the values
    /// it could be), on one line; exit 64.
    @Test func aBadValueIsRefusedInTheModelsWords() throws {
        let cli = try CLI()
        let cases: [([String], String)] = [
            (["save", "--crop", "middle"], "--crop: crop 'middle' is not smart, centre or attention"),
            (["batch", "-", "--fit", "fill"], "--fit: fit 'fill' is not cover or contain"),
            (["preview", "--layout", "mosaic"], "--layout: layout 'mosaic' is not auto, grid, rows or columns"),
            (["pick", "--caption", "title"], "--caption: caption 'title' is not none, name or date"),
            (["--background", "nope"], "--background: colour 'nope' is not #RRGGBB, #RGB or a CSS colour name (white, teal, rebeccapurple...)"),
            (["save", "--text-colour", "#12345"], "--text-colour: colour '#12345' is not #RRGGBB, #RGB or a CSS colour name (white, teal, rebeccapurple...)"),
            (["save", "--size", "1920"], "--size: size '1920' is not WIDTHxHEIGHT (e.g. 1920x1080), WIDTHx, xHEIGHT or a size on paper (A4, A4-landscape, 6x4in, 15x10cm)"),
            (["preview", "--graphics", "ascii"], "--graphics: graphics 'ascii' is not auto, symbols, sixel, kitty or iterm2"),
            (["batch", "-", "--format", "gif"], "--format: 'gif' is not a format collage writes (jpg, jpeg, png, avif, webp, pdf)"),
        ]
        for (arguments, expected) in cases {
            let output = try cli.run(arguments)
            #expect(output.status == 64, "\(arguments)")
            #expect(output.stderr == "collage: \(expected)\n", "\(arguments)")
        }
        // Any case, and centre's other spelling: the value is taken (the save then finds nothing to save).
        let taken = try cli.run("save", "--crop", "Center", "--layout", "AUTO", "--background", "Teal")
        #expect(taken.status == 1 && taken.stderr == "collage: nothing to save: the collage is empty\n", "\(taken.stderr)")
    }

    /// What ArgumentParser itself refuses (issue #44), in the tool's one
    /// style: lower case, what it is about first, one line, exit 64.
    @Test func theArgumentParsersOwnRefusalsAreInTheToolsWords() throws {
        let cli = try CLI()
        let cases: [([String], String)] = [
            (["save", "--gap", "abc"], "--gap: 'abc' is not a valid <px>"),
            (["remove", "x"], "'x' is not a valid <index>"),
            (["save", "--size"], "--size: its value is missing (--size <WxH>)"),
            (["save", "-o"], "-o: its value is missing (-o <path>)"),
            (["move", "1"], "missing <to> (see 'collage move --help')"),
            (["save", "extra"], "unexpected argument 'extra' (see 'collage save --help')"),
            (["status", "a", "b"], "unexpected arguments 'a', 'b' (see 'collage status --help')"),
            // ArgumentParser's suggestion only when it is a typo's distance away.
            (["save", "--zzz"], "unknown option '--zzz' (see 'collage save --help')"),
            (["save", "--format", "gif"], "--format: 'gif' is not a format collage writes (jpg, jpeg, png, avif, webp, pdf)"),
        ]
        for (arguments, expected) in cases {
            let output = try cli.run(arguments)
            #expect(output.status == 64, "\(arguments)")
            #expect(output.stderr == "collage: \(expected)\n", "\(arguments)")
            #expect(output.stdout.isEmpty, "\(arguments)")
        }
        // jpeg is taken, as listed.
        #expect(try cli.run("save", "--format", "jpeg", "--dry-run").stderr == "collage: nothing to save: the collage is empty\n")
    }

    /// Issue #44: a folder that is not there is said to be missing, not
    /// "not a folder" (which a file is).
    @Test func pickSaysAFolderDoesNotExist() throws {
        let cli = try CLI()
        let missing = cli.workingDirectory.appendingPathComponent("nonexistent").path
        let run = try cli.run("pick", missing)
        #expect(run.status == 1 && run.stderr == "collage: \(missing): does not exist\n", "\(run.stderr)")
        let file = try cli.run("pick", CLI.jpegs[0])
        #expect(file.status == 1 && file.stderr == "collage: \(CLI.jpegs[0]): not a folder\n", "\(file.stderr)")
    }

    /// Issue #44: ".pdf);" wrapped onto a line of its own in the help: no
    /// help text leaves a list's last item alone on a line.
    @Test func noHelpLineIsALoneListItem() throws {
        let cli = try CLI()
        let commands = try cli.helpCommands()
        #expect(commands.contains("save"))
        for command in commands {
            let help = try cli.run(command.isEmpty ? ["--help"] : [command, "--help"]).stdout
            let lone = help.split(separator: "\n").filter {
                $0.trimmingCharacters(in: .whitespaces).range(of: #"^\.[a-z]+[);.,]*$"#, options: .regularExpression) != nil
            }
            #expect(lone.isEmpty, "\(command): \(lone)")
        }
    }

    /// Shells complete the values of the options typed by models, in every
    /// shell's script, from the same lists.
    @Test func completionsOfferTheModelsValues() throws {
        let cli = try CLI()
        let bash = try cli.run("--generate-completion-script", "bash").stdout
        let zsh = try cli.run("--generate-completion-script", "zsh").stdout
        let fish = try cli.run("--generate-completion-script", "fish").stdout
        let lists: [(String, [String])] = [
            ("crop", CropMode.allCases.map(\.rawValue)), ("fit", FitMode.allCases.map(\.rawValue)),
            ("layout", LayoutMode.allCases.map(\.rawValue)), ("caption", CaptionSource.allCases.map(\.rawValue)),
        ]
        for (option, values) in lists {
            #expect(bash.contains("-W " + values.map { "'\($0)'" }.joined(separator: "$'\\n'")), "bash --\(option)")
            #expect(zsh.contains("___\(option)=(" + values.map { "'\($0)'" }.joined(separator: " ") + ")"), "zsh --\(option)")
            #expect(fish.contains("-l '\(option)'") && fish.contains("-rfka '\(values.joined(separator: " "))'"), "fish --\(option)")
        }
    }

    @Test func qualityForAPNGIsPointedOut() throws {
        let cli = try CLI()
        try cli.run("add", CLI.jpegs[0], CLI.jpegs[1])
        let output = try cli.run("save", "-o", "x.png", "--quality", "50", "--size", "64x32")
        #expect(output.status == 0)
        #expect(output.stderr == "collage: warning: --quality applies to JPEG, AVIF, WebP and PDF only: PNG is lossless, so it is ignored\n")
        try cli.run("add", CLI.jpegs[0], CLI.jpegs[1])
        #expect(try cli.run("save", "-o", "y.jpg", "--quality", "50", "--size", "64x32").stderr.isEmpty)
    }

    @Test func batchNamesEveryBadPhotoAndSkipExistingKeepsWhatIsThere() throws {
        let cli = try CLI()
        let list = cli.workingDirectory.appendingPathComponent("list.txt")
        try "\(CLI.jpegs[0])\n\(CLI.jpegs[1])\n\nnope-1.jpg\nnope-2.jpg\n".write(to: list, atomically: true, encoding: .utf8)
        let first = try cli.run("batch", list.path, "-o", "out", "--size", "64x32")
        #expect(first.status == 1)
        #expect(first.stderr.contains("nope-1.jpg") && first.stderr.contains("nope-2.jpg"), "\(first.stderr)")
        // The first collage exists now: --skip-existing keeps it, and only the bad group fails.
        let again = try cli.run("batch", list.path, "-o", "out", "--size", "64x32", "--skip-existing")
        #expect(again.stdout.contains("1 kept (already there); 1 skipped."), "\(again.stdout)")
        #expect(again.stderr.contains("collage 1 (lines 1-2): kept"), "\(again.stderr)")
        try "\(CLI.jpegs[0])\n\(CLI.jpegs[1])\n".write(to: list, atomically: true, encoding: .utf8)
        let whole = try cli.run("batch", list.path, "-o", "out", "--size", "64x32", "--skip-existing")
        #expect(whole.status == 0, "kept is not failed")
    }
}
