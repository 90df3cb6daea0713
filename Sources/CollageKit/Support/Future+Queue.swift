import Dispatch
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

extension Future where Failure == Error {
    /// A future whose `work` runs on `queue`, never on the subscriber's
    /// thread: its value, or the error it throws, is the future's result.
    /// The one way the services and view models hand work to a queue and
    /// come back as a publisher.
    public static func running(on queue: DispatchQueue, _ work: @escaping @Sendable () throws -> Output) -> Future {
        Future { promise in
            // The promise goes to the queue's thread. Neither Combine nor
            // OpenCombine declares it `@Sendable`, though both make it safe
            // to call from any thread (the Future takes a lock to record the
            // first result and drop later ones); hence the one escape.
            nonisolated(unsafe) let promise = promise
            queue.async { promise(Result(catching: work)) }
        }
    }
}
