@testable import CollageKit
import Foundation
import XCTest

/// A photo of a scene (`hash`) at `time` seconds, with its sharpness and
/// exposure.
private func shot(_ name: String, time: Double?, hash: UInt64, gradientHash: UInt64? = nil, sharpness: Double = 100,
                  mean: Double = 0.5, dark: Double = 0, faces: Int? = nil, width: Int = 1600, height: Int = 1200,
                  corrupt: Int = 0, folder: String = "/photos") -> MeasuredPhoto {
    MeasuredPhoto(photo: Photo(path: "\(folder)/\(name)"),
                  measures: PhotoMeasures(width: width, height: height,
                                          taken: time.map { PhotoTime(instant: $0, wallClock: $0) },
                                          hash: hash, gradientHash: gradientHash, sharpness: sharpness, darkShare: dark, meanLevel: mean,
                                          corruptData: corrupt, faces: faces))
}

/// Hashes far apart from each other (about 32 bits each way).
private func scene(_ n: Int) -> UInt64 {
    var state = UInt64(n) &* 0x9E37_79B9_7F4A_7C15 &+ 0x1234_5678
    state ^= state >> 31
    state = state &* 0xBF58_476D_1CE4_E5B9
    return state ^ (state >> 29)
}

final class DuplicateGroupsTests: XCTestCase {
    func testHammingDistanceCountsDifferingBits() {
        XCTAssertEqual(DuplicateGroups.distance(0, 0), 0)
        XCTAssertEqual(DuplicateGroups.distance(0b1011, 0), 3)
        XCTAssertEqual(DuplicateGroups.distance(.max, 0), 64)
    }

    func testNearHashesShareAGroupAndFarOnesDoNot() {
        let a = scene(1), b = scene(2)
        let hashes = [a, a ^ 0b111, b, b ^ (1 << 40), a ^ 0xFFF]   // 3, 1 and 12 bits: near; a and b: far
        XCTAssertGreaterThan(DuplicateGroups.distance(a, b), 20)
        XCTAssertEqual(DuplicateGroups.groups(of: hashes), [0, 0, 1, 1, 0])
        // 13 bits is another scene.
        XCTAssertEqual(DuplicateGroups.groups(of: [a, a ^ 0x1FFF]), [0, 1])
    }

    func testABurstDriftingSlowlyStaysOneGroup() {
        let a = scene(3)
        let drifting = (0..<5).map { a ^ ((UInt64(1) << UInt64(10 * $0)) - 1) }  // each 10 bits from the last
        XCTAssertEqual(Set(DuplicateGroups.groups(of: drifting)), [0])
    }

    func testOnlyTheWindowBeforeIsCompared() {
        let a = scene(4)
        let hashes = [a] + (5..<10).map(scene) + [a]
        XCTAssertEqual(DuplicateGroups.groups(of: hashes, window: 3).last, 6)
        XCTAssertEqual(DuplicateGroups.groups(of: hashes, window: 6).last, 0)
    }
}

final class PhotoEventsTests: XCTestCase {
    func testLongGapsAgainstTheUsualPaceStartEvents() {
        let day = 86_400.0
        // A morning (a minute apart), a burst the next day, an evening two days on.
        let times = [0, 60, 120, 180, day, day + 1, day + 2, day + 40, 3 * day, 3 * day + 300]
        XCTAssertEqual(PhotoEvents.events(of: times), [0, 0, 0, 0, 1, 1, 1, 1, 2, 2])
    }

    func testAnEvenPaceIsOneEvent() {
        XCTAssertEqual(Set(PhotoEvents.events(of: (0..<30).map { Double($0) * 3600 })), [0])
    }

    func testAShortBreakNeverSplits() {
        // Bursts a second apart, then 20 minutes: far above the pace, but short.
        let times = (0..<10).map(Double.init) + (0..<10).map { 1200 + Double($0) }
        XCTAssertEqual(Set(PhotoEvents.events(of: times)), [0])
    }

    func testNoPhotoAndOne() {
        XCTAssertEqual(PhotoEvents.events(of: []), [])
        XCTAssertEqual(PhotoEvents.events(of: [5]), [0])
    }
}

final class SuggestionChoiceTests: XCTestCase {
    func testTheSharpestOfABurstIsItsBestAndTheBlurredOneIsSaidSo() {
        let a = scene(1)
        let photos = [shot("a1.jpg", time: 0, hash: a, sharpness: 90), shot("a2.jpg", time: 1, hash: a ^ 1, sharpness: 120),
                      shot("a3.jpg", time: 2, hash: a ^ 2, sharpness: 30)]
        let verdicts = SuggestionChoice().judge(photos)
        XCTAssertEqual(verdicts.map(\.group), [0, 0, 0])
        XCTAssertNil(verdicts[0].score)
        XCTAssertNotNil(verdicts[1].score)
        XCTAssertEqual(verdicts[0].whyNot, "near-duplicate of a2.jpg, a better shot of the same scene")
        XCTAssertEqual(verdicts[2].whyNot, "blurred: a2.jpg of the same scene is sharper")
    }

    func testAWellExposedShotBeatsASharperDarkOne() {
        let a = scene(2)
        let photos = [shot("dark.jpg", time: 0, hash: a, sharpness: 200, mean: 0.08, dark: 0.5),
                      shot("fine.jpg", time: 1, hash: a, sharpness: 150)]
        let verdicts = SuggestionChoice().judge(photos)
        XCTAssertNotNil(verdicts[1].score)
        XCTAssertEqual(verdicts[0].whyNot, "badly exposed: fine.jpg of the same scene is better exposed")
    }

    func testABlankPictureIsNotWorthShowing() {
        let verdicts = SuggestionChoice().judge([shot("blank.jpg", time: 0, hash: scene(3), sharpness: 0.2)])
        XCTAssertNil(verdicts[0].score)
        XCTAssertEqual(verdicts[0].whyNot, "not worth showing: no detail (a blank or flat picture)")
    }

    func testTheCountIsKeptOrEvenAndFewer() {
        let choice = SuggestionChoice(count: 6)
        XCTAssertEqual([0, 1, 2, 3, 5, 6, 7, 40].map { choice.chosenCount(available: $0) }, [0, 0, 2, 2, 4, 6, 6, 6])
        XCTAssertEqual(SuggestionChoice(count: 2).chosenCount(available: 9), 2)
    }

    func testTheChoiceSpreadsOverTheTime() {
        // Twelve scenes of equal worth: the six chosen are not six neighbours.
        let photos = (0..<12).map { shot("p\($0).jpg", time: Double($0) * 600, hash: scene($0 + 10)) }
        let choice = SuggestionChoice(count: 6)
        var verdicts = choice.judge(photos)
        let chosen = choice.choose(&verdicts)
        XCTAssertEqual(chosen.count, 6)
        XCTAssertEqual(chosen, chosen.sorted())
        XCTAssertTrue(chosen.contains { $0 < 3 } && chosen.contains { $0 > 8 }, "\(chosen)")
        let gaps = zip(chosen.dropFirst(), chosen).map { $0 - $1 }
        XCTAssertLessThanOrEqual(gaps.max()!, 3, "\(chosen)")
        XCTAssertEqual(verdicts.filter(\.chosen).count, 6)
        XCTAssertTrue(verdicts.filter { !$0.chosen }.allSatisfy { $0.whyNot != nil })
    }

    func testFacesArePreferredBetweenOtherwiseEqualPhotos() {
        let photos = (0..<4).map { shot("p\($0).jpg", time: Double($0), hash: scene($0 + 30), faces: $0 == 2 ? 1 : 0) }
        let choice = SuggestionChoice(count: 2)
        var verdicts = choice.judge(photos)
        XCTAssertTrue(choice.choose(&verdicts).contains(2))
    }

    func testShapesThatFitTheCanvasArePreferred() {
        let choice = SuggestionChoice(count: 2, canvasShape: 16.0 / 9)
        let wide = choice.score(shot("w.jpg", time: 0, hash: 0, width: 1920, height: 1080).measures)
        let tall = choice.score(shot("t.jpg", time: 0, hash: 0, width: 1080, height: 1920).measures)
        XCTAssertGreaterThan(wide, tall)
    }

    func testTooFewWorthShowingChoosesNoneAndSaysWhy() {
        let choice = SuggestionChoice(count: 6)
        var verdicts = choice.judge([shot("only.jpg", time: 0, hash: scene(40))])
        XCTAssertEqual(choice.choose(&verdicts), [])
        XCTAssertEqual(verdicts[0].whyNot, "too few photos worth showing for a collage")
    }

    func testOnlyTheRunningAreChosenAndTheRestSaySo() {
        let photos = (0..<60).map { shot("p\($0).jpg", time: Double($0) * 60, hash: scene($0 + 100)) }
        let choice = SuggestionChoice(count: 2)
        var verdicts = choice.judge(photos)
        let running = choice.running(verdicts)
        XCTAssertEqual(running.count, 8)
        var measured = photos
        let chosen = choice.settle(&verdicts, photos: &measured, running: running) { asked, photos in
            for i in asked { photos[i].measures.faces = 0 }
        }
        XCTAssertEqual(chosen.count, 2)
        XCTAssertTrue(chosen.allSatisfy(running.contains))
        XCTAssertEqual(verdicts.filter { $0.whyNot == "not chosen: a better photo was taken near it" }.count, 52)
    }

    /// Faces are looked for only where they could change a pick, and the
    /// choice is the one every running photo's faces would give: over
    /// photos of differing worth (exposure, shape), with people in some,
    /// none, or all, for each count.
    func testFacesAreLookedForOnlyWhereTheyCouldChangeThePickAndTheChoiceIsTheSame() {
        var seed: UInt64 = 31
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        var asked = [0, 0, 0], running = [0, 0, 0]
        for round in 0..<60 {
            let people = round % 3   // none, some, all
            let photos = (0..<(20 + next(60))).map { i in
                shot("p\(i).jpg", time: Double(i) * 60, hash: scene(i + 200), mean: [0.5, 0.5, 0.12][next(3)],
                     dark: Double(next(30)) / 100, width: [1600, 1200, 1920][next(3)], height: 1200)
            }
            let faces = photos.indices.map { _ in people == 0 ? 0 : people == 2 ? 1 + next(2) : next(3) == 0 ? 1 : 0 }
            let choice = SuggestionChoice(count: SuggestionChoice.counts[next(3)])
            let judged = choice.judge(photos)
            let inRunning = choice.running(judged)

            // Every running photo's faces first, then the choice.
            var everyFace = photos
            for i in inRunning { everyFace[i].measures.faces = faces[i] }
            var full = judged
            for i in inRunning { full[i].score = choice.score(everyFace[i].measures) }
            let expected = choice.choose(&full, among: inRunning)

            var lazy = judged, measured = photos
            var searched: Set<Int> = []
            let chosen = choice.settle(&lazy, photos: &measured, running: inRunning, batch: 1 + next(2)) { batch, photos in
                for i in batch {
                    XCTAssertNil(photos[i].measures.faces, "each photo is searched once")
                    XCTAssertTrue(inRunning.contains(i))
                    photos[i].measures.faces = faces[i]
                    searched.insert(i)
                }
            }
            XCTAssertEqual(chosen, expected, "round \(round)")
            XCTAssertEqual(lazy.map(\.chosen), full.map(\.chosen), "round \(round)")
            asked[people] += searched.count
            running[people] += inRunning.count
        }
        // People everywhere: about one search a pick; nowhere: most of the running.
        XCTAssertLessThan(Double(asked[2]), 0.6 * Double(running[2]), "\(asked) of \(running)")
        XCTAssertLessThan(asked[1], running[1], "\(asked) of \(running)")
        XCTAssertLessThanOrEqual(asked[0], running[0])
    }
}

final class PhotoTimeTests: XCTestCase {
    func testTheCameraDateWithItsOffset() {
        let time = try! XCTUnwrap(PhotoTime(exif: "2026:07:04 18:30:00+02:00"))
        XCTAssertEqual(time.instant, 1_783_182_600)   // 16:30 UTC
        XCTAssertEqual(time.wallClock - time.instant, 7200)
        XCTAssertEqual(time.iso8601, "2026-07-04T18:30:00+02:00")
    }

    /// Without a date there is none: a copy's file time is the copy's, not
    /// the photo's (issue #41).
    func testWithoutAnOffsetTheDateIsThisZonesAndWithoutADateThereIsNone() {
        let zone = TimeZone(secondsFromGMT: -3600)!
        XCTAssertEqual(PhotoTime(exif: "2026:07:04 18:30:00", zone: zone)?.instant, 1_783_182_600 + 3 * 3600)
        XCTAssertNil(PhotoTime(exif: nil, zone: zone))
    }

    /// One reading of an EXIF date, for events and captions alike: what is
    /// not a date is none (not rolled over into the next month), so a
    /// caption is not drawn and the file's time is used.
    func testOnlyARealDateIsADate() {
        XCTAssertEqual(PhotoTime.wallClock(exif: "2019:07:04 23:59:00"), 1_562_284_740)
        for text in ["2026:02:30 10:00:00", "2026:13:01 10:00:00", "2026:07:04 24:00:00", "2026:07:+4 10:00:00",
                     "0000:00:00 00:00:00", "2026:07:04"] {
            XCTAssertNil(PhotoTime.wallClock(exif: text), text)
            XCTAssertNil(PhotoTime(exif: text), text)
            XCTAssertNil(CaptionSource.date.caption(for: Photo(path: "/p/a.jpg"), dateTaken: text), text)
        }
    }
}

extension MeasuresCache {
    /// The rows of `folder` (`measures(inFolder:)`'s), in the order given.
    fileprivate func rows(inFolder folder: String) -> [(name: [UInt8], measures: PhotoMeasures)] {
        var rows: [(name: [UInt8], measures: PhotoMeasures)] = []
        measures(inFolder: Array(folder.utf8)) { name, _, measures in rows.append((Array(name), measures)) }
        return rows
    }
}

final class MeasuresCacheTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("measures-cache-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private var file: URL { folder.appendingPathComponent("collage/measures.sqlite") }

    func testARoundTripKeepsEveryMeasureExactly() throws {
        var cache: MeasuresCache? = MeasuresCache(file: file)
        let photo = Photo(path: "/photos/a.jpg"), odd = Photo(fileSystemPath: Array("/photos/caf".utf8) + [0xE9] + Array(".jpg".utf8))
        let stamp = FileStamp(size: 1234, modified: 1_783_182_600.123456789)
        var measures = shot("a.jpg", time: 5, hash: .max - 7, sharpness: 123.456, mean: 0.25, dark: 0.125, faces: 2).measures
        measures.fromThumbnail = true
        measures.position = GeoPosition(latitude: 43.4633, longitude: 11.8796)
        var undated = shot("b.jpg", time: nil, hash: 1, corrupt: 3).measures
        undated.gradientHash = 1 << 63
        cache?.store(measures, of: photo, stamp: stamp)
        cache?.store(measures, of: odd, stamp: stamp)
        cache?.store(undated, of: Photo(path: "/photos/b.jpg"), stamp: stamp)
        cache = nil
        let again = MeasuresCache(file: file)
        XCTAssertFalse(again.wasDamaged)
        XCTAssertNil(again.warning)
        XCTAssertEqual(again.count, 3)
        XCTAssertEqual(again.measures(of: photo, stamp: stamp), measures)
        XCTAssertEqual(again.measures(of: odd, stamp: stamp), measures)
        XCTAssertEqual(again.measures(of: Photo(path: "/photos/b.jpg"), stamp: stamp), undated)
        // A folder's rows in one query, in the order of the names' bytes.
        XCTAssertEqual(again.rows(inFolder: "/photos").map(\.name),
                       [Array("a.jpg".utf8), Array("b.jpg".utf8), Array("caf".utf8) + [0xE9] + Array(".jpg".utf8)])
        XCTAssertEqual(again.rows(inFolder: "/photos")[1].measures, undated)
        XCTAssertEqual(again.rows(inFolder: "/photo").count, 0)
        // The file changed: its size or its time.
        XCTAssertNil(again.measures(of: photo, stamp: FileStamp(size: 1235, modified: stamp.modified)))
        XCTAssertNil(again.measures(of: photo, stamp: FileStamp(size: 1234, modified: stamp.modified + 1)))
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
    }

    /// Written as measured, in batches: a run that never saves (killed)
    /// keeps every full batch.
    func testMeasuresAreWrittenInBatchesAsTheyCome() throws {
        let cache = MeasuresCache(file: file, batch: 4)
        for i in 0..<10 {
            cache.store(shot("p\(i).jpg", time: Double(i), hash: scene(i)).measures, of: Photo(path: "/photos/p\(i).jpg"),
                        stamp: FileStamp(size: 1, modified: 0))
        }
        XCTAssertEqual(MeasuresCache(file: file).count, 8)
        cache.save()
        XCTAssertEqual(MeasuresCache(file: file).count, 10)
    }

    func testADamagedCacheIsRebuiltNotTrusted() throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        for damage in ["not a database", String(repeating: "SQLite format 3\u{0}", count: 300)] {
            try Data(damage.utf8).write(to: file)
            var cache: MeasuresCache? = MeasuresCache(file: file)
            XCTAssertEqual(cache?.wasDamaged, true, damage)
            XCTAssertNil(cache?.warning)
            XCTAssertEqual(cache?.count, 0)
            cache?.store(shot("a.jpg", time: 0, hash: 1).measures, of: Photo(path: "/a.jpg"), stamp: FileStamp(size: 1, modified: 0))
            cache = nil
            XCTAssertFalse(MeasuresCache(file: file).wasDamaged)
            XCTAssertEqual(MeasuresCache(file: file).count, 1)
        }
    }

    /// A row holding a value no measure has (a hand's edit) is not
    /// trusted: the photo is measured again.
    func testARowNoMeasureCouldBeIsNotTrusted() throws {
        var cache: MeasuresCache? = MeasuresCache(file: file)
        for name in ["a.jpg", "b.jpg"] {
            cache?.store(shot(name, time: 0, hash: 1).measures, of: Photo(path: "/p/\(name)"), stamp: FileStamp(size: 1, modified: 0))
        }
        cache = nil
        let edit = Process()
        edit.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        edit.arguments = [file.path, "UPDATE photos SET dark = 1.5 WHERE name = CAST('b.jpg' AS BLOB)"]
        try edit.run()
        edit.waitUntilExit()
        XCTAssertEqual(edit.terminationStatus, 0)
        let read = MeasuresCache(file: file)
        XCTAssertNotNil(read.measures(of: Photo(path: "/p/a.jpg"), stamp: FileStamp(size: 1, modified: 0)))
        XCTAssertNil(read.measures(of: Photo(path: "/p/b.jpg"), stamp: FileStamp(size: 1, modified: 0)))
        XCTAssertEqual(read.rows(inFolder: "/p").map { String(decoding: $0.name, as: UTF8.self) }, ["a.jpg"])
    }

    /// A folder the cache cannot be made in: one line, and no cache.
    func testACacheThatCannotBeOpenedSaysSoAndKeepsNothing() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("a file".utf8).write(to: folder.appendingPathComponent("collage"))
        let cache = MeasuresCache(file: file)
        XCTAssertEqual(cache.warning?.hasPrefix("\(file.path): cannot make \(file.deletingLastPathComponent().path): "), true, cache.warning ?? "")
        XCTAssertEqual(cache.warning?.hasSuffix(": measuring without the cache"), true, cache.warning ?? "")
        XCTAssertFalse(cache.warning?.contains("\n") ?? true)
        cache.store(shot("a.jpg", time: 0, hash: 1).measures, of: Photo(path: "/a.jpg"), stamp: FileStamp(size: 1, modified: 0))
        cache.save()
        XCTAssertEqual(cache.count, 0)
    }

    /// Two runs at once (two connections, as two processes have) lose none
    /// of each other's measures.
    func testRunsAtOnceLoseNothing() throws {
        let caches = [MeasuresCache(file: file, batch: 8), MeasuresCache(file: file, batch: 8)]
        DispatchQueue.concurrentPerform(iterations: 2) { run in
            for i in 0..<300 {
                caches[run].store(shot("p\(i).jpg", time: Double(i), hash: scene(i)).measures,
                                  of: Photo(path: "/run\(run)/p\(i).jpg"), stamp: FileStamp(size: Int64(i), modified: 0))
            }
            caches[run].save()
        }
        XCTAssertEqual(MeasuresCache(file: file).count, 600)
    }

    /// The JSON cache of before is imported once and removed; a damaged one
    /// is removed and said.
    func testTheJSONCacheIsImportedOnceAndRemoved() throws {
        let legacy = file.deletingLastPathComponent().appendingPathComponent("measures.json")
        try FileManager.default.createDirectory(at: legacy.deletingLastPathComponent(), withIntermediateDirectories: true)
        let odd = Photo(fileSystemPath: Array("/photos/caf".utf8) + [0xE9] + Array(".jpg".utf8))
        let measures = shot("a.jpg", time: 5, hash: .max - 7, faces: 1).measures
        let stamp = FileStamp(size: 99, modified: 12.5)
        let entries = ["/photos/a.jpg": MeasuresFile.Entry(stamp: stamp, measures: measures),
                       "b64:" + Data(odd.fileSystemPath).base64EncodedString(): MeasuresFile.Entry(stamp: stamp, measures: measures)]
        try Data(try MeasuresFile.bytes(of: entries)).write(to: legacy)
        let cache = MeasuresCache(file: file)
        XCTAssertFalse(cache.wasDamaged)
        XCTAssertEqual(cache.count, 2)
        XCTAssertEqual(cache.measures(of: Photo(path: "/photos/a.jpg"), stamp: stamp), measures)
        XCTAssertEqual(cache.measures(of: odd, stamp: stamp), measures)
        XCTAssertFalse(FileManager.default.fileExists(atPath: legacy.path))
        try Data("{\"version\":1,\"photos\":{\"/x\":".utf8).write(to: legacy)
        let again = MeasuresCache(file: file)
        XCTAssertTrue(again.wasDamaged)
        XCTAssertEqual(again.count, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: legacy.path))
    }

    func testTheJSONReaderRefusesDamage() throws {
        for damage in ["0000000000000000\n{\"version\":1,\"photos\":{}}", "{\"version\":1,\"photos\":{\"/a.jpg\":{\"stamp\":", "not json", "{\"version\":99,\"photos\":{}}",
                       "{\"version\":1,\"photos\":{\"/a.jpg\":{\"stamp\":{\"size\":1,\"modified\":0},\"measures\":{\"hash\":\"zz\"}}}}"] {
            XCTAssertNil(MeasuresFile.entries(reading: Array(damage.utf8)), damage)
        }
    }

    /// A checksum guards against a disk's errors, not against a file
    /// written with a correct one over values no measure has: each such
    /// value makes the whole file refused (Fuzz/FuzzMeasuresCache.swift
    /// holds the reader to it).
    func testValuesNoMeasureHasAreNotTrustedEvenUnderACorrectChecksum() throws {
        let written = try MeasuresFile.bytes(of: ["/a.jpg": MeasuresFile.Entry(stamp: FileStamp(size: 1, modified: 0),
                                                                                measures: shot("a.jpg", time: 0, hash: 1, faces: 1).measures)])
        let json = String(decoding: try XCTUnwrap(MeasuresFile.checked(written)), as: UTF8.self)
        XCTAssertNotNil(MeasuresFile.entries(reading: written))
        for (value, bad) in [("\"width\":1600", "\"width\":0"), ("\"size\":1", "\"size\":-1"), ("\"darkShare\":0", "\"darkShare\":1.5"),
                             ("\"meanLevel\":0.5", "\"meanLevel\":-0.5"), ("\"sharpness\":100", "\"sharpness\":-1"),
                             ("\"faces\":1", "\"faces\":-1"), ("\"sharpness\":100", "\"sharpness\":1e999")] {
            XCTAssertTrue(json.contains(value), "\(value) in \(json)")
            let damaged = Array(json.replacingOccurrences(of: value, with: bad).utf8)
            XCTAssertNil(MeasuresFile.entries(reading: Array(MeasuresFile.checksum(damaged).utf8) + [0x0A] + damaged), bad)
        }
    }

    /// The JSON reader fuzzed: a valid file cut, with bytes changed,
    /// inserted or dropped at random (seeded), never crashes and is either
    /// read as it is or refused, never half-trusted.
    func testRandomDamageIsReadOrRefusedNeverTrustedWrong() throws {
        var entries: [String: MeasuresFile.Entry] = [:]
        for i in 0..<8 {
            entries["/photos/p\(i).jpg"] = MeasuresFile.Entry(stamp: FileStamp(size: Int64(i), modified: Double(i)),
                                                               measures: shot("p\(i).jpg", time: Double(i), hash: scene(i), faces: i % 2).measures)
        }
        let valid = try MeasuresFile.bytes(of: entries)
        var seed: UInt64 = 33
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(max(1, bound)))
        }
        for _ in 0..<2000 {
            var bytes = valid
            for _ in 0...next(4) {
                switch next(4) {
                case 0: bytes[next(bytes.count)] = UInt8(next(256))
                case 1: bytes.insert(UInt8(next(256)), at: next(bytes.count))
                case 2: if bytes.count > 1 { bytes.remove(at: next(bytes.count)) }
                default: bytes = Array(bytes.prefix(next(bytes.count)))
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            let read = MeasuresFile.entries(reading: bytes)
            // Read whole, as written, or not at all.
            if bytes == valid { XCTAssertEqual(read?.count, 8) } else { XCTAssertNil(read) }
        }
    }

    func testTheFolderFollowsXDGCacheHome() {
        XCTAssertEqual(MeasuresCache.defaultFile(environment: ["XDG_CACHE_HOME": "/x/cache", "HOME": "/home/a"]).path,
                       "/x/cache/collage/measures.sqlite")
        XCTAssertEqual(MeasuresCache.defaultFile(environment: ["XDG_CACHE_HOME": "relative", "HOME": "/home/a"]).path,
                       "/home/a/.cache/collage/measures.sqlite")
    }
}

/// Measures a photo from its name alone, counting what it is asked.
private final class CountingMeasurer: PhotoMeasuring, Sendable {
    let measured = Locked(0)
    /// The names of the photos measured.
    let names = Locked([String]())

    func measure(_ photo: Photo) throws -> PhotoMeasures {
        measured.withLock { $0 += 1 }
        names.withLock { $0.append(photo.fileName) }
        let number = Int(photo.fileName.filter(\.isNumber)) ?? 0
        return shot(photo.fileName, time: Double(number) * 60, hash: scene(number)).measures
    }

    func countFaces(_ photo: Photo) throws -> Int { 0 }
}

final class SuggestCacheTests: XCTestCase {
    /// Two runs at once over the two halves of a library, then one over
    /// the whole: it measures nothing again (issue #43: it re-measured half).
    func testARunAfterTwoRunsAtOnceOverTheHalvesMeasuresNothing() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("suggest-cache-\(UUID().uuidString)")
        let cacheFolder = URL(fileURLWithPath: root.path + "-cache")
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: cacheFolder)
        }
        let halves = ["a", "b"].map { root.appendingPathComponent($0) }
        for (h, half) in halves.enumerated() {
            try FileManager.default.createDirectory(at: half, withIntermediateDirectories: true)
            for i in 0..<40 { try Data([UInt8(i)]).write(to: half.appendingPathComponent("p\(h * 40 + i).jpg")) }
        }
        let file = cacheFolder.appendingPathComponent("measures.sqlite")
        let measurers = [CountingMeasurer(), CountingMeasurer()]
        DispatchQueue.concurrentPerform(iterations: 2) { h in
            let service = SuggestService(measurer: measurers[h], cache: MeasuresCache(file: file, batch: 7), places: nil, threads: 2)
            let report = try? service.suggest([Photo(path: halves[h].path)], recursive: false, choice: SuggestionChoice(), byEvents: false)
            XCTAssertEqual(report?.photos.count, 40)
        }
        XCTAssertEqual(measurers.map { $0.measured.current }, [40, 40])
        let whole = CountingMeasurer()
        let report = try SuggestService(measurer: whole, cache: MeasuresCache(file: file), places: nil, threads: 2)
            .suggest([Photo(path: root.path)], recursive: true, choice: SuggestionChoice(), byEvents: true)
        XCTAssertEqual(whole.measured.current, 0)
        XCTAssertEqual(report.photos.count, 80)
        // The same choice as measuring afresh.
        let fresh = try SuggestService(measurer: CountingMeasurer(), cache: nil, places: nil, threads: 2)
            .suggest([Photo(path: root.path)], recursive: true, choice: SuggestionChoice(), byEvents: true)
        XCTAssertEqual(report.choices.map { $0.map { report.photos[$0].photo } }, fresh.choices.map { $0.map { fresh.photos[$0].photo } })
    }
}

/// Takes every file for no photo: a report then lists all the files, in
/// the walk's order.
private final class RefusingMeasurer: PhotoMeasuring, Sendable {
    func measure(_ photo: Photo) throws -> PhotoMeasures {
        throw ImageEngineError(kind: .notImage, message: "\(photo.path): not a photo")
    }

    func countFaces(_ photo: Photo) throws -> Int { 0 }
}

/// Issue #43: a library walked, stat'ed and matched to the cache on all
/// the cores, and still as a walk on one core would find it.
final class LibraryWalkTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("library-walk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: root.path + "-cache"))
    }

    /// An empty file at `path` (bytes, under the root), its folders made.
    private func make(_ path: [UInt8], bytes: Int = 1) {
        let full = Array(root.path.utf8) + [UInt8(ascii: "/")] + path
        let parent = Array(full[..<full.lastIndex(of: UInt8(ascii: "/"))!])
        try? FileManager.default.createDirectory(atPath: String(decoding: parent, as: UTF8.self), withIntermediateDirectories: true)
        let fd = (full + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        }
        XCTAssertGreaterThanOrEqual(fd, 0)
        _ = [UInt8](repeating: 7, count: bytes).withUnsafeBytes { write(fd, $0.baseAddress, bytes) }
        close(fd)
    }

    /// Folders depth first in natural order, each one's files as text
    /// (exact bytes where that ties: "e" and a combining accent is the
    /// same text as "é"), hidden ones left out, a link to a folder not
    /// entered: the order of before, with more folders than workers.
    func testTheWalkOnAllCoresFindsTheFilesInTheOrderOfOne() throws {
        let decomposed = Array("e\u{301}.jpg".utf8), composed = Array("\u{E9}.jpg".utf8)
        let notUTF8 = Array("caf".utf8) + [0xE9] + Array(".jpg".utf8)
        for name in [Array("f.jpg".utf8), composed, decomposed, notUTF8, Array("B.jpg".utf8), Array("a.jpg".utf8),
                     Array(".hidden.jpg".utf8)] {
            make(name)
        }
        let inside = ["a/c.dat", "a/x/y.dat", "A10/m.dat", "A9/n.dat", ".hidden/h.dat"] + (0..<24).map { String(format: "d%02d/p.dat", $0) }
        for path in inside.shuffled() { make(Array(path.utf8)) }
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("link").path, withDestinationPath: "a")
        let report = try SuggestService(measurer: RefusingMeasurer(), cache: nil, places: nil, threads: 2)
            .suggest([Photo(path: root.path)], recursive: true, choice: SuggestionChoice(), byEvents: true)
        let found = report.notPhotos.map { Array($0.fileSystemPath.dropFirst(root.path.utf8.count + 1)) }
        let expected = [Array("B.jpg".utf8), Array("a.jpg".utf8), notUTF8, Array("f.jpg".utf8), decomposed, composed]
            + ["a/c.dat", "a/x/y.dat", "A9/n.dat", "A10/m.dat"].map { Array($0.utf8) }
            + (0..<24).map { Array(String(format: "d%02d/p.dat", $0).utf8) }
        XCTAssertEqual(found.map { String(decoding: $0, as: UTF8.self) }, expected.map { String(decoding: $0, as: UTF8.self) })
        XCTAssertEqual(found, expected)
        XCTAssertEqual(report.unfollowedLinks.map(\.path), [root.appendingPathComponent("link").path])
        XCTAssertTrue(report.photos.isEmpty)
    }

    /// A photo edited since it was measured (its size, or only its time)
    /// is measured again, and only it: in a folder taken whole by a worker
    /// and in one of more than 4,096 files, shared out among the workers.
    func testAnEditedPhotoIsMeasuredAgainAndOnlyIt() throws {
        for i in 0..<30 { make(Array("small/p\(i).jpg".utf8)) }
        for i in 0..<4100 { make(Array("big/q\(i).jpg".utf8)) }
        let file = URL(fileURLWithPath: root.path + "-cache").appendingPathComponent("measures.sqlite")
        func run() throws -> (measured: [String], photos: Int) {
            let measurer = CountingMeasurer()
            let report = try SuggestService(measurer: measurer, cache: MeasuresCache(file: file), places: nil, threads: 2)
                .suggest([Photo(path: root.path)], recursive: true, choice: SuggestionChoice(), byEvents: true)
            return (measurer.names.current.sorted(), report.photos.count)
        }
        XCTAssertEqual(try run().measured.count, 4130)
        XCTAssertEqual(try run().measured, [])
        make(Array("small/p7.jpg".utf8), bytes: 2)
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, root.appendingPathComponent("big/q2050.jpg").path, &times, 0), 0)
        let again = try run()
        XCTAssertEqual(again.measured, ["p7.jpg", "q2050.jpg"])
        XCTAssertEqual(again.photos, 4130)
        XCTAssertEqual(try run().measured, [])
    }
}

final class EventTitleTests: XCTestCase {
    func testADayOrARangeInTheLocalesMediumFormat() {
        let day = 1_783_182_600.0   // 2026-07-04 16:30 (wall clock)
        let us = Locale(identifier: "en_US")
        XCTAssertEqual(SuggestionReport.dateTitle(from: day, to: day + 3600, locale: us), "Jul 4, 2026")
        // ICU puts thin spaces around the dash.
        XCTAssertEqual(SuggestionReport.dateTitle(from: day, to: day + 2 * 86_400, locale: us)
                           .replacingOccurrences(of: "\u{2009}", with: " "), "Jul 4 – 6, 2026")
        XCTAssertEqual(SuggestionReport.dateTitle(from: day, to: day, locale: Locale(identifier: "de_DE")), "04.07.2026")
    }
}

/// Issue #41: chosen as a person would choose.
final class ChoosingAsAPersonWouldTests: XCTestCase {
    /// An exposure bracket keeps the gradient hash (the picture equalised) but
    /// not the DCT hash: one group when taken seconds apart; two scenes
    /// seconds apart stay two, and a gradient hash alike an hour apart is no
    /// evidence.
    func testABracketSecondsApartIsOneGroupButTwoScenesSecondsApartAreTwo() {
        let a = scene(500), b = scene(501)
        let far = a ^ 0xFFFF_F000   // 20 bits: past the DCT hash's reach
        XCTAssertGreaterThan(DuplicateGroups.distance(a, far), DuplicateGroups.maximumDistance)
        let bracket = [DuplicateGroups.Fingerprint(hash: a, gradientHash: a, instant: 0),
                       DuplicateGroups.Fingerprint(hash: far, gradientHash: a ^ 0xFF, instant: 26)]
        XCTAssertEqual(DuplicateGroups.groups(of: bracket), [0, 0])
        let anHourApart = [bracket[0], DuplicateGroups.Fingerprint(hash: far, gradientHash: a ^ 0xFF, instant: 3600)]
        XCTAssertEqual(DuplicateGroups.groups(of: anHourApart), [0, 1])
        let undated = [DuplicateGroups.Fingerprint(hash: a, gradientHash: a), DuplicateGroups.Fingerprint(hash: far, gradientHash: a ^ 0xFF)]
        XCTAssertEqual(DuplicateGroups.groups(of: undated), [0, 1])
        let twoScenes = [DuplicateGroups.Fingerprint(hash: a, gradientHash: a, instant: 0),
                         DuplicateGroups.Fingerprint(hash: b, gradientHash: b, instant: 5)]
        XCTAssertEqual(DuplicateGroups.groups(of: twoScenes), [0, 1])
    }

    /// A gap of more than a day always starts an event, whatever the pace:
    /// photos a day and a half apart, evenly, are as many events.
    func testAGapOfMoreThanADayIsAlwaysABoundary() {
        let times = (0..<6).map { Double($0) * 36 * 3600 }
        XCTAssertEqual(PhotoEvents.events(of: times), [0, 1, 2, 3, 4, 5])
        // A day exactly, in a day-a-photo pace, is not past the bound.
        XCTAssertEqual(Set(PhotoEvents.events(of: (0..<6).map { Double($0) * 86_400 })), [0])
        // A decade of yearly photos: never one event.
        let decade = (0..<10).map { Double($0) * 365 * 86_400 }
        XCTAssertEqual(PhotoEvents.events(of: decade), Array(0..<10))
    }

    /// A photo its cell would enlarge past 2x is chosen only when no photo
    /// that fits is left, and says why where that decided.
    func testATinyPhotoIsNotChosenWhileOnesThatFitAreLeft() {
        // 1920x1080 over 2 cells: a cell of about 1,000,000 pixels.
        let choice = SuggestionChoice(count: 2, canvasShape: 16.0 / 9, canvasArea: 1920 * 1080)
        let tiny = shot("tiny.jpg", time: 0, hash: scene(600), faces: 3, width: 100, height: 78)
        XCTAssertEqual(choice.enlargement(tiny.measures)!, (1920.0 * 1080 / 2 / 7800).squareRoot(), accuracy: 1e-9)
        XCTAssertTrue(choice.isTooSmall(tiny.measures))
        XCTAssertFalse(choice.isTooSmall(shot("fit.jpg", time: 0, hash: 0, width: 640, height: 480).measures))
        let photos = [tiny, shot("a.jpg", time: 600, hash: scene(601), faces: 0, width: 640, height: 480),
                      shot("b.jpg", time: 1200, hash: scene(602), faces: 0, width: 800, height: 600)]
        var verdicts = choice.judge(photos)
        XCTAssertEqual(choice.choose(&verdicts), [1, 2])
        XCTAssertEqual(verdicts[0].whyNot, "too small for its cell: 100x78 would be enlarged 11.5x")
        // With no other left it is chosen.
        var two = choice.judge(Array(photos.prefix(2)))
        XCTAssertEqual(choice.choose(&two), [0, 1])
        // Where every photo is too small, size decides nothing and says nothing.
        let huge = SuggestionChoice(count: 2, canvasShape: 16.0 / 9, canvasArea: 8000 * 4500)
        var allSmall = huge.judge(photos)
        XCTAssertEqual(huge.choose(&allSmall).count, 2)
        XCTAssertTrue(allSmall.allSatisfy { !($0.whyNot ?? "").hasPrefix("too small") }, "\(allSmall)")
        // At a canvas it fits, it is not held back.
        var small = SuggestionChoice(count: 2, canvasShape: 16.0 / 9, canvasArea: 160 * 90).judge(photos)
        XCTAssertTrue(SuggestionChoice(count: 2, canvasShape: 16.0 / 9, canvasArea: 160 * 90).choose(&small).contains(0))
    }

    /// A collage's cells are as many as it will hold: an event of three
    /// photos worth showing makes a collage of two, whose cells are three
    /// times six's, so a photo that fits one of six may be too small there.
    func testTheCellIsTheCollagesItWillHold() {
        let choice = SuggestionChoice(count: 6, canvasShape: 16.0 / 9, canvasArea: 1920 * 1080)
        let photos = (0..<3).map { shot("p\($0).jpg", time: Double($0) * 600, hash: scene(1100 + $0), width: 600, height: 400) }
        var verdicts = choice.judge(photos)
        XCTAssertEqual(verdicts[0].enlarged!, (1920.0 * 1080 / 6 / 240_000).squareRoot(), accuracy: 1e-9)
        XCTAssertNil(verdicts[0].demotion)
        let collage = choice.forCollage(&verdicts, photos: photos, among: [0, 1, 2])
        XCTAssertEqual(collage.count, 2)
        XCTAssertEqual(verdicts[0].enlarged!, (1920.0 * 1080 / 2 / 240_000).squareRoot(), accuracy: 1e-9)
        XCTAssertEqual(verdicts[0].demotion, "too small for its cell: 600x400 would be enlarged 2.1x")
    }

    /// Of a scene, a thumbnail-sized copy never wins for measuring sharper
    /// (it is measured at its own few pixels), and of shots about as sharp
    /// the larger wins.
    func testAmongNearDuplicatesTheLargerWinsTies() {
        let choice = SuggestionChoice()
        let a = scene(700)
        let copy = [shot("big.jpg", time: 0, hash: a, sharpness: 100, width: 3000, height: 2000),
                    shot("thumb.jpg", time: 1, hash: a ^ 1, sharpness: 400, width: 120, height: 80)]
        let verdicts = choice.judge(copy)
        XCTAssertNotNil(verdicts[0].score)
        XCTAssertEqual(verdicts[1].whyNot, "too small for its cell: big.jpg of the same scene is larger")
        let alike = [shot("small.jpg", time: 0, hash: a, sharpness: 110, width: 1600, height: 1200),
                     shot("large.jpg", time: 1, hash: a ^ 1, sharpness: 100, width: 4000, height: 3000)]
        let judged = choice.judge(alike)
        XCTAssertNotNil(judged[1].score)
        XCTAssertEqual(judged[0].whyNot, "near-duplicate of large.jpg, a larger shot of the same scene")
        // Much blurrier, the larger loses.
        let blurred = [alike[0], shot("large.jpg", time: 1, hash: a ^ 1, sharpness: 30, width: 4000, height: 3000)]
        XCTAssertNotNil(choice.judge(blurred)[0].score)
    }

    /// A photo measured as cut short or corrupt is chosen only when no whole
    /// one is left (issue #44).
    func testACorruptPhotoIsNotChosenWhileWholeOnesAreLeft() {
        let choice = SuggestionChoice(count: 2)
        let photos = [shot("cut.jpg", time: 0, hash: scene(800), faces: 2, corrupt: 1),
                      shot("a.jpg", time: 60, hash: scene(801), faces: 0), shot("b.jpg", time: 120, hash: scene(802), faces: 0)]
        var verdicts = choice.judge(photos)
        XCTAssertEqual(choice.choose(&verdicts), [1, 2])
        XCTAssertEqual(verdicts[0].whyNot, "cut short or corrupt (its decode read past broken data)")
        // Of one scene, the whole shot wins.
        let pair = choice.judge([photos[0], shot("again.jpg", time: 1, hash: scene(800) ^ 1, sharpness: 50)])
        XCTAssertNotNil(pair[1].score)
        XCTAssertEqual(pair[0].whyNot, "cut short or corrupt: again.jpg of the same scene is whole")
    }

    /// Photos without a date are an event of their own, after the dated
    /// ones, titled by their folder's name.
    func testUndatedPhotosAreAnEventOfTheirOwnTitledByTheirFolder() {
        let photos = [shot("a.jpg", time: 0, hash: scene(900)), shot("b.jpg", time: 60, hash: scene(901)),
                      shot("c.jpg", time: 40 * 86_400, hash: scene(902)),
                      shot("x.jpg", time: nil, hash: scene(903), folder: "/home/me/Mixed"),
                      shot("y.jpg", time: nil, hash: scene(904), folder: "/home/me/Mixed")]
        let verdicts = SuggestionChoice().judge(photos)
        XCTAssertEqual(verdicts.map(\.event), [0, 0, 1, 2, 2])
        let report = SuggestionReport(photos: photos, verdicts: verdicts, choices: [], skippedEvents: [], notPhotos: [],
                                      unreadable: [], unlistedFolders: [])
        XCTAssertEqual(report.undated, [3, 4])
        XCTAssertEqual(report.title(ofEvent: 2), "Mixed")
        XCTAssertEqual(SuggestionReport.folderTitle([Photo(path: "/a/trip/x.jpg"), Photo(path: "/a/tripod/y.jpg")]), "a")
        XCTAssertEqual(SuggestionReport.folderTitle([Photo(path: "/a/trip/x.jpg"), Photo(path: "/a/trip/day2/y.jpg")]), "trip")
        XCTAssertEqual(SuggestionReport.folderTitle([Photo(path: "/x.jpg")]), "/")
    }

    /// With photos in the collage: up to 6 less those, the total even,
    /// never a photo already in nor its near-duplicate.
    func testTheChoiceFillsTheFreePlacesAndNeverTakesOneAlreadyIn() {
        XCTAssertNil(SuggestionChoice.filling(alreadyIn: 6))
        let three = SuggestionChoice.filling(alreadyIn: 3)!
        XCTAssertEqual(three.count, 3)
        XCTAssertEqual([0, 1, 2, 3, 4, 9].map { three.chosenCount(available: $0) }, [0, 1, 1, 3, 3, 3])
        let one = SuggestionChoice.filling(alreadyIn: 1)!
        XCTAssertEqual([1, 2, 5, 9].map { one.chosenCount(available: $0) }, [1, 1, 5, 5])
        XCTAssertEqual(SuggestionChoice.filling(alreadyIn: 4)!.chosenCount(available: 9), 2)

        let photos = (0..<8).map { shot("p\($0).jpg", time: Double($0) * 600, hash: scene(1000 + $0)) }
            + [shot("p0-again.jpg", time: 1, hash: scene(1000) ^ 1)]
        let inCollage: Set<Photo> = [photos[0].photo, photos[3].photo, photos[5].photo]
        var verdicts = three.judge(photos)
        three.setAside(&verdicts, photos: photos, alreadyIn: inCollage)
        let chosen = three.choose(&verdicts)
        XCTAssertEqual(chosen.count, 3)
        XCTAssertTrue(chosen.allSatisfy { ![0, 3, 5, 8].contains($0) }, "\(chosen)")
        XCTAssertEqual(verdicts[0].whyNot, "already in the collage")
        XCTAssertEqual(verdicts[8].whyNot, "near-duplicate of p0.jpg, already in the collage")
    }
}

final class OneDecimalTests: XCTestCase {
    /// What `demotion` says of an enlargement, as printf said it, ties and
    /// all (2.25 is "2.2": printf rounds the exact binary value to even).
    func testTheTenthsAreThoseOfPrintf() {
        var seed: UInt64 = 43
        var values: [Double] = [0, 0.05, 0.15, 0.25, 0.35, 1.05, 2.25, 2.35, 2.45, 9.95, 99.95, 1e20, .infinity]
        for _ in 0..<20_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values.append(Double(seed >> 11) / Double(1 << 53) * 50)
        }
        for k in 0..<5000 { values.append(Double(k) / 20) }
        for x in values { XCTAssertEqual(SuggestionChoice.oneDecimal(x), String(format: "%.1f", x), "\(x)") }
    }
}
