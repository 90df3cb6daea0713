/// What the selection keeps between commands: the photos, in order (each
/// with its focus and caption), and the collage's own title (`collage
/// title`, `t` on the collage screen), which a save draws unless `--title`
/// gives another for that save. `clear` and a successful save empty both.
public struct Selection: Equatable, Sendable {
    public var photos: [Photo]
    public var title: CollageTitle?

    public init(photos: [Photo] = [], title: CollageTitle? = nil) {
        self.photos = photos
        self.title = title
    }
}
