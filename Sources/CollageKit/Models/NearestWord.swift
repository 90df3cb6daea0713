/// The word a person most likely meant when they typed one that is not a
/// command's: `collage sav` suggests `save`. By edit distance (insertions,
/// deletions, substitutions and swaps of neighbours, each 1), so that a
/// typo suggests its word and a different word suggests nothing.
public enum NearestWord {
    /// The candidate nearest `typed`, if one is near enough to be meant: at
    /// most 2 edits, and fewer than half of `typed`'s letters (so "x" does
    /// not suggest "rm"); the first of equals, in `candidates`' order.
    public static func nearest(to typed: String, among candidates: [String]) -> String? {
        let limit = min(2, max(1, (typed.count - 1) / 2))
        let scored = candidates.map { ($0, distance(typed.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= limit, best.1 > 0 || typed != best.0 else { return nil }
        return best.0
    }

    /// The optimal string alignment distance between `a` and `b`.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
