import Foundation

/// The default name of a saved collage: `collage-YYYYMMDD-HHMMSS.jpg`.
public func defaultCollageFileName(now: Date = Date()) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyyMMdd-HHmmss"
    return "collage-\(formatter.string(from: now)).jpg"
}
