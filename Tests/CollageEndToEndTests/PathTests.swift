import CollageImaging
import CollageKit
import CollageTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct PathTests {
    /// Odd names through add, status and save, and through a batch list.
    @Test func oddFileNamesWork() throws {
        let cli = try CLI()
        let names = ["with space.jpg", "new\nline.jpg", "-leading-dash.jpg", "e\u{301}-nfd.jpg", "quote'\"$`.png", "  padded.jpg"]
        for name in names {
            try FileManager.default.copyItem(atPath: name.hasSuffix(".png") ? alphaPNG : cat, toPath: cli.file(name).path)
        }
        // A leading dash needs "--" (or "./") as with any command.
        #expect(try cli.collage("add", "--", "-leading-dash.jpg", "./with space.jpg").succeeded)
        #expect(try cli.collage("add", "new\nline.jpg", "e\u{301}-nfd.jpg", "quote'\"$`.png", "  padded.jpg").succeeded)
        let paths = try #require(try cli.status()["photos"] as? [String])
        #expect(paths == ["-leading-dash.jpg", "with space.jpg", "new\nline.jpg", "e\u{301}-nfd.jpg", "quote'\"$`.png", "  padded.jpg"]
            .map { cli.file($0).path })
        // NFD stays NFD: the bytes of the name, not a normalised form.
        #expect(paths[3].utf8.elementsEqual(cli.file("e\u{301}-nfd.jpg").path.utf8))
        let saved = try cli.collage("save", "-o", "odd names.jpg", "--size", "120x80")
        #expect(saved.succeeded, "\(saved)")
        #expect(isCompleteImage(cli.file("odd names.jpg").path, width: 120, height: 80))

        // The same in a batch list (a name with a newline cannot be a line,
        // and surrounding spaces are trimmed: documented).
        let list = "-leading-dash.jpg\nwith space.jpg\n\ne\u{301}-nfd.jpg\nquote'\"$`.png\n"
        try list.write(to: cli.file("list.txt"), atomically: true, encoding: .utf8)
        let batch = try cli.collage("batch", "list.txt", "-o", "batch", "--size", "64x64")
        #expect(batch.succeeded, "\(batch)")
    }

    /// Names that are not UTF-8 (here Latin-1 "café.jpg" and "cafè.jpg",
    /// which both read as "caf\u{FFFD}.jpg" as text) are added, stored, saved
    /// and listed in a batch by their exact bytes.
    @Test func namesThatAreNotUTF8Work() throws {
        let cli = try CLI()
        let setup = try cli.bash("cp \(shellQuoted(cat)) $'caf\\xe9.jpg' && cp \(shellQuoted(alphaPNG)) $'caf\\xe8.jpg'")
        #expect(setup.succeeded, "\(setup)")
        let added = try cli.bash("exec \"$COLLAGE\" add $'caf\\xe9.jpg' $'caf\\xe8.jpg'")
        #expect(added.succeeded, "\(added)")
        #expect(try cli.count() == 2, "two photos, not one name twice")
        // Stored losslessly: the exact bytes, base64 encoded.
        let stored = try cli.storedPhotos()
        let bytes = stored.compactMap { ($0 as? [String: Any])?["bytes"] as? String }.compactMap { Data(base64Encoded: $0) }
        #expect(bytes.map { $0.last(where: { $0 >= 0x80 }) } == [0xE9, 0xE8])
        let saved = try cli.collage("save", "-o", "latin1.jpg", "--size", "100x50")
        #expect(saved.succeeded, "\(saved)")
        #expect(try cli.count() == 0)

        // A missing one is refused by (a readable form of) its name.
        let missing = try cli.bash("exec \"$COLLAGE\" add $'gone\\xff.jpg'")
        #expect(missing.isOneLineRefusal(naming: cli.file("gone\u{FFFD}.jpg").path), "\(missing)")

        // In a batch list, byte for byte.
        let list = try cli.bash("printf 'caf\\351.jpg\\ncaf\\350.jpg\\n' > list.txt && exec \"$COLLAGE\" batch list.txt -o out --size 64x64")
        #expect(list.succeeded, "\(list)")
        #expect(isCompleteImage(cli.file("out/collage-001.jpg").path))

        // An output name that is not UTF-8 cannot be written exactly: refused, not renamed.
        #expect(try cli.collage("add", cat, cup).succeeded)
        let badOutput = try cli.bash("exec \"$COLLAGE\" save -o $'out\\xff.jpg'")
        #expect(badOutput.status != 0 && badOutput.stderr.contains("not valid UTF-8"), "\(badOutput)")
        #expect(try cli.count() == 2)
    }

    /// Symbolic links are recorded as given and followed when read; relative
    /// paths are made absolute where they were typed, so they work after a cd.
    @Test func symlinksAndRelativePathsAfterACd() throws {
        let cli = try CLI()
        let photos = cli.file("photos")
        try FileManager.default.createDirectory(at: photos.appendingPathComponent("deep"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: cat, toPath: photos.appendingPathComponent("deep/cat.jpg").path)
        try FileManager.default.createSymbolicLink(atPath: cli.file("link.jpg").path, withDestinationPath: "photos/deep/cat.jpg")
        try FileManager.default.createSymbolicLink(atPath: cli.file("album").path, withDestinationPath: "photos/deep")
        let added = try cli.bash("cd photos && exec \"$COLLAGE\" add ../link.jpg ../album/cat.jpg ./deep/../deep/cat.jpg deep/cat.jpg")
        #expect(added.succeeded, "\(added)")
        let paths = try #require(try cli.status()["photos"] as? [String])
        #expect(paths == [cli.file("link.jpg").path, cli.file("album/cat.jpg").path,
                          cli.file("photos/deep/cat.jpg").path, cli.file("photos/deep/cat.jpg").path])
        // From elsewhere, later: the absolute paths still work.
        let saved = try cli.bash("cd / && exec \"$COLLAGE\" save -o \(shellQuoted(cli.file("after-cd.jpg").path)) --size 64x64")
        #expect(saved.succeeded, "\(saved)")
        // A link whose target vanished is refused by the link's name.
        #expect(try cli.collage("add", "link.jpg", cup).succeeded)
        try FileManager.default.removeItem(at: photos.appendingPathComponent("deep/cat.jpg"))
        let broken = try cli.collage("save", "-o", "x.jpg", "--size", "64x64")
        #expect(broken.isOneLineRefusal(naming: cli.file("link.jpg").path), "\(broken)")
    }

    /// Output files honour the umask, and nothing is created world-writable
    /// even with umask 000: collages, the batch folder, the state folder and
    /// its files.
    @Test func filesHonourTheUmaskAndNothingIsWorldWritable() throws {
        let cli = try CLI()
        func mode(_ path: String) -> mode_t {
            var info = stat()
            return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0
        }
        for (mask, expected) in [("022", 0o644), ("077", 0o600), ("027", 0o640), ("000", 0o664)] as [(String, mode_t)] {
            #expect(try cli.collage("add", cat, cup).succeeded)
            let name = "umask-\(mask).jpg"
            let run = try cli.bash("umask \(mask) && exec \"$COLLAGE\" save -o \(name) --size 32x32")
            #expect(run.succeeded, "\(run)")
            #expect(mode(cli.file(name).path) == expected, "umask \(mask): \(String(mode(cli.file(name).path), radix: 8))")
            let forced = try cli.bash("umask \(mask) && \"$COLLAGE\" add \(shellQuoted(cat)) \(shellQuoted(cup)) && exec \"$COLLAGE\" save --force -o \(name) --size 32x32")
            #expect(forced.succeeded && mode(cli.file(name).path) == expected, "--force, umask \(mask): \(forced)")
        }
        // A fresh state folder and a new batch folder, with umask 000.
        let fresh = try CLI()
        try "\(cat)\n\(cup)\n".write(to: fresh.file("list.txt"), atomically: true, encoding: .utf8)
        let made = try fresh.bash("umask 000 && \"$COLLAGE\" add \(shellQuoted(cat)) && exec \"$COLLAGE\" batch list.txt -o new/folder --size 32x32")
        #expect(made.succeeded, "\(made)")
        let stateFolder = fresh.state.appendingPathComponent("collage").path
        #expect(mode(stateFolder) == 0o700, "state folder \(String(mode(stateFolder), radix: 8))")
        #expect(mode(stateFolder + "/selection.json") == 0o600)
        #expect(mode(stateFolder + "/selection.lock") == 0o600)
        for folder in ["new", "new/folder"] {
            #expect(mode(fresh.file(folder).path) & 0o002 == 0, "\(folder): \(String(mode(fresh.file(folder).path), radix: 8))")
        }
        #expect(mode(fresh.file("new/folder/collage-001.jpg").path) & 0o002 == 0)
    }
}

// MARK: - Batch lists from pipes
