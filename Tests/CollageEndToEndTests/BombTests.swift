import CollageImaging
import CollageKit
import CollageTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct BombTests {
    /// Runs collage under /usr/bin/time; returns the run and the peak RSS in KiB.
    func measured(_ cli: CLI, _ arguments: [String]) throws -> (Run, Int) {
        let report = cli.file(".rss")
        let run = try cli.bash("exec /usr/bin/time -o \(shellQuoted(report.path)) -f %M \"$COLLAGE\" "
                               + arguments.map(shellQuoted).joined(separator: " "), timeout: 300)
        let text = try String(contentsOf: report, encoding: .utf8)
        try FileManager.default.removeItem(at: report)
        // "Command exited with non-zero status 1\n123456\n"
        let kib = Int(text.split(separator: "\n").last.map(String.init) ?? "") ?? -1
        return (run, kib)
    }

    /// The most a run may peak at: `limit` KiB for collage's own work. Under
    /// the sanitizers (`make test-sanitized`, which sets ASAN_OPTIONS) the
    /// binary starts with AddressSanitizer's shadow memory and allocator
    /// mapped (a `status` peaks near 60 MiB there, against 19 MiB in the
    /// release build), so that start is allowed on top: the bound is still
    /// on what collage itself allocates.
    func rssLimit(_ limit: Int, _ cli: CLI) throws -> Int {
        guard ProcessInfo.processInfo.environment["ASAN_OPTIONS"] != nil else { return limit }
        let (_, baseline) = try measured(cli, ["status"])
        return limit + baseline
    }

    @Test func aPNGClaimingTenGigapixelsIsRefusedWhenAdded() throws {
        let cli = try CLI()
        let bomb = cli.file("bomb.png")
        try write(HostileFiles.pngBomb(width: 100_000, height: 100_000), to: bomb)
        let (run, kib) = try measured(cli, ["add", bomb.path])
        #expect(run.isOneLineRefusal(naming: bomb.path), "\(run)")
        #expect(run.stderr.contains("100000x100000 is 10000.0 megapixels"), "\(run)")
        #expect(run.stderr.contains("over the limit of 100.0 megapixels"), "\(run)")
        #expect(kib < (try rssLimit(64 << 10, cli)), "peak RSS \(kib) KiB")
        note("bomb: PNG header 100000x100000 refused at add, peak RSS \(kib) KiB")
    }

    /// Found by fuzzing: a 683-byte PNG whose iTXt chunk declares 1.6 GB made
    /// libpng allocate and zero 1.6 GB before finding the file cut short.
    @Test func aPNGChunkDeclaringGigabytesIsRefusedWithoutAllocatingThem() throws {
        let cli = try CLI()
        let bomb = cli.file("itxt.png")
        try FileManager.default.copyItem(
            atPath: CLI.packageRoot.appendingPathComponent("Tests/Fixtures/crashers/png/itxt-declaring-1.6GB.png").path,
            toPath: bomb.path)
        let (run, kib) = try measured(cli, ["add", bomb.path])
        #expect(run.isOneLineRefusal(naming: bomb.path), "\(run)")
        #expect(kib < (try rssLimit(64 << 10, cli)), "peak RSS \(kib) KiB (1.6 GB before the fix)")
        note("PNG whose iTXt declares 1.6 GB refused at add, peak RSS \(kib) KiB")
    }

    /// A CPU bomb: a progressive JPEG of 1000 scans over 8192 x 8192 pixels
    /// (232 KB) kept `save` busy for 15 s; this one has 5000 (636 KB), and a
    /// larger image could take hours. Refused after its scan budget, in
    /// about 3 s: at `add`, which draws a JPEG small as `save` would (issue
    /// #32: the only way to tell corrupt data), so the draw's refusal comes
    /// there, and nothing is added.
    @Test func aJPEGWithThousandsOfScansIsRefusedQuickly() throws {
        let cli = try CLI()
        let bomb = cli.file("scans.jpg")
        try write(manyScansJPEG(side: 8192, scans: 5000), to: bomb)
        let started = Date()
        let run = try cli.collage(["add", bomb.path, cat], timeout: 60)
        #expect(run.isOneLineRefusal(naming: bomb.path), "\(run)")
        #expect(run.stderr.contains("more than 190 scans"), "\(run)")
        #expect(try cli.count() == 0)
        note("JPEG with 5000 scans refused at add in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }

    /// A real 65496 x 65496 JPEG (16 MB) is 4.3 gigapixels, but shrink-on-load
    /// decodes it at 1/8 (8187 x 8187, 67 megapixels): accepted, drawn in
    /// bounded memory. Lowering --max-pixels under 67 MP refuses it by name.
    @Test func aHugeJPEGIsDrawnAtOneEighthInBoundedMemory() throws {
        let cli = try CLI()
        let huge = cli.file("huge.jpg")
        try write(HostileFiles.flatGreyJPEG(side: 65496), to: huge)
        let refused = try cli.collage("add", "--max-pixels", "50M", huge.path, cat)
        #expect(refused.isOneLineRefusal(naming: huge.path), "\(refused)")
        #expect(refused.stderr.contains("(67.0 megapixels at 1/8 scale)"), "\(refused)")
        #expect(refused.stderr.contains("over the limit of 50.0 megapixels"), "\(refused)")

        #expect(try cli.collage("add", huge.path, cat).succeeded)
        let (saved, kib) = try measured(cli, ["save", "-o", "out.jpg", "--size", "1920x1080"])
        #expect(saved.succeeded, "\(saved)")
        // The decoded photo is at most 8187 x 8187 x 3 bytes = 201 MB; the bound
        // for one photo at the default limit is 4 bytes x 100 MP = 400 MB.
        #expect(kib < (try rssLimit(400_000, cli)), "peak RSS \(kib) KiB")
        note("bomb: JPEG 65496x65496 (16 MB) saved at 1/8 scale, peak RSS \(kib) KiB")
        #expect(isCompleteImage(cli.file("out.jpg").path, width: 1920, height: 1080))
    }

    /// A progressive JPEG must buffer coefficients for the whole image at full
    /// size whatever the output scale: 8.6 GB for 65496 x 65496. The decoder's
    /// memory cap refuses it before allocating; the header alone is enough.
    @Test func aProgressiveJPEGBombIsRefusedWithinTheMemoryCap() throws {
        let cli = try CLI()
        let bomb = cli.file("progressive.jpg")
        // The headers and an end-of-image marker: whole as far as the walk
        // can tell (it refuses files cut short), and 67 MP at 1/8, under the
        // pixel limit; the refusal under test is the decoder's, which comes
        // at `add` since it draws a JPEG small as `save` would (issue #32).
        try write(HostileFiles.flatGreyJPEG(side: 65496, header: true, progressive: true) + [0xFF, 0xD9], to: bomb)
        let (added, kib) = try measured(cli, ["add", bomb.path, cat])
        #expect(added.isOneLineRefusal(naming: bomb.path), "\(added)")
        #expect(kib < 1_700_000, "peak RSS \(kib) KiB")
        note("bomb: progressive JPEG header 65496x65496: \(added.stderr.dropLast()), peak RSS \(kib) KiB")
        #expect(try cli.count() == 0)
    }

    /// The worst case within the bounds: a progressive JPEG buffers 2 bytes a
    /// coefficient for the whole image, whatever the output scale, so a
    /// 781 KB file of 20000 x 20000 pixels (one DC scan) needs 800 MB. It is
    /// under the coefficient-memory cap (16 bytes x 100 MP = 1.6 GB a photo)
    /// and is drawn; peak memory stays under the cap.
    @Test func aProgressiveJPEGWithinTheCapIsDrawnInBoundedMemory() throws {
        let cli = try CLI()
        let heavy = cli.file("heavy.jpg")
        try write(HostileFiles.flatGreyJPEG(side: 20000, progressive: true), to: heavy)
        #expect(try cli.collage("add", heavy.path, cat).succeeded)
        let (saved, kib) = try measured(cli, ["save", "-o", "out.jpg"])
        #expect(saved.succeeded, "\(saved)")
        #expect(kib < 1_562_500, "peak RSS \(kib) KiB, over the 1.6 GB cap")
        note("progressive JPEG 20000x20000 (781 KB, one DC scan) saved, peak RSS \(kib) KiB")
    }

    /// A PNG is decoded whole (no shrink-on-load): 8000 x 8000 is 64 MP.
    @Test func aLargePNGIsLimitedByMaxPixels() throws {
        let cli = try CLI()
        let big = cli.file("big.png")
        try write(HostileFiles.png(width: 8000, height: 8000), to: big)
        let refused = try cli.collage("add", "--max-pixels", "50M", big.path, cat)
        #expect(refused.isOneLineRefusal(naming: big.path), "\(refused)")
        #expect(refused.stderr.contains("8000x8000 is 64.0 megapixels, over the limit of 50.0 megapixels (--max-pixels 64M lets it through)"), "\(refused)")
        #expect(try cli.collage("add", big.path, cat).succeeded)
        // Limits apply when the photo is decoded too: saving with a lower one is refused.
        let lowered = try cli.collage("save", "-o", "low.jpg", "--max-pixels", "10M")
        #expect(lowered.isOneLineRefusal(naming: big.path), "\(lowered)")
        #expect(lowered.stderr.hasSuffix("over the limit of 10.0 megapixels (--max-pixels 64M lets it through)\n"), "\(lowered)")
        #expect(try cli.count() == 2)
        let (saved, kib) = try measured(cli, ["save", "-o", "out.jpg"])
        #expect(saved.succeeded, "\(saved)")
        #expect(kib < (try rssLimit(400_000, cli)), "peak RSS \(kib) KiB")
        note("large PNG 8000x8000 saved, peak RSS \(kib) KiB")
    }

    @Test func maxPixelsValuesAreChecked() throws {
        let cli = try CLI()
        for bad in ["0", "-5", "lots", "1.5X", "M"] {
            let run = try cli.collage("add", "--max-pixels", bad, cat)
            #expect(run.status != 0 && run.signal == nil, "\(bad): \(run)")
            #expect(run.stderr.contains("--max-pixels"), "\(bad): \(run)")
        }
        #expect(try cli.collage("add", "--max-pixels", "1.5G", cat).succeeded)
        #expect(try cli.collage("add", "--max-pixels", "250000000", cup).succeeded)
    }
}

// MARK: - Faults
