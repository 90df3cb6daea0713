import CollageKit
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a long command (`batch`, `suggest`) does when it is interrupted
/// (Ctrl-C: SIGINT), terminated (SIGTERM) or hung up on (SIGHUP): `tidy`
/// says what it had done (a progress line cleared, a report's last lines),
/// then the process dies of the same signal, with its default action. A
/// shell then reads 128 + the signal (130, 143, 129), and a script that
/// ran it stops too, as it does for any program killed by Ctrl-C (an exit
/// of 130 by hand would tell bash the program handled it, and the script
/// would go on). The picker, whose Ctrl-C is a key, exits by itself
/// (TerminalUI.swift).
enum Interruption {
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Watches the signals from now until the process ends. `tidy` runs
    /// once, on a queue of its own, while the work goes on in other threads:
    /// it must take the locks the work's output is written under.
    static func onSignal(_ tidy: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "collage.interruption")
        let once = Locked(false)
        for number in signals {
            // A signal that was ignored when the program started (nohup, a
            // background job of a script) stays ignored.
            var current = sigaction()
            sigaction(number, nil, &current)
            if let handler = current.__sigaction_handler.sa_handler,
               unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
            // libdispatch installs a handler of its own that hands the
            // signal to the source; until it is in, the default action (death
            // with nothing tidied) is ignored.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                let first = once.withLock { done -> Bool in
                    defer { done = true }
                    return !done
                }
                guard first else { return }
                tidy(number)
                // To this thread, with the signal let through here: libdispatch's
                // threads (and a process started with it blocked) block it, and
                // one sent to the process would go to libdispatch's reader again.
                signal(number, SIG_DFL)
                var only = sigset_t()
                sigemptyset(&only)
                sigaddset(&only, number)
                pthread_sigmask(SIG_UNBLOCK, &only, nil)
                raise(number)
                _exit(128 + number)  // only if the signal was somehow not deadly
            }
            source.activate()
            sources.withLock { $0.append(source) }
        }
    }

    /// Kept for the life of the process (a source released stops watching).
    private static let sources = Locked<[DispatchSourceSignal]>([])

    /// How messages name a signal: "Ctrl-C (SIGINT)".
    static func name(_ number: Int32) -> String {
        switch number {
        case SIGINT: "interrupted (SIGINT)"
        case SIGTERM: "terminated (SIGTERM)"
        case SIGHUP: "hung up (SIGHUP)"
        default: "signal \(number)"
        }
    }
}
