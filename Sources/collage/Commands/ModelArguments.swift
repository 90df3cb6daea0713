import ArgumentParser
import CollageKit
import CollageTerminal

// The models' values as command-line arguments. Each is parsed by the
// model's own `init(parsing:)`, the one validator; from these conformances
// ArgumentParser lists the values and the default in `--help` and offers the
// values to shell completions, so no option repeats them.

extension LayoutMode: ModelArgument {
    /// What `--help` says of each value.
    public var defaultValueDescription: String {
        switch self {
        case .auto: "cells shaped for these photos on this canvas, to keep as much of each photo as can be (photos may be reordered; no cell over 4x another)"
        case .grid: "the original app's: 1-2 photos side by side, 3-6 in two rows of equal cells, whatever the canvas's shape"
        case .rows: "justified rows: each row one height and the full width, every photo whole, or on a canvas whole photos leave emptier, cropped by at most a tenth of a side; --size WIDTHx lets the height follow"
        case .columns: "the same, turned; --size xHEIGHT lets the width follow"
        }
    }
}

extension CropMode: ModelArgument {
    public var defaultValueDescription: String {
        switch self {
        case .smart: "the focus set with `collage focus`, else the faces in the photo, else the camera's subject, else the centre"
        case .centre: "always the middle (center works too)"
        case .attention: "the busiest, most colourful part"
        }
    }
}

extension FitMode: ModelArgument {
    public var defaultValueDescription: String {
        switch self {
        case .cover: "fills each cell, cropping what overflows"
        case .contain: "shows each photo whole, the rest of its cell in the background colour (for panoramas and documents)"
        }
    }
}

extension CaptionSource: ModelArgument {
    public var defaultValueDescription: String {
        switch self {
        case .none: "only the photos' own captions (`collage caption`)"
        case .name: "the file name without its extension"
        case .date: "the date taken, from EXIF, in this locale's medium format (nothing for a photo without one)"
        }
    }
}

extension GraphicsMode: ModelArgument {}

extension SizeRequest: ModelArgument {}

extension PixelLimit: ModelArgument {}
extension PrintResolution: ModelArgument {}

extension BatchShard: ModelArgument {}

extension RGBColor: ModelArgument {
    /// A colour's CSS name where it has one ("white"), else #rrggbb.
    public var defaultValueDescription: String {
        Self.names.filter { $0.value == self }.map(\.key).min() ?? description
    }
}

/// An output format (`batch --format`, `save --format`), by any of the
/// extensions it is saved with: the engine table's writable formats.
extension ImageFormat: ModelArgument {
    public init(parsing text: String) throws {
        guard let format = try? ImageFormat(extension: text) else {
            throw ValueError("'\(text)' is not a format collage writes (\(Self.allValueStrings.joined(separator: ", ")))")
        }
        self = format
    }

    /// Every extension taken, `jpeg` too.
    public static var allValueStrings: [String] { writable.flatMap(\.saveExtensions) }
    public var defaultValueDescription: String { fileExtension }
    // Not CaseIterable, so ArgumentParser would complete nothing (`save --format <Tab>`).
    public static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}

/// A model's value as an argument, parsed by the model.
public protocol ModelArgument: ExpressibleByArgument {
    init(parsing text: String) throws
}

extension ModelArgument {
    /// `text` as the model parses it; nil, with the model's reason kept, when
    /// the model refuses it.
    static func parsed(_ text: String) -> Self? {
        do {
            return try Self(parsing: text)
        } catch {
            ArgumentRefusal.last.withLock { $0 = ArgumentRefusal(value: text, reason: "\(error)") }
            return nil
        }
    }

    public init?(argument: String) {
        guard let value = Self.parsed(argument) else { return nil }
        self = value
    }
}

extension ModelArgument where Self: RawRepresentable, RawValue: ExpressibleByArgument {
    // ArgumentParser's own, for words, would take only the exact word.
    public init?(argument: String) {
        guard let value = Self.parsed(argument) else { return nil }
        self = value
    }
}

/// Why the model refused a value on the command line. ArgumentParser's
/// `init?(argument:)` can only answer nil, and its message then names the
/// value and the option but not why: `ArgumentMessage` puts the model's
/// reason in the message, so a person reads the one wording.
struct ArgumentRefusal {
    let value: String
    let reason: String

    static let last = Locked<ArgumentRefusal?>(nil)
}
