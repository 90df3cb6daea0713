/// Everything the collage screen shows, derived from the selection alone.
public struct CollageState: Equatable, Sendable, Codable {
    public let photos: [Photo]
    public let title: String
    public let canAdd: Bool
    public let canClear: Bool
    public let canSave: Bool

    public init(photos: [Photo]) {
        let count = photos.count
        self.photos = photos
        title = CollageRules.title(count: count)
        canAdd = CollageRules.canAdd(count: count)
        canClear = CollageRules.canClear(count: count)
        canSave = CollageRules.canSave(count: count)
    }

    public var count: Int { photos.count }
}

/// What became of an action: shown by whichever view triggered it.
public enum CollageEvent: Equatable, Sendable {
    case added([Photo])
    case cleared
    case saved(path: String)
    /// The rules forbid it; nothing changed.
    case refused(CollageRefusal)
    /// It was allowed but failed (storage, decoding, writing); the selection is kept.
    case failed(String)

    /// One line for a person.
    public var message: String {
        switch self {
        case let .added(photos): return "Added \(photos.count == 1 ? "1 photo" : "\(photos.count) photos")"
        case .cleared: return "Cleared"
        case let .saved(path): return "Saved \(path)"
        case let .refused(refusal): return refusal.description
        case let .failed(reason): return reason
        }
    }

    public var isSuccess: Bool {
        switch self {
        case .added, .cleared, .saved: return true
        case .refused, .failed: return false
        }
    }
}

/// The error a refused or failed save completes with.
public struct CollageActionError: Error, Equatable, CustomStringConvertible {
    public let event: CollageEvent
    /// Why the writer refused, when it did: lets each front end phrase its own
    /// advice (the command line has --force; the collage screen asks for
    /// another name).
    public let writeError: FileWriteError?
    public var description: String { event.message }

    /// The save was refused because a file already has that name.
    public var isFileInTheWay: Bool {
        if case .exists? = writeError { return true }
        return false
    }

    public init(event: CollageEvent, writeError: FileWriteError? = nil) {
        self.event = event
        self.writeError = writeError
    }
}
