import CollagePlaces

/// Names where photos were taken, offline (issue #43): `GeoNamesPlaces`
/// over the table the binary carries; fakes in tests.
public protocol PlaceNaming: Sendable {
    /// The place a person would name for a position: the nearest town within
    /// `townRadiusKm`, else the region of the nearest within `regionRadiusKm`,
    /// else nil (the open sea, a desert, the poles).
    func name(of position: GeoPosition) -> PlaceName?
    /// The distance between two positions in km, along the Earth.
    func distanceKm(_ a: GeoPosition, _ b: GeoPosition) -> Double
}

public extension PlaceNaming {
    /// The title of photos taken at `positions` (in the order taken): the
    /// first one's place; where any two lie more than `townRadiusKm` apart,
    /// "first – last" (the places of the first and the last photo with a
    /// position), or one of them when both have one name. Nil when none has
    /// a position, or none is near a named place.
    func title(of positions: [GeoPosition]) -> String? {
        let named = positions.compactMap { position in name(of: position).map { (position, $0) } }
        guard let first = named.first, let last = named.last else { return nil }
        let spread = positions.indices.contains { i in
            positions[(i + 1)...].contains { distanceKm(positions[i], $0) > GeoNamesPlaces.townRadiusKm }
        }
        if !spread || first.1.words == last.1.words { return first.1.words }
        return "\(first.1.words) – \(last.1.words)"
    }

    /// The region all of `positions` lie in ("Tuscany"), for a title over a
    /// whole trip; nil when they lie in more than one, or none is named.
    func commonRegion(of positions: [GeoPosition]) -> String? {
        let regions = Set(positions.compactMap { name(of: $0)?.region })
        return regions.count == 1 ? regions.first : nil
    }
}

/// GeoNames' populated places of more than 1,000 people (CC BY 4.0), looked
/// up in the table CollagePlaces carries: nothing is read from disk or the
/// network, and nothing is loaded until asked.
public struct GeoNamesPlaces: PlaceNaming {
    /// A town farther than this is not where a photo was taken: 25 km is a
    /// day's walk, the area a town's name still stands for (issue #43).
    public static let townRadiusKm = 25.0
    /// Beyond a town's reach, the region of the nearest one within this is
    /// still the right word (a mountain or a lake shore far from a town);
    /// farther, nothing is named rather than a guess.
    public static let regionRadiusKm = 100.0

    public init() {}

    public func name(of position: GeoPosition) -> PlaceName? {
        var place = cp_place()
        if cp_nearest_place(position.latitude, position.longitude, Self.townRadiusKm, &place) == 1 {
            return .town(String(cString: place.name), region: String(cString: place.region),
                         country: Self.country(place))
        }
        if cp_nearest_place(position.latitude, position.longitude, Self.regionRadiusKm, &place) == 1 {
            let region = String(cString: place.region)
            return region.isEmpty ? nil : .region(region, country: Self.country(place))
        }
        return nil
    }

    public func distanceKm(_ a: GeoPosition, _ b: GeoPosition) -> Double {
        cp_distance_km(a.latitude, a.longitude, b.latitude, b.longitude)
    }

    private static func country(_ place: cp_place) -> String {
        withUnsafeBytes(of: place.country) { String(decoding: $0.prefix(2), as: UTF8.self) }
    }
}
