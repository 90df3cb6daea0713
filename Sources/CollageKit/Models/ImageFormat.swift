import CollageImaging
import Foundation

/// A format the engine reads or writes, as its tables describe it (the
/// loaders' and the writers', apart): what a photo is, judged by its bytes,
/// and what a collage is saved in, chosen by the file's extension (`writable`).
public struct ImageFormat: Equatable, Sendable {
    let format: ci_format
    /// As messages name it: "JPEG", "HEIF".
    public let name: String
    /// The names people know it by, for help texts: "HEIC/HEIF/AVIF".
    public let title: String
    /// The extensions its files go by, lower case, the usual first.
    public let extensions: [String]
    /// Those a collage saved in it is given (HEIF: only "avif"), the usual first.
    public let saveExtensions: [String]
    public let canSave: Bool
    /// The save options its writer reads (none: it is not written); the
    /// others it ignores, which the views say when they are given.
    public let reads: SaveOptionKinds
    /// Its writer writes pages (PDF: the title and captions set as text
    /// over the photos), not pixels that have them drawn in.
    public let isPage: Bool
    /// The smallest scale, in eighths, a photo is decoded at (8: full size only).
    public let smallestScale: Int

    /// Its writer has a quality (a lossy encoder; a page's photos).
    public var hasQuality: Bool { reads.contains(.quality) }

    /// A writer of the engine's table (`ci_writer_info`), its C strings
    /// read once into Swift's: a value every thread may share.
    private struct Writer: Sendable {
        let format: ci_format
        let name: String
        let extensions: [String]
        let options: UInt32
        let writesPages: Bool
    }

    /// The engine's writers, in its order.
    private static let writers: [Writer] = (0..<ci_writers(0, nil)).map { index in
        var info = ci_writer_info()
        _ = ci_writers(index, &info)
        return Writer(format: info.format, name: String(cString: info.name),
                      extensions: String(cString: info.extensions).split(separator: " ").map(String.init),
                      options: info.options, writesPages: info.writes == CI_WRITES_PAGES)
    }

    private init(_ format: ci_format, name: String, title: String, extensions: [String], writer: Writer?,
                 smallestScale: Int) {
        self.format = format
        self.name = name
        self.title = title
        self.extensions = extensions
        saveExtensions = writer?.extensions ?? extensions
        canSave = writer != nil
        reads = writer.map { SaveOptionKinds(rawValue: $0.options) } ?? []
        isPage = writer?.writesPages ?? false
        self.smallestScale = smallestScale
    }

    /// Every format read, in the engine's order, with its writer if it has one.
    public static let all: [ImageFormat] = (0..<ci_formats(0, nil)).map { index in
        var info = ci_format_info()
        _ = ci_formats(index, &info)
        return ImageFormat(info.format, name: String(cString: info.name), title: String(cString: info.title),
                           extensions: String(cString: info.extensions).split(separator: " ").map(String.init),
                           writer: writers.first { $0.format == info.format }, smallestScale: Int(info.smallest_scale))
    }

    /// The formats a collage can be saved in, in the writers' order: those
    /// read too as `all` has them, those written only (PDF) from their writer.
    public static let writable: [ImageFormat] = writers.map { writer in
        all.first { $0.format == writer.format }
            ?? ImageFormat(writer.format, name: writer.name, title: writer.name, extensions: writer.extensions,
                           writer: writer, smallestScale: 8)
    }

    /// The format of an engine's code, nil for one it does not know.
    static func of(_ format: ci_format) -> ImageFormat? { all.first { $0.format == format } }

    /// The format a file's first bytes (up to `sniffedBytes` of them) say it
    /// is, as the engine judges photos; nil for anything else.
    static func of(firstBytes bytes: [UInt8]) -> ImageFormat? {
        of(bytes.withUnsafeBufferPointer { ci_sniff_format($0.baseAddress, $0.count) })
    }

    /// How many first bytes tell a format.
    static let sniffedBytes = Int(CI_SNIFF_BYTES)

    /// The format written for a file extension, nil when none is.
    static func saving(extension ext: String) -> ImageFormat? {
        writable.first { $0.saveExtensions.contains(ext.lowercased()) }
    }
}

extension ImageFormat {
    /// The table's first writable format (JPEG): what a batch writes unless told.
    public static var standard: ImageFormat { writable[0] }

    /// The extension a collage saved in this format is given: its usual one.
    public var fileExtension: String { saveExtensions[0] }

    /// The format written for a file extension (any of a format's, any case).
    public init(extension ext: String) throws(SaveFormatError) {
        guard !ext.isEmpty else { throw .noExtension }
        guard let format = Self.saving(extension: ext) else { throw .unknownExtension(ext) }
        self = format
    }

    /// The format written for a file's name, by its extension.
    public init(path: String) throws(SaveFormatError) {
        try self.init(extension: URL(fileURLWithPath: path).pathExtension)
    }
}

/// Why a collage cannot be saved under a name, whose extension chooses the format.
public enum SaveFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The name has none.
    case noExtension
    /// No format the engine writes goes by it.
    case unknownExtension(String)

    public var description: String {
        switch self {
        case .noExtension: "the output file needs an extension: \(ImageFormat.savedExtensions)"
        case let .unknownExtension(ext): "cannot save as '.\(ext)': use \(ImageFormat.savedExtensions)"
        }
    }
}

/// The formats as help texts list them, from the engine's table.
extension ImageFormat {
    /// Every format read, by title: "A, B or C".
    public static var readTitles: String { listed(all.map(\.title), "or") }
    /// Every format written, by title.
    public static var savedTitles: String { listed(writable.map(\.saveTitle), "or") }
    /// The extensions of the formats written: ".a, .b or .c".
    public static var savedExtensions: String { listed(writable.flatMap(\.saveExtensions).map { "." + $0 }, "or") }
    /// The formats written as pixels (not pages), by their usual extension:
    /// what a book's page images can be ("jpg, png or ...").
    public static var pixelExtensions: String { listed(writable.filter { !$0.isPage }.map(\.fileExtension), "or") }
    /// The formats written with a quality: "A and B".
    public static var qualityTitles: String { listed(writable.filter(\.hasQuality).map(\.saveTitle), "and") }
    /// The formats written without one.
    public static var losslessTitles: String { listed(writable.filter { !$0.hasQuality }.map(\.saveTitle), "and") }

    /// What a saved file of this format is called: its title, or where it
    /// is written as only some of what it reads (HEIF as AVIF) that kind.
    public var saveTitle: String { saveExtensions == extensions ? title : saveExtensions[0].uppercased() }

    /// "a, b or c".
    private static func listed(_ items: [String], _ conjunction: String) -> String {
        guard let last = items.last else { return "" }
        guard items.count > 1 else { return last }
        return items.dropLast().joined(separator: ", ") + " \(conjunction) " + last
    }
}
