import Foundation

/// Measures photos for `collage suggest` (`ImageEngine` over the C
/// engine's `ci_measure_photo` and `ci_count_faces`; fakes in tests).
public protocol PhotoMeasuring: Sendable {
    /// The cheap measures of every photo.
    func measure(_ photo: Photo) throws -> PhotoMeasures
    /// The faces in it: dearer, asked only of photos still in the running.
    func countFaces(_ photo: Photo) throws -> Int
}
