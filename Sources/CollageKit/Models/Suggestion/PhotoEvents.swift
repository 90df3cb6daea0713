import Foundation

/// Events: runs of photos taken together (a day of a trip, a party, a
/// walk), found from the times alone by PhotoTOC's adaptive rule (Platt,
/// Czerwinski and Field, 2003): a gap starts a new event when its log is
/// `threshold` above the average log of the gaps around it (`neighbours`
/// each side), so what counts as a long pause follows the photographer's
/// own pace. A gap shorter than `shortestBreak` never does: a pause of a
/// few minutes in a burst-heavy hour is not a new event. A gap longer than
/// `longestPause` always does, whatever the pace around it: an event never
/// spans a day without photos (a missed boundary, a decade called one
/// event, hurts more than a false one: Gozali et al.).
public enum PhotoEvents {
    public static let threshold = log(17.0)
    public static let neighbours = 10
    public static let shortestBreak: Double = 30 * 60
    public static let longestPause: Double = 24 * 3600

    /// The event of each photo, for times in seconds in the order taken:
    /// numbered from 0.
    public static func events(of times: [Double]) -> [Int] {
        guard times.count > 1 else { return times.map { _ in 0 } }
        let gaps = zip(times.dropFirst(), times).map { max(0, $0 - $1) }
        let logs = gaps.map { log(max($0, 1)) }
        var event = 0
        var result = [0]
        for (i, gap) in gaps.enumerated() {
            let around = logs[max(0, i - neighbours)...min(logs.count - 1, i + neighbours)]
            let average = around.reduce(0, +) / Double(around.count)
            if gap > longestPause || (gap >= shortestBreak && logs[i] >= threshold + average) { event += 1 }
            result.append(event)
        }
        return result
    }
}
