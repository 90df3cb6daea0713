import Foundation

/// The font of a collage's text (`--font`): a Pango font description, and
/// the size it gives in pixels when it gives one (then the title takes that
/// size rather than following the canvas).
public struct CollageFont: Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public let pixels: Double?

    public init(description: String, pixels: Double?) {
        self.description = description
        self.pixels = pixels.flatMap { $0 > 0 ? $0 : nil }
    }

    /// The title's font without `--font`.
    public static let titleDefault = "Sans Bold"
    /// The captions' font without `--font`.
    public static let captionDefault = "Sans"
}

/// Which caption a photo without one of its own gets (`--caption`).
public enum CaptionSource: String, OptionChoice, Sendable, CustomStringConvertible {
    public static let optionName = "caption"

    /// None: only the captions people wrote (`collage caption`) are drawn.
    case none
    /// The file name without its extension.
    case name
    /// The date the photo was taken (EXIF DateTimeOriginal), in the
    /// locale's medium date format; nothing for a photo without one.
    case date

    public var description: String { rawValue }

    /// The caption drawn on `photo`: its own, else what this source gives
    /// (`dateTaken` as EXIF writes it, "YYYY:MM:DD HH:MM:SS"); nil for none.
    public func caption(for photo: Photo, dateTaken: String?, locale: Locale = Self.environmentLocale()) -> String? {
        let text: String?
        if let own = photo.caption {
            text = own
        } else {
            switch self {
            case .none: text = nil
            case .name: text = (photo.fileName as NSString).deletingPathExtension
            case .date: text = dateTaken.flatMap { Self.formatted(exifDate: $0, locale: locale) }
            }
        }
        return text.map(TextLine.cleaned).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The locale dates are written in, as POSIX says to choose it: LC_ALL,
    /// else LC_TIME, else LANG ("de_DE.UTF-8@euro" is de_DE); C, POSIX or
    /// nothing is en_US_POSIX. Written here because Foundation on Linux
    /// reads none of them (Locale.current is en_001 whatever they say).
    public static func environmentLocale(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Locale {
        let name = ["LC_ALL", "LC_TIME", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? "C"
        let identifier = String(name.prefix { $0 != "." && $0 != "@" })
        return Locale(identifier: ["C", "POSIX", ""].contains(identifier) ? "en_US_POSIX" : identifier)
    }

    /// An EXIF date ("2019:07:04 18:30:00", local time as the camera's clock
    /// had it, no zone) as the locale writes a medium date ("Jul 4, 2019").
    public static func formatted(exifDate: String, locale: Locale) -> String? {
        // The local time the camera showed; an offset after it ("+02:00") is
        // not applied: the caption says the time where the photo was taken.
        guard let wallClock = PhotoTime.wallClock(exif: exifDate) else { return nil }
        return mediumDate(wallClock: wallClock, locale: locale)
    }

    /// A wall clock (seconds since 1970 read as UTC, as `PhotoTime.wallClock`)
    /// as the locale writes a medium date ("Jul 4, 2019"): a caption's date
    /// and a suggested event's title.
    public static func mediumDate(wallClock: Double, locale: Locale) -> String {
        mediumFormatters.withLock { formatters in
            let formatter = formatters[locale.identifier] ?? {
                let formatter = DateFormatter()
                formatter.locale = locale
                formatter.timeZone = TimeZone(identifier: "UTC")
                formatter.dateStyle = .medium
                formatter.timeStyle = .none
                formatters[locale.identifier] = formatter
                return formatter
            }()
            return formatter.string(from: Date(timeIntervalSince1970: wallClock))
        }
    }

    /// One formatter a locale: making one costs ICU a tenth of a
    /// millisecond, which a library's thousand event titles paid each.
    private static let mediumFormatters = Locked([String: DateFormatter]())
}

/// A caption's place and look: a band across the bottom of the photo's
/// cell, translucent, the text on one line (ellipsised) in its middle.
public enum CaptionBand {
    /// The band's opacity: 150/255 (59%) of black keeps white text at 5.5:1
    /// (WCAG) even over pure white, the worst photo, and yellow text at 5.1:1
    /// (55% would keep white at 4.75:1 but yellow at only 4.4:1); the photo
    /// still shows through.
    public static let opacity: UInt8 = 150

    /// The captions' font size on a canvas whose title font (`--font`'s
    /// size, or the one the canvas gives) is `base` pixels: 70% of it, and
    /// at most a tenth of the shortest cell's height, so that a band never
    /// hides much of a photo; but never under `legiblePixels` (a small cell
    /// then gives a larger share of itself) nor over the title. One size for
    /// every caption of a collage.
    public static func fontPixels(base: Double, cells: [CellRect]) -> Double {
        let shortest = cells.map(\.height).min() ?? 0
        let fitted = min((base * 0.7).rounded(), (Double(shortest) * 0.1).rounded())
        return min(base, max(legiblePixels, fitted))
    }

    /// The smallest caption drawn (unless the title is smaller): 12 px, about
    /// the size of a screen's small print (9 points).
    public static let legiblePixels = 12.0

    /// Space above and below the line, and at its sides.
    public static func padding(fontPixels: Double) -> Int { Int((fontPixels * 0.3).rounded()) }

    /// The band in `cell` for a line `lineHeight` pixels tall: the full
    /// width of the cell, never taller than the cell, at its bottom; or at
    /// its top where the bottom's would cover more of the `heads` the cell
    /// shows (canvas pixels) than the top's (issue #41: a caption across the
    /// person standing at the foot of a lighthouse).
    public static func rect(in cell: CellRect, lineHeight: Int, fontPixels: Double, clearOf heads: [CellRect] = []) -> CellRect {
        let height = min(cell.height, lineHeight + 2 * padding(fontPixels: fontPixels))
        let bottom = CellRect(x: cell.x, y: cell.y + cell.height - height, width: cell.width, height: height)
        let top = CellRect(x: cell.x, y: cell.y, width: cell.width, height: height)
        func covered(_ band: CellRect) -> Int { heads.reduce(0) { $0 + band.overlap($1) } }
        return covered(top) < covered(bottom) ? top : bottom
    }

    /// Where the line is laid out in `band`: less the padding at the sides.
    public static func textBox(in band: CellRect, fontPixels: Double) -> CellRect {
        let side = min(padding(fontPixels: fontPixels), max(0, (band.width - 1) / 2))
        return CellRect(x: band.x + side, y: band.y, width: max(1, band.width - 2 * side), height: band.height)
    }

    /// The text's colour (`--text-colour`, else white) and the band's:
    /// black or white, whichever contrasts more with the text.
    public static func colours(text: RGBColor?) -> (text: RGBColor, band: RGBColor) {
        let text = text ?? .white
        return (text, TitleBand.textColour(on: text))
    }
}

/// A caption as drawn: its text and its band.
public struct DrawnCaption: Equatable, Sendable {
    public let text: String
    public let band: CellRect
    public let fontPixels: Double

    public init(text: String, band: CellRect, fontPixels: Double) {
        self.text = text
        self.band = band
        self.fontPixels = fontPixels
    }
}
