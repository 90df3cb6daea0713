/// One of N equal parts of a batch list (`batch --shard K/N`), so that a job
/// runner (GNU parallel, a Slurm array, a Kubernetes Indexed Job) can split a
/// list across machines without collage scheduling anything itself.
///
/// Collage number i, counting every group of the list (the skipped ones
/// too), is in shard ((i - 1) mod N) + 1. Round robin rather than contiguous
/// ranges: a shard needs no count of the list before it starts (a list may
/// be a pipe), and neighbouring collages, which tend to be alike in cost,
/// spread over the machines. The number is the group's, never a count of the
/// shard's own, so output names do not depend on which shard drew them.
public struct BatchShard: Equatable, Sendable, CustomStringConvertible {
    /// K, from 1.
    public let index: Int
    /// N.
    public let count: Int

    /// The whole list: 1/1.
    public static let whole = BatchShard(uncheckedIndex: 1, count: 1)

    private init(uncheckedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    public init(index: Int, count: Int) throws {
        guard count >= 1 else { throw ValueError("a shard is K/N with N at least 1, not \(index)/\(count)") }
        guard (1...count).contains(index) else {
            throw ValueError("a shard is K/N with K from 1 to N: \(index)/\(count) has no shard \(index) (e.g. 1/\(count) to \(count)/\(count))")
        }
        self.init(uncheckedIndex: index, count: count)
    }

    /// "K/N", e.g. "2/3".
    public init(parsing text: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]),
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) }) else {
            throw ValueError("'\(text)' is not a shard: write K/N, e.g. 2/3 for the second of three")
        }
        try self.init(index: index, count: count)
    }

    /// Whether collage `number` (from 1, in list order) is in this shard.
    public func contains(_ number: Int) -> Bool { (number - 1) % count + 1 == index }

    public var description: String { "\(index)/\(count)" }
}
