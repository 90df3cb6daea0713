import Dispatch
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

extension Publisher where Output == Never {
    /// Blocks until the stream ends: for command-line views, which have
    /// nothing else to do meanwhile. Never call it on the queue the work runs on.
    public func waitForCompletion() -> Result<Void, Failure> {
        let done = DispatchSemaphore(value: 0)
        var outcome: Result<Void, Failure> = .success(())
        let subscription = sink(
            receiveCompletion: { completion in
                if case let .failure(error) = completion { outcome = .failure(error) }
                done.signal()
            },
            receiveValue: { _ in })
        done.wait()
        subscription.cancel()
        return outcome
    }
}
