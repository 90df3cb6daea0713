/// Why the photos cannot be laid out as asked: the layout model's own error,
/// so whatever plans a collage (`ImageEngine.render`, `save --dry-run`, the
/// pictures) passes it on as it is. `CollageFailure` takes it as a failure of
/// the options (the values given cannot work: exit 64 on the command line).
public struct LayoutError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// A side of the canvas is left to the photos (a size of 1920x), which this layout cannot work out.
        case sideLeftOpen(OpenSide)
        /// The canvas, less its margins, gaps and title band, has no room for the photos.
        case noRoom
        /// The canvas the photos call for (a side left to them) is larger than any that is drawn.
        case canvasTooLarge
    }

    public let kind: Kind
    /// One line for a person, naming the values that do not work.
    public let message: String
    public var description: String { message }

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// Why `layout` cannot draw a canvas of `size`, or nil (`RequestedSize.openSide(for:)`).
    static func sideLeftOpen(_ size: RequestedSize, _ layout: LayoutMode) -> LayoutError? {
        size.openSide(for: layout).map { LayoutError(.sideLeftOpen($0), "\($0)") }
    }

    /// No room for `count` photos on a canvas of `size` with the request's gap and margin.
    static func noRoom(_ count: Int, _ request: LayoutRequest, _ size: CustomStringConvertible) -> LayoutError {
        var spacing: [String] = []
        if request.gap > 0 { spacing.append("a gap of \(request.gap) px") }
        if request.margin > 0 { spacing.append("a margin of \(request.margin) px") }
        let with = spacing.isEmpty ? "" : " with " + spacing.joined(separator: " and ")
        return LayoutError(.noRoom, "a \(size) canvas\(with) has no room for \(count) photo\(count == 1 ? "" : "s") in the \(request.layout) layout")
    }

    /// A canvas worked out by a layout, refused when a side passes `CanvasSize.maximumSide`.
    static func canvas(width: Int, height: Int) throws(LayoutError) -> CanvasSize {
        do { return try CanvasSize(width: width, height: height) } catch { throw LayoutError(.canvasTooLarge, "\(error)") }
    }

    /// The same for a size with a side left open.
    static func size(width: Int?, height: Int?) throws(LayoutError) -> RequestedSize {
        do { return try RequestedSize(width: width, height: height) } catch { throw LayoutError(.canvasTooLarge, "\(error)") }
    }
}
