/// Where on the Earth a photo was taken: its GPS position, in degrees
/// (WGS 84, north and east positive), as EXIF's GPS tags give it.
public struct GeoPosition: Codable, Equatable, Hashable, Sendable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// The name a title gives a position: the populated place nearest to it,
/// else only the region it lies in (`PlaceNaming` says when each applies).
public enum PlaceName: Equatable, Sendable {
    /// A town or city ("Arezzo"), in its region ("Tuscany") and country ("IT").
    case town(String, region: String, country: String)
    /// No town near enough: the region of the nearest one.
    case region(String, country: String)

    /// The words a title uses: the town, or the region.
    public var words: String {
        switch self {
        case .town(let name, _, _): return name
        case .region(let name, _): return name
        }
    }

    /// The region, for a title over places of one region ("Tuscany");
    /// nil where the data names none.
    public var region: String? {
        switch self {
        case .town(_, let region, _), .region(let region, _): return region.isEmpty ? nil : region
        }
    }
}
