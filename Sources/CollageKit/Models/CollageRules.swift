/// The collage's rules, in one place: everything the screens and commands
/// show or allow is derived from the number of selected photos.
public enum CollageRules {
    /// A collage holds at most this many photos.
    public static let maximumPhotos = 6

    /// "Collage" when empty, "1 photo", "N photos".
    public static func title(count: Int) -> String {
        switch count {
        case 0: return "Collage"
        case 1: return "1 photo"
        default: return "\(count) photos"
        }
    }

    public static func canAdd(count: Int) -> Bool { count < maximumPhotos }
    /// A collage with only a title has that to clear.
    public static func canClear(count: Int, titled: Bool = false) -> Bool { count > 0 || titled }
    public static func canSave(count: Int) -> Bool { count > 0 && count % 2 == 0 }

    /// Why adding `adding` photos to a collage of `count` is refused, or nil.
    public static func addRefusal(count: Int, adding: Int) -> CollageRefusal? {
        if adding == 0 { return .nothingToAdd }
        if count + adding > maximumPhotos { return .full(count: count, adding: adding) }
        return nil
    }

    public static func clearRefusal(count: Int, titled: Bool = false) -> CollageRefusal? {
        canClear(count: count, titled: titled) ? nil : .nothingToClear
    }

    public static func saveRefusal(count: Int) -> CollageRefusal? {
        if count == 0 { return .nothingToSave }
        if count % 2 != 0 { return .oddCount(count) }
        return nil
    }

    /// Why removing the photos at `offsets` (0-based) from a collage of
    /// `count` is refused, or nil.
    public static func removeRefusal(count: Int, offsets: [Int]) -> CollageRefusal? {
        if count == 0 { return .nothingToRemove }
        if offsets.isEmpty { return .nothingToRemove }
        if let wrong = offsets.first(where: { !(0..<count).contains($0) }) { return .noSuchPhoto(position: wrong + 1, count: count) }
        return nil
    }

    /// Why setting or clearing the focus of the photo at `offset` (0-based) is refused, or nil.
    public static func focusRefusal(count: Int, offset: Int) -> CollageRefusal? {
        photoRefusal(count: count, offset: offset, empty: .nothingToFocus)
    }

    /// Why setting or clearing the caption of the photo at `offset` (0-based) is refused, or nil.
    public static func captionRefusal(count: Int, offset: Int) -> CollageRefusal? {
        photoRefusal(count: count, offset: offset, empty: .nothingToCaption)
    }

    /// An action on one photo: refused on an empty collage, or for a photo it does not have.
    private static func photoRefusal(count: Int, offset: Int, empty: CollageRefusal) -> CollageRefusal? {
        if count == 0 { return empty }
        if !(0..<count).contains(offset) { return .noSuchPhoto(position: offset + 1, count: count) }
        return nil
    }

    /// Why `layout` cannot draw a canvas of `size` whatever the photos are,
    /// or nil: a side left to the photos that this layout cannot work out
    /// (`--size 1920x` is for rows, `x1080` for columns, the grid and auto
    /// need both). The layout model's own check, asked through its plan for
    /// no photos, so the two can never disagree. (A canvas too small for
    /// these photos is only known from the photos: the picture says so.)
    public static func layoutRefusal(_ layout: LayoutMode, size: RequestedSize) -> LayoutError? {
        do {
            _ = try CollageLayout.plan([], LayoutRequest(size: size, layout: layout))
            return nil
        } catch {
            return error
        }
    }

    /// Why moving the photo at `from` to `to` (0-based) is refused, or nil.
    public static func moveRefusal(count: Int, from: Int, to: Int) -> CollageRefusal? {
        if count == 0 { return .nothingToMove }
        for offset in [from, to] where !(0..<count).contains(offset) {
            return .noSuchPhoto(position: offset + 1, count: count)
        }
        return nil
    }
}

/// An action the rules forbid. A refused action changes nothing.
public enum CollageRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    case nothingToAdd
    case full(count: Int, adding: Int)
    case nothingToClear
    case nothingToSave
    case oddCount(Int)
    /// `pixelsNeeded`: a photo over the pixel limit, the fewest pixels it
    /// decodes to (`ImageEngineError.pixelsNeeded`), for a view that can raise the limit.
    case unreadablePhoto(path: String, reason: String, pixelsNeeded: UInt64? = nil)
    /// Several unreadable photos (each an `unreadablePhoto`).
    indirect case unreadablePhotos([CollageRefusal])
    case nothingToRemove
    case nothingToMove
    case nothingToFocus
    case nothingToCaption
    /// A position (1-based, as `status` numbers photos) the collage does not have.
    case noSuchPhoto(position: Int, count: Int)
    /// A photo of the selection that can no longer be read (deleted, moved, unreadable).
    case missingPhoto(path: String, position: Int, absence: PhotoAbsence = .missing)

    public var description: String {
        switch self {
        case .nothingToAdd:
            return "no photo to add"
        case let .full(count, adding):
            let max = CollageRules.maximumPhotos
            if count >= max {
                return "the collage is full: it holds at most \(max) photos"
            }
            if count == 0 {
                return "\(adding) photos are too many: a collage holds at most \(max)"
            }
            return "a collage holds at most \(max) photos: it has \(count), adding \(adding) would make \(count + adding)"
        case .nothingToClear:
            return "nothing to clear: the collage is empty"
        case .nothingToSave:
            return "nothing to save: the collage is empty"
        case let .oddCount(count):
            return "cannot save \(CollageRules.title(count: count)): a collage needs an even number of photos"
        case let .unreadablePhoto(_, reason, _):
            return reason
        case let .unreadablePhotos(refusals):
            return refusals.map(\.description).joined(separator: "; ")
        case .nothingToRemove:
            return "nothing to remove: the collage is empty"
        case .nothingToMove:
            return "nothing to move: the collage is empty"
        case .nothingToFocus:
            return "no photo to focus: the collage is empty"
        case .nothingToCaption:
            return "no photo to caption: the collage is empty"
        case let .noSuchPhoto(position, count):
            if position < 1 { return "photos are numbered from 1, not \(position)" }
            return "there is no photo \(position): the collage has \(CollageRules.title(count: count).lowercased())"
        case let .missingPhoto(path, position, absence):
            return "photo \(position) is \(absence): \(path) (\(absence.remedy))"
        }
    }
}
