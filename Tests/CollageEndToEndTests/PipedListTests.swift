import CollageImaging
import CollageKit
import CollageTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct PipedListTests {
    /// `collage batch <(find ...)` names a pipe. The progress bar's first
    /// pass used to read it to count the collages, consuming it: the run
    /// found the list empty, made nothing and exited 0.
    @Test func aListGivenAsAPipeIsReadOnce() throws {
        let cli = try CLI()
        let list = "\(cat)\n\(cup)\n\n\(cup)\n\(cat)\n"
        let substituted = try cli.bash("exec \"$COLLAGE\" batch <(printf %s \(shellQuoted(list))) -o out --size 64x64")
        #expect(substituted.succeeded, "\(substituted)")
        #expect(substituted.stdout.contains("Saved 2 collages"), "\(substituted)")
        #expect(mkfifo(cli.file("list.fifo").path, 0o600) == 0)
        let fifo = try cli.bash("printf %s \(shellQuoted(list)) > list.fifo & exec \"$COLLAGE\" batch list.fifo -o fifo-out --size 64x64", timeout: 60)
        #expect(fifo.succeeded && fifo.stdout.contains("Saved 2 collages"), "\(fifo)")
    }
}

// MARK: - Batch lists that would take forever
