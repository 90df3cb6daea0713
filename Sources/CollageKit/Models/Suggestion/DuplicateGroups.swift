import Dispatch

/// Near-duplicates: a burst, or the same scene shot again. Two photos are
/// near-duplicates when their DCT hashes differ in at most
/// `maximumDistance` of 64 bits, or, taken at most `bracketSeconds` apart,
/// when their gradient hashes (which cells are brighter than their
/// neighbours) differ in at most `maximumGradientDistance`: an exposure
/// bracket or a shot taken again darker can change the first hash by a dozen
/// bits or more but hardly the second, and the time between the shots is
/// the evidence that allows it (two scenes shot seconds apart still differ
/// in about 32 bits of both: time alone never joins them).
/// A group is every photo linked to another of it so (a burst drifting
/// slowly stays one group).
///
/// Each photo is compared with the `window` photos taken just before it, not
/// with all: shots of one scene are taken close together, and 100,000
/// photos would otherwise mean 5 billion comparisons.
public enum DuplicateGroups {
    /// Measured on this project's set (docs/quality.md): a blurred or
    /// darkened copy differs from its original in 0-8 bits, another scene
    /// in about 32.
    public static let maximumDistance = 12
    /// Measured on bracketed pairs of the fixtures (1-2 EV darker or
    /// brighter, 3% reframed: 3-8 bits) against their other scenes (28 bits
    /// and more; docs/quality.md).
    public static let maximumGradientDistance = 14
    public static let bracketSeconds = 120.0
    public static let window = 64

    /// What groups a photo: its two hashes and when it was taken (nil: no
    /// capture date, so no time to count as evidence).
    public struct Fingerprint: Equatable, Sendable {
        public var hash: UInt64
        public var gradientHash: UInt64
        public var instant: Double?

        public init(hash: UInt64, gradientHash: UInt64? = nil, instant: Double? = nil) {
            self.hash = hash
            self.gradientHash = gradientHash ?? hash
            self.instant = instant
        }
    }

    public static func distance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }

    /// Whether two photos are near-duplicates (see the type's comment).
    public static func near(_ a: Fingerprint, _ b: Fingerprint) -> Bool {
        if distance(a.hash, b.hash) <= maximumDistance { return true }
        guard let s = a.instant, let t = b.instant, abs(s - t) <= bracketSeconds else { return false }
        return distance(a.gradientHash, b.gradientHash) <= maximumGradientDistance
    }

    /// The group of each photo, for hashes in the order the photos were
    /// taken: numbered from 0 in the order of each group's first photo.
    public static func groups(of hashes: [UInt64], maximumDistance: Int = maximumDistance,
                              window: Int = window) -> [Int] {
        groups(of: hashes.map { Fingerprint(hash: $0) }, window: window) { distance($0.hash, $1.hash) <= maximumDistance }
    }

    /// The group of each photo, in the order taken (undated ones last), by
    /// `near` (nil: the rule above, `near(_:_:)`).
    public static func groups(of fingerprints: [Fingerprint], window: Int = window,
                              near rule: (@Sendable (Fingerprint, Fingerprint) -> Bool)? = nil) -> [Int] {
        // Which photos of the window before each are near it, found on all
        // the cores, a stretch of photos each (6.4 million comparisons at
        // 100,000 photos), then joined, in order: a group is every photo
        // linked to another of it, whatever the order the links are found
        // in. The rule above called as itself, not through a closure: the
        // comparisons take half the time so.
        let stretch = 4096
        let stretches = (fingerprints.count + stretch - 1) / stretch
        let links = Locked([[(Int, Int)]](repeating: [], count: stretches))
        fingerprints.withUnsafeBufferPointer { all in
            nonisolated(unsafe) let prints = all
            DispatchQueue.concurrentPerform(iterations: stretches) { s in
                var found: [(Int, Int)] = []
                for i in (s * stretch)..<min(prints.count, (s + 1) * stretch) {
                    let print = prints[i]
                    for j in max(0, i - window)..<i where rule.map({ $0(print, prints[j]) }) ?? near(print, prints[j]) {
                        found.append((i, j))
                    }
                }
                links.withLock { $0[s] = found }
            }
        }
        var parent = Array(fingerprints.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i {
                parent[i] = parent[parent[i]]
                i = parent[i]
            }
            return i
        }
        for (i, j) in links.current.joined() {
            let (a, b) = (root(i), root(j))
            if a != b { parent[max(a, b)] = min(a, b) }
        }
        // Each root's group number, by the root's index (-1: none yet).
        var number = [Int](repeating: -1, count: fingerprints.count), groups = 0
        return fingerprints.indices.map { i in
            let r = root(i)
            if number[r] < 0 {
                number[r] = groups
                groups += 1
            }
            return number[r]
        }
    }
}
