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
    case failed(CollageFailure)

    /// One line for a person.
    public var message: String {
        switch self {
        case let .added(photos): return "Added \(photos.count == 1 ? "1 photo" : "\(photos.count) photos")"
        case .cleared: return "Cleared"
        case let .saved(path): return "Saved \(path)"
        case let .refused(refusal): return refusal.description
        case let .failed(failure): return failure.message
        }
    }

    public var isSuccess: Bool {
        switch self {
        case .added, .cleared, .saved: return true
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
