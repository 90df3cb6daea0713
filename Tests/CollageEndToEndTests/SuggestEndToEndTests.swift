import CollageKit
import CollageTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `collage suggest` (issue #33) run as a person runs it, over the photos
/// `SuggestPhotos` makes, in a temporary XDG_STATE_HOME and XDG_CACHE_HOME.
@Suite(.serialized) struct SuggestEndToEndTests {
    let cli: CLI
    let photos: URL
    let cache: URL

    init() throws {
        cli = try CLI()
        photos = cli.workingDirectory.appendingPathComponent("Trip")
        cache = try temporaryDirectory()
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try SuggestPhotos.make(in: photos, samples: CLI.samples)
        // A file that is no photo, and a JPEG cut short.
        try Data("notes\n".utf8).write(to: photos.appendingPathComponent("notes.txt"))
        let whole = try Data(contentsOf: photos.appendingPathComponent("coffee.jpg"))
        try whole.prefix(200).write(to: photos.appendingPathComponent("broken.jpg"))
    }

    func suggest(_ arguments: String...) throws -> Run {
        // Titles in a known locale's medium date format.
        // (Through env: bash itself would warn where the locale is not installed.)
        try cli.bash("XDG_CACHE_HOME=\(shellQuoted(cache.path)) exec env LC_ALL=en_US.UTF-8 \"$COLLAGE\" suggest "
                     + arguments.map(shellQuoted).joined(separator: " "))
    }

    func names(_ run: Run) -> [String] {
        run.stdout.split(separator: "\n").map { URL(fileURLWithPath: String($0)).lastPathComponent }
    }

    func takenOrder(_ names: [String]) -> [String] {
        let order = SuggestPhotos.shots.map(\.name)
        return names.sorted { order.firstIndex(of: $0)! < order.firstIndex(of: $1)! }
    }

    @Test func sixOfTheBestInTheOrderTakenNeverABlurredOrDarkCopyNorTwoOfABurst() throws {
        let run = try suggest("Trip")
        #expect(run.succeeded, "\(run)")
        let chosen = names(run)
        #expect(chosen.count == 6, "\(run)")
        #expect(chosen == takenOrder(chosen))
        #expect(Set(chosen).isDisjoint(with: SuggestPhotos.neverChosen), "\(chosen)")
        #expect(!(chosen.contains("cat.jpg") && chosen.contains("cat-again.jpg")), "\(chosen)")
        // The spread: each of the three days.
        #expect(chosen.contains { $0.hasPrefix("astronaut.") || $0.hasPrefix("cat.") || $0.hasPrefix("cat-again") || $0.hasPrefix("coffee.") })
        #expect(chosen.contains { $0.hasSuffix("-mirrored.jpg") && !$0.hasPrefix("astronaut") })
        // Paths are absolute, one a line.
        #expect(run.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix(photos.path + "/") })
        // The skipped files, named, in one line.
        #expect(run.stderr.hasPrefix("collage: warning: skipped 1 not a photo: notes.txt; 1 unreadable (\(photos.path)/broken.jpg: ")
                && run.stderr.filter { $0 == "\n" }.count == 1, "\(run)")
    }

    /// With COLLAGE_TRIP_FOLDER_OUT=DIR the trip's photos are copied to DIR.
    @Test func countTwoAndFour() throws {
        if let out = ProcessInfo.processInfo.environment["COLLAGE_TRIP_FOLDER_OUT"] {
            try? FileManager.default.removeItem(atPath: out)
            try FileManager.default.copyItem(at: photos, to: URL(fileURLWithPath: out))
        }
        for count in [2, 4] {
            let run = try suggest("Trip", "--count", "\(count)")
            #expect(run.succeeded, "\(run)")
            #expect(names(run).count == count)
            #expect(Set(names(run)).isDisjoint(with: SuggestPhotos.neverChosen))
        }
    }

    @Test func jsonExplainsEveryPhoto() throws {
        let run = try suggest("Trip", "--json")
        #expect(run.succeeded, "\(run)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any]
        let entries = object["photos"] as! [[String: Any]]
        #expect(entries.count == SuggestPhotos.shots.count)
        #expect(object["not_photos"] as? Int == 1)
        #expect(object["not_photo_files"] as? [String] == [photos.appendingPathComponent("notes.txt").path])
        #expect((object["unreadable"] as? [String])?.count == 1)
        let chosen = entries.filter { $0["chosen"] as? Bool == true }
        #expect(chosen.count == 6)
        for entry in entries {
            for key in ["path", "taken", "sharpness", "exposure", "duplicate_group", "event", "chosen"] {
                #expect(entry[key] != nil, "\(key) of \(entry)")
            }
            #expect((entry["chosen"] as? Bool == true) == (entry["why_not"] == nil || entry["why_not"] is NSNull), "\(entry)")
            #expect(entry["taken_from"] as? String == "exif")
        }
        func entry(_ name: String) -> [String: Any] { entries.first { ($0["path"] as! String).hasSuffix("/" + name) }! }
        #expect(entry("astronaut.jpg")["duplicate_group"] as? Int == entry("astronaut-blurred.jpg")["duplicate_group"] as? Int)
        #expect(entry("astronaut.jpg")["duplicate_group"] as? Int == entry("astronaut-dark.jpg")["duplicate_group"] as? Int)
        #expect((entry("astronaut-blurred.jpg")["why_not"] as? String)?.hasPrefix("blurred: astronaut.jpg") == true)
        #expect((entry("astronaut-dark.jpg")["why_not"] as? String)?.hasPrefix("badly exposed: astronaut.jpg") == true)
        #expect(entry("astronaut.jpg")["taken"] as? String == "2026-07-04T10:00:00+02:00")
        // The scenes as before the gradient hash (issue #41): the astronaut's
        // three shots, the cat's two and the cameraman's two are one group
        // each, every other shot its own (13 shots, 9 scenes); at 1920x1080
        // no photo is too small for its cell.
        #expect(Set(entries.map { $0["duplicate_group"] as! Int }).count == 9)
        #expect(entries.allSatisfy { !(($0["why_not"] as? String)?.hasPrefix("too small") ?? false) })
        // Three events, on three days.
        #expect(Set(entries.map { $0["event"] as! Int }) == [0, 1, 2])
        #expect(entry("coffee.jpg")["event"] as? Int == 0 && entry("rocket.jpg")["event"] as? Int == 1
                && entry("cat-mirrored.jpg")["event"] as? Int == 2)
    }

    @Test func eventsMakeABatchListWithATitleEach() throws {
        let run = try suggest("Trip", "--events", "--count", "2")
        #expect(run.succeeded, "\(run)")
        let blocks = run.stdout.components(separatedBy: "\n\n")
        #expect(blocks.count == 3, "\(run)")
        for block in blocks {
            let lines = block.split(separator: "\n")
            #expect(lines.first?.hasPrefix("#title ") == true)
            #expect(lines.count == 3, "\(block)")
        }
        #expect(blocks[0].hasPrefix("#title Jul 4, 2026"), "\(run)")
        // The list makes collages as it is.
        let list = cli.workingDirectory.appendingPathComponent("trip.txt")
        try Data(run.stdout.utf8).write(to: list)
        let batch = try cli.collage("batch", list.path, "-o", "collages", "--size", "400x300")
        #expect(batch.succeeded, "\(batch)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.workingDirectory.appendingPathComponent("collages").path).count == 3)
    }

    /// The README's two commands as written, with every default: one
    /// titled collage per day, never a blurred or dark copy. With
    /// COLLAGE_TRIP_OUT=DIR the list and the collages are kept in DIR, for
    /// the README's pictures (scripts/trip-pictures.sh).
    @Test func theReadmesTripExample() throws {
        let run = try cli.bash("XDG_CACHE_HOME=\(shellQuoted(cache.path)) LC_ALL=en_US.UTF-8 \"$COLLAGE\" suggest Trip --events > trip.txt"
                               + " && LC_ALL=en_US.UTF-8 \"$COLLAGE\" batch trip.txt -o collages/")
        #expect(run.succeeded, "\(run)")
        let list = try String(contentsOf: cli.file("trip.txt"), encoding: .utf8)
        let titles = list.split(separator: "\n").filter { $0.hasPrefix("#title ") }
        #expect(titles == ["#title Jul 4, 2026", "#title Jul 5, 2026", "#title Jul 7, 2026"], "\(list)")
        let listed = Set(list.split(separator: "\n").filter { $0.hasPrefix("/") }.map { URL(fileURLWithPath: String($0)).lastPathComponent })
        #expect(listed.isDisjoint(with: SuggestPhotos.neverChosen) && !listed.isEmpty, "\(list)")
        let made = try FileManager.default.contentsOfDirectory(atPath: cli.file("collages").path).sorted()
        #expect(made == ["collage-001.jpg", "collage-002.jpg", "collage-003.jpg"], "\(made)")
        for name in made { #expect(isCompleteImage(cli.file("collages/\(name)").path, width: 1920, height: 1080), "\(name)") }
        if let out = ProcessInfo.processInfo.environment["COLLAGE_TRIP_OUT"] {
            let folder = URL(fileURLWithPath: out)
            try? FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(list.replacingOccurrences(of: photos.path + "/", with: "~/Pictures/2026-07-Trip/").utf8)
                .write(to: folder.appendingPathComponent("trip.txt"))
            for name in made { try FileManager.default.copyItem(at: cli.file("collages/\(name)"), to: folder.appendingPathComponent(name)) }
        }
    }

    @Test func anEventWithTooFewPhotosIsSkippedAndSaid() throws {
        for name in ["cat-mirrored.jpg", "coffee-mirrored.jpg"] {
            try FileManager.default.removeItem(at: photos.appendingPathComponent(name))
        }
        let run = try suggest("Trip", "--events", "--count", "2")
        #expect(run.succeeded, "\(run)")
        #expect(run.stdout.components(separatedBy: "\n\n").count == 2)
        #expect(run.stderr.contains("collage: warning: skipped the event of Jul 7, 2026: fewer than two photos worth showing"), "\(run)")
    }

    @Test func addAddsTheChoiceWhole() throws {
        let run = try suggest("Trip", "--add")
        #expect(run.succeeded, "\(run)")
        #expect(run.stdout.hasPrefix("Added 6 photos"), "\(run)")
        #expect(try cli.storedPhotos().count == 6)
        // All or nothing: a collage that is full takes none of another six.
        let again = try suggest("Trip", "--add")
        #expect(again.status == 1, "\(again)")
        #expect(try cli.storedPhotos().count == 6)
    }

    @Test func theCacheMakesTheSecondRunTheSameAndADamagedOneIsRebuilt() throws {
        let first = try suggest("Trip", "--json")
        let file = cache.appendingPathComponent("collage/measures.sqlite")
        #expect(FileManager.default.fileExists(atPath: file.path))
        let second = try suggest("Trip", "--json")
        #expect(second.stdout == first.stdout)
        try Data("{\"version\":1,\"photos\":{\"/x\":".utf8).write(to: file)
        let third = try suggest("Trip", "--json")
        #expect(third.succeeded)
        #expect(third.stderr.contains("collage: warning: \(file.path) was damaged: measuring again"), "\(third)")
        #expect(third.stdout == first.stdout)
        // Rebuilt: an SQLite database again, read by the next run as it is.
        let written = try Data(contentsOf: file)
        #expect(written.starts(with: Array("SQLite format 3\u{0}".utf8)))
        let fourth = try suggest("Trip", "--json")
        #expect(!fourth.stderr.contains("damaged"), "\(fourth)")
        #expect(fourth.stdout == first.stdout)
    }

    /// A cache that cannot be made (its folder's name taken by a file):
    /// one line, and the run measures without it.
    @Test func aCacheThatCannotBeMadeIsSaidAndTheRunGoesOn() throws {
        try Data("a file".utf8).write(to: cache.appendingPathComponent("collage"))
        let run = try suggest("Trip", "--count", "2")
        #expect(run.succeeded, "\(run)")
        #expect(names(run).count == 2)
        let said = run.stderr.split(separator: "\n").filter { $0.contains("measuring without the cache") }
        #expect(said == ["collage: warning: \(cache.path)/collage/measures.sqlite: cannot make \(cache.path)/collage: "
                         + "File exists: measuring without the cache"], "\(run)")
    }

    /// Two runs at once over the two halves of a library, then one over
    /// the whole: it measures nothing again (issue #43: one JSON file,
    /// written whole by each run, lost one half). Each photo is then
    /// overwritten with zeros of its size and given back its time: a run
    /// that measured it again would find no photo.
    @Test func aRunAfterTwoRunsAtOnceOverTheHalvesMeasuresNothingAgain() throws {
        let library = cli.workingDirectory.appendingPathComponent("Library")
        let names = try FileManager.default.contentsOfDirectory(atPath: photos.path).filter { $0.hasSuffix(".jpg") && $0 != "broken.jpg" }.sorted()
        for (i, name) in names.enumerated() {
            let half = library.appendingPathComponent(i % 2 == 0 ? "a" : "b")
            try FileManager.default.createDirectory(at: half, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: photos.appendingPathComponent(name), to: half.appendingPathComponent(name))
        }
        let fresh = try temporaryDirectory()
        let expected = try cli.bash("XDG_CACHE_HOME=\(shellQuoted(fresh.path)) \"$COLLAGE\" suggest --recursive --events Library")
        #expect(expected.succeeded, "\(expected)")
        let halves = try cli.bash("export XDG_CACHE_HOME=\(shellQuoted(cache.path)); "
                                  + "\"$COLLAGE\" suggest Library/a >/dev/null & \"$COLLAGE\" suggest Library/b >/dev/null & wait")
        #expect(halves.succeeded, "\(halves)")
        let zeroed = try cli.bash("for f in Library/*/*.jpg; do cp -p \"$f\" time.ref && "
                                  + "head -c \"$(stat -c %s \"$f\")\" /dev/zero > \"$f\" && touch -r time.ref \"$f\" || exit 1; done")
        #expect(zeroed.succeeded, "\(zeroed)")
        let whole = try cli.bash("XDG_CACHE_HOME=\(shellQuoted(cache.path)) \"$COLLAGE\" suggest --recursive --events Library")
        #expect(whole.succeeded, "\(whole)")
        #expect(whole.stdout == expected.stdout)
        #expect(whole.stderr == expected.stderr, "\(whole)")
    }

    /// Two runs that open a new cache at once both use it: SQLite answered
    /// one "database is locked" at once (its switch to WAL is not left to
    /// the busy handler), and that run measured without the cache, its
    /// half lost, one time in four. Sixteen pairs over the suite's photos, each
    /// on a cache of its own (one writing while the other opens is the race).
    @Test func twoRunsOpeningANewCacheTogetherBothUseIt() throws {
        let caches = try temporaryDirectory()
        let pairs = try cli.bash("for i in $(seq 16); do export XDG_CACHE_HOME=\(shellQuoted(caches.path))/$i; "
                                 + "\"$COLLAGE\" suggest \(shellQuoted(photos.path)) >/dev/null & "
                                 + "\"$COLLAGE\" suggest \(shellQuoted(photos.path)) >/dev/null & wait; done")
        #expect(pairs.succeeded && !pairs.stderr.contains("without the cache"), "\(pairs)")
    }

    /// A run killed (SIGKILL: no handler runs) keeps what it measured: the
    /// cache is written in batches as photos are measured, not at the end.
    @Test func aKilledRunKeepsWhatItMeasured() throws {
        // 1,200 names of one photo (hard links, no copies): seconds of
        // measuring. (With 400 the run could measure the rest between its
        // first batch of 256 and the poll that saw it, now that measuring is
        // quicker, and write all 400 before it was killed.)
        let folder = cli.workingDirectory.appendingPathComponent("Many")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let first = folder.appendingPathComponent("p1.jpg")
        try FileManager.default.copyItem(atPath: CLI.jpegs[2], toPath: first.path)
        for index in 2...1200 { try FileManager.default.linkItem(at: first, to: folder.appendingPathComponent("p\(index).jpg")) }
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["suggest", folder.path]
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["XDG_STATE_HOME": cli.state.path, "XDG_CACHE_HOME": cache.path]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let file = cache.appendingPathComponent("collage/measures.sqlite")
        var kept = 0
        let deadline = Date().addingTimeInterval(60)
        while kept == 0 && process.isRunning && Date() < deadline {
            usleep(50_000)
            if FileManager.default.fileExists(atPath: file.path) { kept = MeasuresCache(file: file).count }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "killed while measuring")
        let afterKill = MeasuresCache(file: file).count
        #expect(afterKill > 0 && afterKill < 1200, "\(afterKill) of 1,200 kept")
        // (One scene 1,200 times: too few worth showing, but all measured.)
        let again = try suggest("Many")
        #expect(again.stderr.contains("(1200 photos looked at)"), "\(again)")
        #expect(MeasuresCache(file: file).count == 1200)
    }

    @Test func recursiveLooksInFoldersInside() throws {
        let top = cli.workingDirectory.appendingPathComponent("Pictures")
        try FileManager.default.createDirectory(at: top, withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: photos, to: top.appendingPathComponent("Trip"))
        // A link back up the tree is no loop.
        try FileManager.default.createSymbolicLink(atPath: top.appendingPathComponent("Trip/up").path, withDestinationPath: "..")
        let flat = try suggest("Pictures")
        #expect(flat.isOneLineRefusal(naming: "fewer than two photos worth showing"), "\(flat)")
        let deep = try suggest("Pictures", "--recursive", "--count", "4")
        #expect(deep.succeeded, "\(deep)")
        #expect(names(deep).count == 4)
    }

    /// A photo without a capture date has none: never its file's time (a
    /// copy's is the copy's). The undated come after the dated, and stderr
    /// says how many (issue #41).
    @Test func photosWithoutADateOrFromTheFutureAndAFolderWithNoneWork() throws {
        let mixed = cli.workingDirectory.appendingPathComponent("Mixed")
        try FileManager.default.createDirectory(at: mixed, withIntermediateDirectories: true)
        // Undated (the samples carry no EXIF date), copied today.
        for name in ["coffee-cup.jpg", "chelsea-the-cat.jpg", "cameraman-grayscale.jpg"] {
            try FileManager.default.copyItem(atPath: sample(name), toPath: mixed.appendingPathComponent(name).path)
        }
        // Dated in 2099.
        let engine = ImageEngine()
        var future = try engine.picture(of: Photo(path: sample("astronaut-eileen-collins.jpg")), fitting: 320, height: 240)
        future.dateTaken = "2099:01:01 12:00:00"
        try Data(try engine.encode(future, as: .standard, options: .defaults)).write(to: mixed.appendingPathComponent("future.jpg"))
        try FileManager.default.createDirectory(at: mixed.appendingPathComponent("empty"), withIntermediateDirectories: true)
        let run = try suggest("Mixed", "--json", "--count", "4")
        #expect(run.succeeded, "\(run)")
        let entries = try #require((try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])?["photos"] as? [[String: Any]])
        #expect(entries.count == 4)
        #expect(entries.filter { $0["taken_from"] as? String == "none" && $0["taken"] is NSNull }.count == 3)
        #expect((entries.first?["path"] as? String)?.hasSuffix("/future.jpg") == true, "the dated first, the undated after")
        #expect(entries.filter { $0["chosen"] as? Bool == true }.count == 4)
        #expect(run.stderr == "collage: warning: 3 photos have no capture date (EXIF): they count as taken after the dated ones\n", "\(run)")
        let empty = try suggest("Mixed/empty")
        #expect(empty.isOneLineRefusal(naming: "fewer than two photos worth showing"), "\(empty)")
    }

    /// `suggest` under /usr/bin/time: the run and its peak RSS in KiB.
    func measuredSuggest(_ arguments: String...) throws -> (Run, Int) {
        let report = cli.file(".rss")
        let run = try cli.bash("XDG_CACHE_HOME=\(shellQuoted(cache.path)) exec /usr/bin/time -o \(shellQuoted(report.path)) -f %M "
                               + "\"$COLLAGE\" suggest " + arguments.map(shellQuoted).joined(separator: " "), timeout: 600)
        let kib = Int(try String(contentsOf: report, encoding: .utf8).split(separator: "\n").last.map(String.init) ?? "") ?? -1
        try FileManager.default.removeItem(at: report)
        return (run, kib)
    }

    /// A folder of 100,000 entries, nearly all empty files, and three
    /// photos: the photos are chosen, the rest counted in one line, and the
    /// peak is the peak over the three photos alone plus a little per entry
    /// (a name and a verdict; never a picture).
    @Test func aFolderOfAHundredThousandEntries() throws {
        let many = cli.workingDirectory.appendingPathComponent("Many")
        try FileManager.default.createDirectory(at: many, withIntermediateDirectories: true)
        let started = Date()
        // open(2) directly: FileManager takes several times as long.
        for i in 0..<100_000 {
            let fd = open(many.appendingPathComponent(String(format: "f%06d.dat", i)).path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            #expect(fd >= 0)
            close(fd)
        }
        let made = Date().timeIntervalSince(started)
        let few = cli.workingDirectory.appendingPathComponent("Few")
        try FileManager.default.createDirectory(at: few, withIntermediateDirectories: true)
        for name in ["astronaut.jpg", "rocket.jpg", "cat-mirrored.jpg"] {
            try FileManager.default.copyItem(at: photos.appendingPathComponent(name), to: many.appendingPathComponent(name))
            try FileManager.default.copyItem(at: photos.appendingPathComponent(name), to: few.appendingPathComponent(name))
        }
        let (small, smallKiB) = try measuredSuggest("Few", "--count", "2")
        #expect(small.succeeded, "\(small)")
        let clock = Date()
        let (run, kib) = try measuredSuggest("Many", "--count", "2")
        let seconds = Date().timeIntervalSince(clock)
        #expect(run.succeeded, "\(run)")
        #expect(names(run).count == 2 && Set(names(run)).isSubset(of: ["astronaut.jpg", "rocket.jpg", "cat-mirrored.jpg"]), "\(run)")
        #expect(run.stderr == "collage: warning: skipped 100000 not photos: f000000.dat, f000001.dat, f000002.dat and 99997 more\n",
                "\(run)")
        // 100,000 entries of at most a few hundred bytes each. Not under the
        // sanitizers (`make test-sanitized` sets ASAN_OPTIONS): there every
        // freed block waits in AddressSanitizer's quarantine (256 MB), and the
        // peak was 806 MiB over the three photos', which says nothing of what
        // collage keeps.
        if ProcessInfo.processInfo.environment["ASAN_OPTIONS"] == nil {
            #expect(kib - smallKiB < 48 << 10, "peak \(kib) KiB, \(smallKiB) KiB over the three photos alone")
        }
        note("suggest over 100,003 entries: \(String(format: "%.1f", seconds)) s, peak \(kib / 1024) MiB (\(smallKiB / 1024) MiB "
             + "over the 3 photos alone); the entries made in \(String(format: "%.1f", made)) s")
    }

    /// Folders that may not be read: one inside is skipped and said in the
    /// summary line, the one named is a one-line refusal. As root, permission
    /// bits do not stop reads, so the binary runs as `nobody` (setpriv);
    /// without setpriv the test says so instead of passing on nothing.
    @Test func foldersThatMayNotBeRead() throws {
        let locked = photos.appendingPathComponent("Locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: photos.appendingPathComponent("coffee.jpg"), to: locked.appendingPathComponent("coffee.jpg"))
        #expect(chmod(locked.path, 0o000) == 0)
        defer { chmod(locked.path, 0o755) }
        var prefix = "exec"
        if runningAsRoot {
            guard setprivAvailable else {
                note("running as root without setpriv: a folder without read permission is still read; not tested")
                return
            }
            // nobody must be able to write the cache.
            #expect(chown(cache.path, 65534, 65534) == 0)
            prefix = "exec setpriv --reuid=65534 --regid=65534 --clear-groups"
        }
        func suggest(_ path: String) throws -> Run {
            try cli.bash("XDG_CACHE_HOME=\(shellQuoted(cache.path)) \(prefix) \"$COLLAGE\" suggest --recursive --count 2 \(shellQuoted(path))",
                         timeout: 60)
        }
        let inside = try suggest("Trip")
        #expect(inside.succeeded, "\(inside)")
        #expect(names(inside).count == 2)
        #expect(inside.stderr.hasPrefix("collage: warning: skipped 1 not a photo: notes.txt; 1 unreadable (")
                && inside.stderr.contains("; 1 folder not readable (cannot open \(locked.path): Permission denied)")
                && inside.stderr.filter { $0 == "\n" }.count == 1, "\(inside)")
        let named = try suggest(locked.path)
        #expect(named.isOneLineRefusal(naming: locked.path) && named.stderr.contains("Permission denied"), "\(named)")
    }

    /// Links that loop: a link to itself, two links to each other, and two
    /// folders each holding a link to the other. Each real folder is looked
    /// in once; a link that leads nowhere is no file; a link to a folder is
    /// entered only with --follow-links, and then each real folder still once.
    @Test func symbolicLinkLoops() throws {
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: photos.appendingPathComponent("self.jpg").path, withDestinationPath: "self.jpg")
        try fm.createSymbolicLink(atPath: photos.appendingPathComponent("ping.jpg").path, withDestinationPath: "pong.jpg")
        try fm.createSymbolicLink(atPath: photos.appendingPathComponent("pong.jpg").path, withDestinationPath: "ping.jpg")
        for (folder, other) in [("A", "B"), ("B", "A")] {
            try fm.createDirectory(at: photos.appendingPathComponent(folder), withIntermediateDirectories: true)
            try fm.createSymbolicLink(atPath: photos.appendingPathComponent("\(folder)/to-\(other)").path, withDestinationPath: "../\(other)")
        }
        try fm.copyItem(at: photos.appendingPathComponent("coffee.jpg"), to: photos.appendingPathComponent("A/coffee-in-a.jpg"))
        for follow in [false, true] {
            let run = try follow ? suggest("Trip", "--recursive", "--follow-links", "--json") : suggest("Trip", "--recursive", "--json")
            #expect(run.succeeded, "\(run)")
            let entries = try #require((try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])?["photos"] as? [[String: Any]])
            let paths = entries.compactMap { $0["path"] as? String }
            #expect(paths.count == SuggestPhotos.shots.count + 1, "\(paths)")
            #expect(paths.filter { $0.hasSuffix("/coffee-in-a.jpg") }.count == 1, "\(paths)")
            // The same line as without the links, and the links not entered named.
            #expect(run.stderr.hasPrefix("collage: warning: skipped 1 not a photo: notes.txt; 1 unreadable (\(photos.path)/broken.jpg: ")
                    && run.stderr.filter { $0 == "\n" }.count == 1, "\(run)")
            #expect(run.stderr.hasSuffix(follow ? ")\n" : "; 2 links to a folder, not entered without --follow-links: A/to-B, B/to-A\n"), "\(run)")
        }
    }

    @Test func badArgumentsAreOneLineRefusals() throws {
        #expect(try suggest("Nowhere").isOneLineRefusal(naming: "Nowhere"))
        let count = try suggest("Trip", "--count", "3")
        #expect(count.status != 0 && count.stderr.contains("--count 3 is not one of 2, 4 or 6"), "\(count)")
        let both = try suggest("Trip", "--add", "--events")
        #expect(both.status != 0 && both.stderr.contains("--add and --events do not go together"), "\(both)")
    }
}
