import Foundation
import Testing
@testable import CollageKit

/// The places table the binary carries, asked as `suggest` and `book` ask
/// it: positions whose nearest places were found with a brute-force search
/// over GeoNames' CSV (scripts/places/make-places.py's source).
@Suite struct PlaceNamerTests {
    let places = GeoNamesPlaces()

    @Test func aPhotoInATownIsNamedByTheTown() {
        // The Piazza Grande, 1.9 km from GeoNames' point for Arezzo.
        #expect(places.name(of: GeoPosition(latitude: 43.4631, longitude: 11.8783))
                == .town("Arezzo", region: "Tuscany", country: "IT"))
        #expect(places.name(of: GeoPosition(latitude: 43.7696, longitude: 11.2558))?.words == "Florence")
        // Southern and western hemispheres: Big Lake, Alaska, 3.4 km away.
        #expect(places.name(of: GeoPosition(latitude: 61.5, longitude: -150.0))
                == .town("Big Lake", region: "Alaska", country: "US"))
    }

    @Test func farFromATownOnlyTheRegionIsNamed() {
        // The nearest town, Insjon, is 27 km away: past a town's 25 km.
        #expect(places.name(of: GeoPosition(latitude: 64.5, longitude: 18.0))
                == .region("Vaesterbotten", country: "SE"))
        // Across the antimeridian: Labasa (Fiji) at 179.38 E is 80 km from 179.98 W.
        #expect(places.name(of: GeoPosition(latitude: -16.8, longitude: -179.98))
                == .region("Northern", country: "FJ"))
    }

    @Test func nowhereNearAPlaceNothingIsNamed() {
        #expect(places.name(of: GeoPosition(latitude: 30, longitude: -40)) == nil, "mid-Atlantic: 1,400 km")
        #expect(places.name(of: GeoPosition(latitude: 24, longitude: 25)) == nil, "the Libyan desert: 175 km")
        #expect(places.name(of: GeoPosition(latitude: 91, longitude: 0)) == nil, "not on the Earth")
        #expect(places.name(of: GeoPosition(latitude: .nan, longitude: 0)) == nil)
    }

    @Test func distancesAlongTheEarth() {
        let arezzo = GeoPosition(latitude: 43.46313, longitude: 11.87864)
        let florence = GeoPosition(latitude: 43.76956, longitude: 11.25581)
        #expect(abs(places.distanceKm(arezzo, florence) - 60.3) < 0.5)
        #expect(places.distanceKm(arezzo, arezzo) == 0)
        // A degree of longitude at the equator, across the antimeridian.
        #expect(abs(places.distanceKm(GeoPosition(latitude: 0, longitude: 179.5),
                                      GeoPosition(latitude: 0, longitude: -179.5)) - 111.2) < 0.5)
    }

    @Test func anEventIsTitledByItsPlaceOrItsFirstAndLastPlaces() {
        let arezzo = GeoPosition(latitude: 43.4631, longitude: 11.8783)
        let nearArezzo = GeoPosition(latitude: 43.47, longitude: 11.89)
        let florence = GeoPosition(latitude: 43.7696, longitude: 11.2558)
        let sea = GeoPosition(latitude: 30, longitude: -40)
        #expect(places.title(of: [arezzo, nearArezzo]) == "Arezzo")
        #expect(places.title(of: [arezzo, florence]) == "Arezzo – Florence", "60 km apart")
        #expect(places.title(of: [florence, arezzo, florence]) == "Florence", "the same first and last place")
        #expect(places.title(of: [sea, arezzo]) == "Arezzo", "a position with no name is passed over")
        #expect(places.title(of: []) == nil)
        #expect(places.title(of: [sea]) == nil)
        #expect(places.commonRegion(of: [arezzo, florence]) == "Tuscany")
        #expect(places.commonRegion(of: [arezzo, GeoPosition(latitude: 61.5, longitude: -150.0)]) == nil)
    }

    @Test func mostOfEuropeLiesNearATown() {
        // A sweep of positions one degree apart over Europe: whatever is
        // named must lie within the radius it was named for.
        var named = 0
        for latitude in stride(from: 36.0, through: 60.0, by: 1.0) {
            for longitude in stride(from: -9.0, through: 30.0, by: 1.0) {
                let position = GeoPosition(latitude: latitude + 0.37, longitude: longitude + 0.61)
                if case .town? = places.name(of: position) { named += 1 }
            }
        }
        #expect(named > 500, "most of Europe lies within 25 km of a town of 1,000 people")
    }
}
