/// What a photo file is, read from its header.
public struct PhotoInfo: Equatable, Sendable {
    public let format: ImageFormat
    public let width: Int
    public let height: Int
    public let orientation: Int
    public let displayWidth: Int
    public let displayHeight: Int
    public let hasAlpha: Bool
    /// When it was taken, as EXIF writes it ("2019:07:04 18:30:00"); nil when
    /// the file says nothing (or nothing that is a date).
    public let dateTaken: String?
}

extension PhotoShape {
    /// The photo as it is seen: after its EXIF orientation.
    public init(_ info: PhotoInfo) { self.init(width: info.displayWidth, height: info.displayHeight) }
}
