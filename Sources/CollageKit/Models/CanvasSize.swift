import Foundation

/// The canvas size of a collage, parsed from "WxH".
public struct CanvasSize: Equatable, Sendable, CustomStringConvertible {
    /// The largest side we render. Far above any screen or print need, and it
    /// keeps a typo ("19200x10800") from allocating gigabytes.
    public static let maximumSide = 16384

    public let width: Int
    public let height: Int

    public static let `default` = CanvasSize(uncheckedWidth: 1920, height: 1080)

    private init(uncheckedWidth width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public init(width: Int, height: Int) throws {
        guard (1...Self.maximumSide).contains(width), (1...Self.maximumSide).contains(height) else {
            throw ValueError("size \(width)x\(height) is out of range: each side must be 1 to \(Self.maximumSide) pixels")
        }
        self.width = width
        self.height = height
    }

    public init(parsing text: String) throws {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else {
            throw ValueError("size '\(text)' is not WIDTHxHEIGHT, e.g. 1920x1080")
        }
        try self.init(width: width, height: height)
    }

    public var description: String { "\(width)x\(height)" }
}

/// A side of the canvas left to the photos that a layout cannot work out:
/// the values of the refusal, which each view words with its own names for
/// the size and the layout.
public struct OpenSide: Equatable, Sendable, CustomStringConvertible {
    public enum Side: String, Sendable {
        case width, height
    }

    public let size: RequestedSize
    public let layout: LayoutMode
    public let side: Side

    /// The one layout that works this side out.
    public var capableLayout: LayoutMode { side == .height ? .rows : .columns }

    /// "1920x leaves the height to the photos, which only rows does".
    public var reason: String { "\(size) leaves the \(side.rawValue) to the photos, which only \(capableLayout) does" }

    public var description: String { refusal(naming: "the \(layout) layout") }

    /// The refusal, the layout called `layoutName` ("the grid layout", a batch list's "#layout grid").
    public func refusal(naming layoutName: String) -> String {
        "\(layoutName) cannot draw the size \(size): it leaves the \(side.rawValue) to the photos, which only \(capableLayout) does"
    }
}

/// The canvas size a person asked for (`--size`): both sides, or one side
/// only ("1920x", "x1080"), the other to follow from the photos (for the
/// `rows` and `columns` layouts).
public struct RequestedSize: Equatable, Sendable, CustomStringConvertible {
    public let width: Int?
    public let height: Int?

    public static let `default` = RequestedSize(CanvasSize.default)

    public init(_ canvas: CanvasSize) {
        width = canvas.width
        height = canvas.height
    }

    public init(width: Int?, height: Int?) throws {
        guard width != nil || height != nil else {
            throw ValueError("size 'x' gives neither side: write WIDTHxHEIGHT, WIDTHx or xHEIGHT, e.g. 1920x1080")
        }
        for side in [width, height].compactMap({ $0 }) where !(1...CanvasSize.maximumSide).contains(side) {
            throw ValueError("size \(Self.text(width, height)) is out of range: each side must be 1 to \(CanvasSize.maximumSide) pixels")
        }
        self.width = width
        self.height = height
    }

    public init(parsing text: String) throws {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        // Each side: a number, or empty for "follows from the photos".
        var sides: [Int?] = []
        for part in parts where parts.count == 2 {
            if part.isEmpty {
                sides.append(nil)
            } else if let side = Int(part) {
                sides.append(side)
            }
        }
        guard sides.count == 2 else {
            throw ValueError("size '\(text)' is not WIDTHxHEIGHT (e.g. 1920x1080), WIDTHx, xHEIGHT or a size on paper (A4, A4-landscape, 6x4in, 15x10cm)")
        }
        try self.init(width: sides[0], height: sides[1])
    }

    /// The side `layout` cannot work out of this size, or nil: a side left
    /// to the photos is worked out only by rows (the height) and columns
    /// (the width).
    public func openSide(for layout: LayoutMode) -> OpenSide? {
        if height == nil && layout != .rows { return OpenSide(size: self, layout: layout, side: .height) }
        if width == nil && layout != .columns { return OpenSide(size: self, layout: layout, side: .width) }
        return nil
    }

    /// The canvas, when both sides are given.
    public var canvas: CanvasSize? {
        guard let width, let height else { return nil }
        return try? CanvasSize(width: width, height: height)
    }

    private static func text(_ width: Int?, _ height: Int?) -> String {
        "\(width.map(String.init) ?? "")x\(height.map(String.init) ?? "")"
    }

    public var description: String { Self.text(width, height) }
}
