import Dispatch
#if canImport(Combine)
import Combine
#else
import OpenCombine
import OpenCombineDispatch
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

extension Publisher {
    /// This publisher's values and its end, on `queue`; where they come
    /// from when nil.
    public func receiving(on queue: DispatchQueue?) -> AnyPublisher<Output, Failure> {
        guard let queue else { return eraseToAnyPublisher() }
        #if canImport(Combine)
        return receive(on: queue).eraseToAnyPublisher()
        #else
        return receive(on: queue.ocombine).eraseToAnyPublisher()
        #endif
    }
}
