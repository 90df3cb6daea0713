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
    public static func canClear(count: Int) -> Bool { count > 0 }
    public static func canSave(count: Int) -> Bool { count > 0 && count % 2 == 0 }

    /// Why adding `adding` photos to a collage of `count` is refused, or nil.
    public static func addRefusal(count: Int, adding: Int) -> CollageRefusal? {
        if adding == 0 { return .nothingToAdd }
        if count + adding > maximumPhotos { return .full(count: count, adding: adding) }
        return nil
    }

    public static func clearRefusal(count: Int) -> CollageRefusal? {
        canClear(count: count) ? nil : .nothingToClear
    }

    public static func saveRefusal(count: Int) -> CollageRefusal? {
        if count == 0 { return .nothingToSave }
        if count % 2 != 0 { return .oddCount(count) }
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
    case unreadablePhoto(path: String, reason: String)

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
        case let .unreadablePhoto(_, reason):
            return reason
        }
    }
}
