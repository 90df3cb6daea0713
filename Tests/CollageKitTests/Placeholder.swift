import Testing
@testable import CollageKit
@Test func placeholder() { #expect(CollageKitVersion.string == "0.1.0") }
