import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// Counts live subscriptions, like RxSwift's `Resources.total` in the
/// original app: a number that must come back to where it was after a screen
/// opens and closes, or something leaks. Shown with COLLAGE_TRACE_RESOURCES=1.
public final class ResourceCounter: Sendable {
    private let live = Locked(0)

    public init() {}

    public var count: Int { live.current }

    /// Wraps a subscription so that it counts until it is cancelled or released.
    public func track(_ subscription: AnyCancellable) -> AnyCancellable {
        adjust(+1)
        return AnyCancellable { [self] in
            subscription.cancel()
            adjust(-1)
        }
    }

    private func adjust(_ delta: Int) {
        live.withLock { $0 += delta }
    }
}
