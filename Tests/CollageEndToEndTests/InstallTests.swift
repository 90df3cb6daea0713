import CollageTestSupport
import Foundation
import Testing

/// `make install` and `make uninstall` (issue #14), with the built binary
/// (BINARY=, so no release build runs inside the tests).
@Suite(.serialized) struct InstallTests {
    func sh(_ script: String, in folder: URL = CLI.packageRoot) throws -> (status: Int32, out: String) {
        let run = try ToolRun("/bin/bash", ["-c", script], in: folder)
        return (run.status, run.text)
    }

    @Test func installPutsEverythingInItsPlaceAndUninstallTakesItAllBack() throws {
        let destination = try temporaryDirectory()
        let make = "make -s --no-print-directory DESTDIR='\(destination.path)' PREFIX=/usr"
        let installed = try sh("\(make) install BINARY='\(CLI.binary.path)'")
        try #require(installed.status == 0)
        let files = try sh("cd '\(destination.path)' && find . -type f | sort").out
        #expect(files == """
            ./usr/bin/collage
            ./usr/share/bash-completion/completions/collage
            ./usr/share/fish/vendor_completions.d/collage.fish
            ./usr/share/man/man1/collage.1
            ./usr/share/zsh/site-functions/_collage

            """)

        // The manual renders, and says what --help says, and more.
        let manual = try sh("MANWIDTH=80 man -l '\(destination.path)/usr/share/man/man1/collage.1' 2>/dev/null")
        #expect(manual.status == 0)
        for text in ["collage", "EXIT STATUS", "64 for a usage error", "selection.json", "NO_COLOR", "EXAMPLES", "save"] {
            #expect(manual.out.contains(text), "the manual lacks \(text)")
        }
        // EXIT STATUS lists the real statuses, from --help's paragraph, not
        // generate-manual's ".Ex -std" (">0 if an error occurs": issue #44).
        let statuses = manual.out.components(separatedBy: "\nEXIT STATUS\n").last ?? ""
        #expect(!manual.out.contains("if an error occurs"), "\(statuses)")
        for (status, meaning) in [("0", "On success."), ("64", "For a usage error"), ("1", "For any other failure"),
                                  ("130", "When interrupted"), ("143", "When terminated (SIGTERM)."),
                                  ("129", "On a hang")] {
            #expect(statuses.range(of: "(^|\n) +\(status) +\(NSRegularExpression.escapedPattern(for: meaning))", options: .regularExpression) != nil,
                    "\(status) in \(statuses)")
        }
        // The defaults --help shows, which generate-manual leaves out (scripts/man-page.py),
        // batch -o's too (an option with a short name).
        for text in ["Default: smart.", "Default: 100M.", "Default: jpg."] {
            #expect(manual.out.contains(text), "the manual lacks \(text)")
        }
        // --size is optional since issue #43 (a book's default is A4): its
        // help says the other commands' default in words, as --help does.
        let flat = manual.out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("(default: 1920x1080)"), "the manual lacks --size's default")
        #expect(manual.out.contains("Default: ‘.’.") || manual.out.contains("Default: '.'."), "batch -o's default, quoted")
        // Headed and footed with the program, not "BSD General Commands Manual".
        let lines = manual.out.split(separator: "\n")
        let version = try #require(try CLI().run("--version").stdout.split(separator: " ").first)
        #expect(lines.first?.split(separator: " ", omittingEmptySubsequences: true) == ["COLLAGE(1)", "General", "Commands", "Manual", "COLLAGE(1)"],
                "\(lines.first ?? "")")
        #expect(lines.last?.hasPrefix("collage \(version) ") == true && lines.last?.hasSuffix(" collage \(version)") == true, "\(lines.last ?? "")")
        // Not one warning from groff's strictest reading (12 "Empty input line" were).
        let lint = try sh("groff -mandoc -Tutf8 -ww '\(destination.path)/usr/share/man/man1/collage.1' 2>&1 >/dev/null")
        #expect(lint.out.isEmpty, "\(lint.out)")
        // Every option --help lists, in the manual as man shows it (ASCII
        // hyphens, lines too wide to be broken, no overstrike).
        let unbroken = try sh("LC_ALL=C MANWIDTH=1000 man -l '\(destination.path)/usr/share/man/man1/collage.1' 2>/dev/null | col -b")
        for option in try CLI().helpOptions().sorted() {
            #expect(CLI.names(option, in: unbroken.out), "the manual does not name \(option)")
        }

        // bash completes photo names (and folders) for `collage add Sa`, not other
        // files; bash calls the function with the command, the word and the one before.
        let photos = try temporaryDirectory()
        for name in ["Sample.jpg", "Sale.txt", "Sand.PNG", "Other.jpg"] { try Data().write(to: photos.appendingPathComponent(name)) }
        try FileManager.default.createDirectory(at: photos.appendingPathComponent("Salt"), withIntermediateDirectories: true)
        let completion = try sh("""
            source '\(destination.path)/usr/share/bash-completion/completions/collage'
            COMP_WORDS=(collage add Sa); COMP_CWORD=2; COMP_LINE='collage add Sa'; COMP_POINT=${#COMP_LINE}
            _collage collage Sa add; printf '%s\\n' "${COMPREPLY[@]}" | sort
            """, in: photos)
        #expect(completion.out == "Salt\nSample.jpg\nSand.PNG\n", "\(completion.out)")
        // Enum values: --graphics.
        let graphics = try sh("""
            source '\(destination.path)/usr/share/bash-completion/completions/collage'
            COMP_WORDS=(collage pick --graphics s); COMP_CWORD=3; COMP_LINE='collage pick --graphics s'; COMP_POINT=${#COMP_LINE}
            _collage collage s --graphics; printf '%s\\n' "${COMPREPLY[@]}" | sort
            """, in: photos)
        #expect(graphics.out == "sixel\nsymbols\n", "\(graphics.out)")
        // And the options typed by models: --fit (which offered nothing before issue #21).
        let fit = try sh("""
            source '\(destination.path)/usr/share/bash-completion/completions/collage'
            COMP_WORDS=(collage save --fit c); COMP_CWORD=3; COMP_LINE='collage save --fit c'; COMP_POINT=${#COMP_LINE}
            _collage collage c --fit; printf '%s\\n' "${COMPREPLY[@]}" | sort
            """, in: photos)
        #expect(fit.out == "contain\ncover\n", "\(fit.out)")

        #expect(try sh("\(make) uninstall").status == 0)
        #expect(try sh("cd '\(destination.path)' && find . -mindepth 2").out.isEmpty, "nothing left behind")
    }
}
