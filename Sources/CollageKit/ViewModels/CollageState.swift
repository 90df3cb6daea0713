/// Everything the collage screen shows, derived from the selection alone.
public struct CollageState: Equatable, Sendable, Codable {
    public let photos: [Photo]
    /// The rules' title: "Collage", "1 photo", "N photos".
    public let title: String
    /// The collage's own title (`collage title`, `t`), drawn across the top
    /// by a save; nil for none.
    public let collageTitle: CollageTitle?
    public let canAdd: Bool
    public let canClear: Bool
    public let canSave: Bool
    /// The photos of the selection that can no longer be read (deleted,
    /// moved, made unreadable since they were added), in selection order.
    public let missing: [Photo]
    /// Why each of `missing` cannot be read.
    public let absences: [Photo: PhotoAbsence]

    public init(photos: [Photo], title collageTitle: CollageTitle? = nil, absences: [Photo: PhotoAbsence]) {
        let count = photos.count
        self.photos = photos
        self.collageTitle = collageTitle
        self.absences = absences
        missing = photos.filter { absences[$0] != nil }
        title = CollageRules.title(count: count)
        canAdd = CollageRules.canAdd(count: count)
        canClear = CollageRules.canClear(count: count, titled: collageTitle != nil)
        canSave = CollageRules.canSave(count: count)
    }

    /// `missing` photos, all gone (deleted or moved).
    public init(photos: [Photo], title: CollageTitle? = nil, missing: [Photo] = []) {
        self.init(photos: photos, title: title, absences: Dictionary(missing.map { ($0, .missing) }) { first, _ in first })
    }

    public var count: Int { photos.count }

    /// Why saving would be refused: the rules, then the first missing photo.
    public var saveRefusal: CollageRefusal? {
        if let refusal = CollageRules.saveRefusal(count: count) { return refusal }
        if let first = missing.first, let index = photos.firstIndex(of: first), let absence = absences[first] {
            return .missingPhoto(path: first.path, position: index + 1, absence: absence)
        }
        return nil
    }
}

/// What became of an action: shown by whichever view triggered it.
public enum CollageEvent: Equatable, Sendable {
    case added([Photo])
    case cleared
    case removed([Photo])
    /// The photo now at 0-based `to`.
    case moved(Photo, to: Int)
    /// The photo (with its new focus, or none) at 0-based `at`.
    case focused(Photo, at: Int)
    /// The photo (with its new caption, or none) at 0-based `at`.
    case captioned(Photo, at: Int)
    /// The collage's own title, or none.
    case titled(CollageTitle?)
    case saved(path: String)
    /// The rules forbid it; nothing changed.
    case refused(CollageRefusal)
    /// It was allowed but failed (storage, decoding, writing); the selection is kept.
    case failed(CollageFailure)

    /// One line for a person.
    public var message: String {
        switch self {
        case let .added(photos): return "Added \(photos.count == 1 ? "1 photo" : "\(photos.count) photos")"
        case .cleared: return "Cleared"
        case let .removed(photos):
            return "Removed " + (photos.count == 1 ? photos[0].fileName : "\(photos.count) photos")
        case let .moved(photo, to): return "Moved \(photo.fileName) to \(to + 1)"
        case let .focused(photo, at):
            if let focus = photo.focus { return "Photo \(at + 1) (\(photo.fileName)) is cropped around \(focus)" }
            return "Photo \(at + 1) (\(photo.fileName)) has no focus: the crop rule places it"
        case let .captioned(photo, at):
            if let caption = photo.caption { return "Photo \(at + 1) (\(photo.fileName)) is captioned \"\(caption)\"" }
            return "Photo \(at + 1) (\(photo.fileName)) has no caption of its own"
        case let .titled(title):
            if let title { return "The collage is titled \"\(title.text)\"" }
            return "The collage has no title of its own"
        case let .saved(path): return "Saved \(path)"
        case let .refused(refusal): return refusal.description
        case let .failed(failure): return failure.message
        }
    }

    public var isSuccess: Bool {
        switch self {
        case .added, .cleared, .removed, .moved, .focused, .captioned, .titled, .saved: return true
        case .refused, .failed: return false
        }
    }
}

/// The error a refused or failed action completes with: the refusal or the
/// failure its event carried.
public enum CollageActionError: Error, Equatable, CustomStringConvertible {
    case refused(CollageRefusal)
    case failed(CollageFailure)

    /// The event that tells it.
    public var event: CollageEvent {
        switch self {
        case let .refused(refusal): return .refused(refusal)
        case let .failed(failure): return .failed(failure)
        }
    }

    public var description: String {
        switch self {
        case let .refused(refusal): return refusal.description
        case let .failed(failure): return failure.message
        }
    }

    /// The failure, when it was one (not a refusal).
    public var failure: CollageFailure? {
        if case let .failed(failure) = self { return failure }
        return nil
    }
}
