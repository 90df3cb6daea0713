import Dispatch

/// Hands work done off the interface thread back to it: `work` runs on the
/// main actor (the main queue, which the terminal's keys and redraws are on
/// too), after what was handed to it before. Callable from any thread.
public func deliverOnMain(_ work: @escaping @MainActor () -> Void) {
    DispatchQueue.main.async(execute: work)
}
