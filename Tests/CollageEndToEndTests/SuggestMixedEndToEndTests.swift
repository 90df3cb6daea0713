import CollageKit
import CollageTestSupport
import Foundation
import Testing

/// `collage suggest` on a folder as a new user's is (issue #41,
/// `SuggestPhotos.Mixed`): very different sizes, an exposure bracket,
/// photos copied without a capture date, a README; made for each test
/// beside `SuggestEndToEndTests`' trip, in its temporary XDG_STATE_HOME and
/// XDG_CACHE_HOME.
extension SuggestEndToEndTests {
    /// The mixed folder, made beside the trip's.
    func makeMixed() throws -> URL {
        let mixed = cli.workingDirectory.appendingPathComponent("Mixed")
        try FileManager.default.createDirectory(at: mixed, withIntermediateDirectories: true)
        try SuggestPhotos.Mixed.make(in: mixed, samples: CLI.samples)
        return mixed
    }

    func json(_ run: Run) throws -> (document: [String: Any], entry: (String) -> [String: Any]) {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let entries = try #require(document["photos"] as? [[String: Any]])
        return (document, { name in entries.first { ($0["path"] as? String)?.hasSuffix("/" + name) == true } ?? [:] })
    }

    /// The six: never the 100-pixel photo while photos that fit are left,
    /// never the thumbnail-sized copy, one of the bracket; the README named.
    /// With COLLAGE_MIXED_OUT=DIR the folder is copied to DIR, to look at
    /// what suggest makes of it.
    @Test func theBestSixNeitherTinyNorTwiceTheSameScene() throws {
        let mixed = try makeMixed()
        if let out = ProcessInfo.processInfo.environment["COLLAGE_MIXED_OUT"] {
            try? FileManager.default.removeItem(atPath: out)
            try FileManager.default.copyItem(at: mixed, to: URL(fileURLWithPath: out))
        }
        let run = try suggest("Mixed")
        #expect(run.succeeded, "\(run)")
        let chosen = names(run)
        #expect(chosen.count == 6, "\(run)")
        #expect(!chosen.contains(SuggestPhotos.Mixed.tiny) && !chosen.contains(SuggestPhotos.Mixed.thumbnailCopy), "\(chosen)")
        #expect(Set(chosen).intersection(SuggestPhotos.Mixed.bracket).count <= 1, "\(chosen)")
        #expect(run.stderr == "collage: warning: skipped 1 not a photo: README.txt\n"
                + "collage: warning: 2 photos have no capture date (EXIF): they count as taken after the dated ones\n", "\(run)")
    }

    /// --json says why: too small for its cell, the larger copy, the
    /// bracket one group, the undated without a date, the README listed.
    @Test func jsonSaysWhereSizeDecidedAndGroupsTheBracket() throws {
        let mixed = try makeMixed()
        let run = try suggest("Mixed", "--json")
        #expect(run.succeeded, "\(run)")
        let (document, entry) = try json(run)
        #expect(document["not_photo_files"] as? [String] == [mixed.appendingPathComponent("README.txt").path])
        let tiny = entry(SuggestPhotos.Mixed.tiny)
        #expect(tiny["chosen"] as? Bool == false)
        #expect((tiny["why_not"] as? String)?.hasPrefix("too small for its cell: 100x67 would be enlarged 7.2x") == true, "\(tiny)")
        #expect((tiny["enlarged"] as? Double ?? 0) > 2)
        let thumb = entry(SuggestPhotos.Mixed.thumbnailCopy)
        #expect(thumb["duplicate_group"] as? Int == entry("coffee.jpg")["duplicate_group"] as? Int)
        #expect(thumb["why_not"] as? String == "too small for its cell: coffee.jpg of the same scene is larger", "\(thumb)")
        let (first, second) = (entry(SuggestPhotos.Mixed.bracket[0]), entry(SuggestPhotos.Mixed.bracket[1]))
        #expect(first["duplicate_group"] as? Int == second["duplicate_group"] as? Int, "\(first) \(second)")
        for name in SuggestPhotos.Mixed.undated {
            #expect(entry(name)["taken_from"] as? String == "none" && entry(name)["taken"] is NSNull, "\(entry(name))")
        }
    }

    /// By events: the dated days, each its own, then the undated under
    /// their folder's name; never a collage of tiny photos.
    @Test func eventsAreTheDaysThenTheUndatedByTheirFoldersName() throws {
        _ = try makeMixed()
        let run = try suggest("Mixed", "--events", "--count", "4")
        #expect(run.succeeded, "\(run)")
        let blocks = run.stdout.components(separatedBy: "\n\n").map { $0.split(separator: "\n").map(String.init) }
        #expect(blocks.map { $0.first ?? "" } == ["#title Sep 1, 2026", "#title Sep 3, 2026", "#title Mixed"], "\(run)")
        let named = blocks.map { $0.dropFirst().map { URL(fileURLWithPath: $0).lastPathComponent } }
        #expect(named.count == 3 && named[0].count == 4 && !named[0].contains(SuggestPhotos.Mixed.tiny), "\(named)")
        #expect(Set(named[1]) == Set(SuggestPhotos.Mixed.thirdDay), "\(named)")
        #expect(Set(named.last ?? []) == Set(SuggestPhotos.Mixed.undated), "\(named)")
        #expect(run.stderr.contains("collage: warning: 2 photos have no capture date (EXIF): one group of their own, titled Mixed, "
                                    + "after the dated events\n"), "\(run)")
    }

    /// A few skipped files by name, more as a count; --json lists them all.
    @Test func skippedFilesAreNamed() throws {
        let mixed = try makeMixed()
        for k in 1...4 { try Data("notes \(k)\n".utf8).write(to: mixed.appendingPathComponent("notes-\(k).txt")) }
        let run = try suggest("Mixed", "--count", "2")
        #expect(run.stderr.hasPrefix("collage: warning: skipped 5 not photos: README.txt, notes-1.txt, notes-2.txt and 2 more\n"), "\(run)")
        let all = try json(try suggest("Mixed", "--json")).document["not_photo_files"] as? [String]
        #expect(all?.map { URL(fileURLWithPath: $0).lastPathComponent } == ["README.txt"] + (1...4).map { "notes-\($0).txt" })
    }
}

/// On the trip set (`SuggestEndToEndTests`' folder, with its notes.txt and
/// broken.jpg): the folder given is the folder searched, the collage's free
/// places, a photo cut short.
extension SuggestEndToEndTests {
    func paths(_ run: Run) throws -> [String] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        return (document["photos"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    }

    /// `d/loop -> ../..` is not entered: no photo outside d, the same
    /// answer run after run. A link to a photo is that photo; a path named
    /// is followed even when it is a link.
    @Test func theFolderGivenIsTheFolderSearched() throws {
        let fm = FileManager.default
        let trip = photos
        let outside = cli.workingDirectory.appendingPathComponent("outside")
        try fm.createDirectory(at: outside, withIntermediateDirectories: true)
        try fm.copyItem(at: trip.appendingPathComponent("coffee.jpg"), to: outside.appendingPathComponent("secret-outside.jpg"))
        try fm.copyItem(at: trip.appendingPathComponent("rocket.jpg"), to: outside.appendingPathComponent("linked.jpg"))
        try fm.createSymbolicLink(atPath: trip.appendingPathComponent("loop").path, withDestinationPath: "../..")
        try fm.createSymbolicLink(atPath: trip.appendingPathComponent("linked.jpg").path, withDestinationPath: "../outside/linked.jpg")
        try fm.createSymbolicLink(atPath: cli.workingDirectory.appendingPathComponent("to-d").path, withDestinationPath: "Trip")
        let first = try suggest("--recursive", "--json", "Trip")
        #expect(first.succeeded, "\(first)")
        let found = try paths(first)
        #expect(found.count == SuggestPhotos.shots.count + 1, "\(found)")
        #expect(found.allSatisfy { $0.hasPrefix(trip.path + "/") && !$0.contains("secret-outside") }, "\(found)")
        #expect(found.contains(trip.appendingPathComponent("linked.jpg").path))
        #expect(first.stderr.hasPrefix("collage: warning: skipped 1 not a photo: notes.txt; 1 unreadable (")
                && first.stderr.hasSuffix("; 1 link to a folder, not entered without --follow-links: loop\n"), "\(first)")
        let again = try suggest("--recursive", "--json", "Trip")
        #expect(again.stdout == first.stdout && again.stderr == first.stderr)
        let named = try suggest("--recursive", "--json", "to-d")
        let namedPaths = try paths(named)
        #expect(named.succeeded && namedPaths.count == found.count, "\(named)")
    }

    /// With 3 photos in the collage, --add adds 3, never one in it nor its
    /// near-duplicate, and says so; with 6 in, nothing (issue #41).
    @Test func addFillsTheFreePlaces() throws {
        let inCollage = ["astronaut.jpg", "cat.jpg", "rocket.jpg"]
        #expect(try cli.collage(["add"] + inCollage.map { photos.appendingPathComponent($0).path }).succeeded)
        let run = try suggest("Trip", "--add")
        #expect(run.succeeded, "\(run)")
        #expect(run.stdout.hasPrefix("Added 3 photos"), "\(run)")
        #expect(run.stderr.hasSuffix("\nthe collage holds 3 photos: adding 3 to make 6\n"), "\(run)")
        let stored = try #require(try cli.status()["photos"] as? [String])
        #expect(stored.count == 6 && Set(stored).count == 6, "\(stored)")
        let added = stored.dropFirst(3).map { URL(fileURLWithPath: $0).lastPathComponent }
        #expect(Set(added).isDisjoint(with: inCollage + ["cat-again.jpg", "astronaut-blurred.jpg", "astronaut-dark.jpg"]), "\(added)")
        let full = try suggest("Trip", "--add")
        #expect(full.isOneLineRefusal(naming: "the collage is full (6 photos): nothing to add"), "\(full)")
    }

    /// A JPEG cut short is measured as such (its decode read past the end)
    /// and not chosen while whole photos are left (issue #44).
    @Test func aPhotoCutShortIsNotChosenWhileWholeOnesAreLeft() throws {
        let four = cli.workingDirectory.appendingPathComponent("four")
        try FileManager.default.createDirectory(at: four, withIntermediateDirectories: true)
        for name in ["astronaut.jpg", "coffee.jpg", "cameraman.jpg", "rocket.jpg"] {
            try FileManager.default.copyItem(at: photos.appendingPathComponent(name), to: four.appendingPathComponent(name))
        }
        let whole = try Data(contentsOf: photos.appendingPathComponent("cat.jpg"))
        try whole.prefix(whole.count * 6 / 10).write(to: four.appendingPathComponent("cat-cut.jpg"))
        let run = try suggest("four", "--count", "4", "--json")
        #expect(run.succeeded, "\(run)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let cut = try #require((document["photos"] as? [[String: Any]])?.first { ($0["path"] as? String)?.hasSuffix("/cat-cut.jpg") == true })
        #expect(cut["chosen"] as? Bool == false && (cut["corrupt_data"] as? Int ?? 0) > 0, "\(cut)")
        #expect(cut["why_not"] as? String == "cut short or corrupt (its decode read past broken data)", "\(cut)")
    }
}
