/// Near-duplicates: a burst, or the same scene shot again. Two photos are
/// near-duplicates when their DCT hashes differ in at most
/// `maximumDistance` of 64 bits; a group is every photo linked to another of
/// it so (a burst drifting slowly stays one group).
///
/// Each photo is compared with the `window` photos taken just before it, not
/// with all: shots of one scene are taken close together, and 100,000
/// photos would otherwise mean 5 billion comparisons.
public enum DuplicateGroups {
    /// Measured on this project's set (docs/quality.md): a blurred or
    /// darkened copy differs from its original in 0-8 bits, another scene
    /// in about 32.
    public static let maximumDistance = 12
    public static let window = 64

    public static func distance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }

    /// The group of each photo, for hashes in the order the photos were
    /// taken: numbered from 0 in the order of each group's first photo.
    public static func groups(of hashes: [UInt64], maximumDistance: Int = maximumDistance,
                              window: Int = window) -> [Int] {
        var parent = Array(hashes.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i {
                parent[i] = parent[parent[i]]
                i = parent[i]
            }
            return i
        }
        for i in hashes.indices {
            for j in max(0, i - window)..<i where distance(hashes[i], hashes[j]) <= maximumDistance {
                let (a, b) = (root(i), root(j))
                if a != b { parent[max(a, b)] = min(a, b) }
            }
        }
        var number: [Int: Int] = [:]
        return hashes.indices.map { i in
            let r = root(i)
            if let n = number[r] { return n }
            number[r] = number.count
            return number.count - 1
        }
    }
}
