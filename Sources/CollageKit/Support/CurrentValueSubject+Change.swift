#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

extension CurrentValueSubject where Output: Equatable {
    /// Edits the value in place and sends it only when it changed, so the
    /// views redraw for real changes only.
    func change(_ edit: (inout Output) -> Void) {
        var next = value
        edit(&next)
        if next != value { send(next) }
    }
}
