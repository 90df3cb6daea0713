import Foundation

/// A value shared between threads, reached only while holding its lock: the
/// one way this project guards shared mutable state (instead of a
/// hand-written NSLock beside each value, which can be forgotten).
///
/// Unchecked because the compiler cannot see a lock: `value` is a `var`
/// that every thread may reach, safe because it is read and written only
/// inside `withLock`, holding `lock`. (The standard library's `Mutex`, which
/// the compiler does check, needs macOS 15; the package supports 13.)
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, holding the lock.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the value as it is now.
    public var current: Value { withLock { $0 } }

    /// The value taken out, `empty` left in its place: not a copy, which
    /// for an array still held here is copied whole at its next change.
    public func take(leaving empty: Value) -> Value {
        withLock { value in
            var taken = empty
            swap(&taken, &value)
            return taken
        }
    }
}
