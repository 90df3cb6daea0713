import CollageImaging
import CollageKit
import CollageTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct FaultTests {
    /// kill -9 during a save, at several moments (while rendering, encoding,
    /// and when the unnamed file is open): never a partial output file, never
    /// a temporary file, the selection intact and still usable. With --force,
    /// the file being replaced is left whole.
    @Test(arguments: [false, true])
    func killNineDuringSaveLeavesNothingBehind(force: Bool) throws {
        let cli = try CLI()
        #expect(try cli.collage("add", cat, cup).succeeded)
        let output = cli.file("big.jpg")
        let previous = Data("the collage saved last time".utf8)
        if force { try previous.write(to: output) }
        var caughtWithTheFileOpen = 0, killed = 0, finishedFirst = 0
        let started = Date()
        // A 16384 x 16384 collage takes about a second to render and encode;
        // nil: kill as soon as the unnamed output file is open.
        let plans: [Double?] = [0.02, 0.1, 0.3, 0.6, nil, nil, nil]
        for (attempt, delay) in plans.enumerated() {
            let process = Process()
            process.executableURL = CLI.binary
            process.arguments = ["save", "-o", output.path, "--size", "16384x16384"] + (force ? ["--force"] : [])
            process.currentDirectoryURL = cli.workingDirectory
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_STATE_HOME"] = cli.state.path
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let pid = process.processIdentifier
            if let delay {
                usleep(useconds_t(delay * 1_000_000))
            } else {
                // Wait for the unnamed O_TMPFILE in the target folder, then kill.
                let deadline = Date().addingTimeInterval(60)
                watch: while process.isRunning && Date() < deadline {
                    for fd in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? [] {
                        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) ?? ""
                        if link.hasPrefix(cli.workingDirectory.path + "/#") || link.hasPrefix(cli.workingDirectory.path + "/.") {
                            caughtWithTheFileOpen += 1
                            break watch
                        }
                    }
                    usleep(200)
                }
            }
            kill(pid, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .exit {
                // Finished before the kill: a complete file, a cleared selection.
                #expect(process.terminationStatus == 0)
                #expect(isCompleteImage(output.path, width: 16384, height: 16384), "attempt \(attempt)")
                try FileManager.default.removeItem(at: output)
                if force { try previous.write(to: output) }
                #expect(try cli.collage("add", cat, cup).succeeded)
                finishedFirst += 1
                continue
            }
            killed += 1
            let left = try cli.contents()
            #expect(left == (force || FileManager.default.fileExists(atPath: output.path) ? ["big.jpg"] : []),
                    "attempt \(attempt): no temporary file: \(left)")
            let exists = FileManager.default.fileExists(atPath: output.path)
            let present = (try? Data(contentsOf: output)) ?? Data()
            if exists && (!force || present != previous) {
                // Killed after the save was complete (while exiting: under
                // the sanitizers the leak check at exit takes a while): then
                // the file is whole and the saved photos are cleared.
                #expect(isCompleteImage(output.path, width: 16384, height: 16384), "attempt \(attempt): partial output")
                #expect(try cli.count() == 0)
                try FileManager.default.removeItem(at: output)
                if force { try previous.write(to: output) }
                #expect(try cli.collage("add", cat, cup).succeeded)
                continue
            }
            // Not saved: the old file untouched (--force) or no file at all.
            #expect(exists == force, "attempt \(attempt)")
            #expect(try cli.storedPhotos().count == 2, "attempt \(attempt): the selection is intact")
            #expect(try cli.count() == 2)
        }
        note("kill -9 during save\(force ? " --force" : ""): \(killed) killed (\(caughtWithTheFileOpen) while the unnamed output file was open), \(finishedFirst) finished first, in \(Int(Date().timeIntervalSince(started))) s")
        // Still usable: a small save works and clears the selection.
        let saved = try cli.collage("save", "-o", "small.jpg", "--size", "64x64")
        #expect(saved.succeeded, "\(saved)")
        #expect(try cli.count() == 0)
        #expect(try cli.contents() == (force ? ["big.jpg", "small.jpg"] : ["small.jpg"]))
    }

    /// A full disk: a 256 KiB tmpfs (where mounting is allowed, as root here).
    @Test func aFullDiskIsAClearErrorAndKeepsTheSelection() throws {
        let cli = try CLI()
        let mountPoint = cli.file("small-disk")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: false)
        let mounted = try cli.bash("exec mount -t tmpfs -o size=256k tmpfs \(shellQuoted(mountPoint.path))")
        guard mounted.succeeded else {
            note("cannot mount a tmpfs here (\(mounted.stderr.trimmingCharacters(in: .whitespacesAndNewlines))): full disk not tested")
            return
        }
        defer { _ = try? cli.bash("exec umount \(shellQuoted(mountPoint.path))") }
        #expect(try cli.collage("add", cat, cup).succeeded)
        let target = mountPoint.appendingPathComponent("full.png").path
        // A size that enlarges neither photo twice (a warning would be a second line).
        let run = try cli.collage("save", "-o", target, "--size", "1000x560")
        #expect(run.isOneLineRefusal(naming: target), "\(run)")
        #expect(run.stderr.contains("No space left on device"), "\(run)")
        #expect(try cli.count() == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint.path).isEmpty, "nothing left on the disk")
    }

    /// A read-only folder: a read-only tmpfs as root (permission bits do not
    /// stop root), a folder without write permission otherwise.
    @Test func aReadOnlyFolderIsAClearErrorAndKeepsTheSelection() throws {
        let cli = try CLI()
        let folder = cli.file("read-only")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        var expected = "Permission denied"
        if runningAsRoot {
            let mounted = try cli.bash("exec mount -t tmpfs -o ro,size=64k tmpfs \(shellQuoted(folder.path))")
            guard mounted.succeeded else {
                note("running as root and cannot mount a read-only tmpfs: read-only folder not tested")
                return
            }
            expected = "Read-only file system"
        } else {
            #expect(chmod(folder.path, 0o555) == 0)
        }
        defer { if runningAsRoot { _ = try? cli.bash("exec umount \(shellQuoted(folder.path))") } }
        #expect(try cli.collage("add", cat, cup).succeeded)
        let target = folder.appendingPathComponent("x.jpg").path
        let run = try cli.collage("save", "-o", target, "--size", "64x64")
        #expect(run.isOneLineRefusal(naming: target), "\(run)")
        #expect(run.stderr.contains(expected), "\(run)")
        #expect(try cli.count() == 2)
    }

    @Test func impossibleOutputPathsAreClearErrors() throws {
        let cli = try CLI()
        #expect(try cli.collage("add", cat, cup).succeeded)
        try Data("a file".utf8).write(to: cli.file("plain"))
        let cases: [(String, String)] = [
            // Missing parents are created (issue #14): only where that cannot be done is it refused.
            ("/proc/nonexistent-folder/x.jpg", "No such file or directory"),
            (cli.file("plain").path + "/x.jpg", "Not a directory"),
            (cli.file(String(repeating: "n", count: 300) + ".jpg").path, "File name too long"),
            ("/proc/collage-test.jpg", "cannot write"),
        ]
        for (target, reason) in cases {
            let run = try cli.collage("save", "-o", target, "--size", "64x64")
            #expect(run.isOneLineRefusal(naming: target), "\(target): \(run)")
            #expect(run.stderr.contains(reason), "\(target): \(run)")
            #expect(try cli.count() == 2)
        }
        #expect(try cli.contents() == ["plain"])
    }

    /// Fifty add / clear / save processes at once. The state file always
    /// parses and never holds more than 6 photos (checked while they run),
    /// every process ends with 0 or 1 (never a signal), every successful save
    /// left a complete file and every failed one none, and nothing is left in
    /// the state folder but the selection and its lock.
    @Test func fiftyConcurrentCommandsNeverCorruptTheStateOrBreakTheRules() throws {
        let cli = try CLI()
        let photos = [cat, cup, sample("astronaut-eileen-collins.jpg"), alphaPNG]
        let runs = Locked([Run?](repeating: nil, count: 50))
        let stop = DispatchSemaphore(value: 0)
        let watcherProblems = Box<[String]>([])
        let watched = Box(0)
        let watcher = Thread {
            while stop.wait(timeout: .now()) == .timedOut {
                do {
                    let count = try cli.storedPhotos().count
                    if count > 6 { watcherProblems.value.append("\(count) photos stored") }
                    watched.value += 1
                } catch {
                    watcherProblems.value.append("the state file did not parse: \(error)")
                }
                usleep(2000)
            }
        }
        watcher.start()
        atOnce(50) { index in
            let arguments: [String]
            switch index % 5 {
            case 0: arguments = ["clear"]
            case 1, 2: arguments = ["add", photos[index % photos.count]]
            case 3: arguments = ["add", photos[index % photos.count], photos[(index + 1) % photos.count]]
            default: arguments = ["save", "-o", "out-\(index).jpg", "--size", "96x64"]
            }
            let run = try? cli.collage(arguments, timeout: 120)
            runs.withLock { $0[index] = run }
        }
        stop.signal()
        while watcher.isExecuting { usleep(1000) }
        #expect(watcherProblems.value.isEmpty, "\(watcherProblems.value.prefix(3))")
        #expect(watched.value > 0)
        for (index, run) in runs.current.enumerated() {
            let run = try #require(run)
            #expect(run.signal == nil && !run.timedOut && (run.status == 0 || run.status == 1), "\(index): \(run)")
            if run.status == 1 { #expect(run.stderr.hasPrefix("collage: ") && run.stderr.filter { $0 == "\n" }.count == 1, "\(index): \(run)") }
            if index % 5 == 4 {
                let output = cli.file("out-\(index).jpg").path
                #expect(FileManager.default.fileExists(atPath: output) == (run.status == 0), "\(index): \(run)")
                if run.status == 0 { #expect(isCompleteImage(output, width: 96, height: 64)) }
            }
        }
        let count = try cli.storedPhotos().count
        let counted = try cli.count()
        #expect(count <= 6 && count == counted)
        let stateFiles = try FileManager.default.contentsOfDirectory(atPath: cli.state.appendingPathComponent("collage").path)
        #expect(stateFiles.sorted() == ["selection.json", "selection.lock"] || stateFiles == ["selection.lock"], "\(stateFiles)")
    }

    /// Four batch runs of one list into one folder at once: every collage is
    /// written exactly once; the others are told it exists. With --force all
    /// succeed, and every file is complete.
    @Test func concurrentBatchRunsNeverOverwriteEachOther() throws {
        let cli = try CLI()
        let list = cli.file("list.txt")
        try "\(cat)\n\(cup)\n\n\(cup)\n\(cat)\n\n\(alphaPNG)\n\(cat)\n".write(to: list, atomically: true, encoding: .utf8)
        let out = cli.file("out").path
        func four(_ extra: [String]) -> [Run] {
            let runs = Locked([Run?](repeating: nil, count: 4))
            atOnce(4) { index in
                let run = try? cli.collage(["batch", list.path, "-o", out, "--size", "320x200", "--jobs", "1"] + extra)
                runs.withLock { $0[index] = run }
            }
            return runs.current.compactMap { $0 }
        }
        let first = four([])
        #expect(first.count == 4)
        #expect(first.allSatisfy { $0.signal == nil && !$0.timedOut })
        let savedLines = first.flatMap { $0.stderr.split(separator: "\n") }.filter { $0.contains(": saved ") }
        let existsLines = first.flatMap { $0.stderr.split(separator: "\n") }.filter { $0.contains("already exists") }
        #expect(savedLines.count == 3, "each of the 3 collages saved once: \(first)")
        #expect(existsLines.count == 9, "\(first)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(files == ["collage-001.jpg", "collage-002.jpg", "collage-003.jpg"])
        for file in files { #expect(isCompleteImage(out + "/" + file, width: 320, height: 200)) }

        let forced = four(["--force"])
        #expect(forced.count == 4 && forced.allSatisfy(\.succeeded), "\(forced)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == files, "no temporary file left")
        for file in files { #expect(isCompleteImage(out + "/" + file, width: 320, height: 200)) }
    }
}

// MARK: - Paths
