/// A photo `add` may record: its header, and what a person should be told
/// of it though it is accepted.
public struct Admission: Equatable, Sendable {
    public let info: PhotoInfo
    public let notices: [PhotoNotice]

    public init(info: PhotoInfo, notices: [PhotoNotice] = []) {
        self.info = info
        self.notices = notices
    }
}

/// A collage drawn, and what a person should be told of its photos.
public struct NotedCollage: Sendable {
    public let collage: RenderedCollage
    public let notices: [PhotoNotice]
}

/// Something about a photo that does not stop its collage but that a
/// person should know: the result may not look as they expect.
public enum PhotoNotice: Equatable, Sendable {
    /// The decoder read past broken data `count` times and drew on (a
    /// damaged file): parts may be garbled (shifted colours, grey or repeated blocks).
    case corruptData(Photo, count: Int)
    /// The file ends before its picture does (a download that stopped):
    /// drawn as far as its data goes, the top `drawn` of its rows and the
    /// rest grey (a JPEG's) or empty, the background showing (a GIF's:
    /// `restEmpty`); `drawn` nil for a progressive JPEG whose later scans
    /// are missing, every row there but coarse.
    case cutShort(Photo, drawn: Double?, restEmpty: Bool = false)
    /// Scaled up by `factor` to fill its cell: it will look soft.
    case enlarged(Photo, factor: Double)
    /// Printed at the print resolution asked, its cell has `dotsPerInch` of
    /// the photo's pixels to the inch, fewer than `softPrintResolution`: the print
    /// will look soft. Said instead of `enlarged` when a print resolution is
    /// in play (a size on paper, or `--dpi`): what matters then is the
    /// paper, not the pixels (at 300 dpi both say the same; at 600 a photo
    /// enlarged 2x still prints at 300 dpi).
    case softPrint(Photo, dotsPerInch: Int)

    /// Beyond this a photo enlarged to fill its cell looks soft.
    public static let softEnlargement = 2.0
    /// Below this many of a photo's pixels to the inch, a print looks soft.
    public static let softPrintResolution = 150

    public var message: String {
        switch self {
        case let .corruptData(photo, _):
            return "\(photo.path): the file has corrupt data: it is drawn as far as it decodes, and parts may be garbled"
        case let .cutShort(photo, nil, _):
            return "\(photo.path): cut short: it is drawn coarse because its later scans are missing"
        case let .cutShort(photo, drawn?, restEmpty):
            // Down, so that "100%" never says a missing row is drawn; a sliver is 1%, not 0.
            let percent = min(99, Int((drawn * 100).rounded(.down)))
            let rest = restEmpty ? "empty" : "grey"
            if drawn <= 0 { return "\(photo.path): cut short: none of it could be drawn (it is \(rest))" }
            return "\(photo.path): cut short: the top \(max(1, percent))% of it could be drawn (the rest is \(rest))"
        case let .enlarged(photo, factor):
            return "\(photo.path) is enlarged \(String(format: "%.1f", factor))x to fill its cell: it will look soft"
        case let .softPrint(photo, dotsPerInch):
            return "\(photo.path) prints at \(dotsPerInch) dpi in its cell (below \(Self.softPrintResolution)): it will look soft"
        }
    }
}

extension Array where Element == PhotoNotice {
    /// Appends `notice` unless one that reads the same is there: a damaged
    /// file is told at add and again at save, and said once.
    public mutating func appendOnce(_ notice: PhotoNotice) {
        if !contains(where: { $0.message == notice.message }) { append(notice) }
    }
}
