import Testing
@testable import CollageKit

@Suite struct RGBColorTests {
    @Test("CSS colour names, in any case", arguments: [
        ("purple", "#800080"), ("REBECCAPURPLE", "#663399"), ("Teal", "#008080"), ("green", "#008000"),
        ("gray", "#808080"), ("grey", "#808080"), ("maroon", "#800000"), ("lightgoldenrodyellow", "#fafad2"),
        ("aqua", "#00ffff"), ("cyan", "#00ffff"), ("white", "#ffffff"), ("black", "#000000"),
    ])
    func names(name: String, hex: String) throws {
        #expect(try RGBColor(parsing: name).description == hex)
    }

    @Test func everyCSSNameIsThere() {
        // CSS Color Module Level 4 names 148 colours (147 from CSS 3, and rebeccapurple).
        #expect(RGBColor.names.count == 148)
        #expect(RGBColor.names.keys.allSatisfy { $0 == $0.lowercased() && !$0.contains(" ") })
    }

    @Test func hexForms() throws {
        #expect(try RGBColor(parsing: "#1a2B3c") == RGBColor(red: 0x1A, green: 0x2B, blue: 0x3C))
        #expect(try RGBColor(parsing: "#abc") == RGBColor(red: 0xAA, green: 0xBB, blue: 0xCC))
        #expect(try RGBColor(parsing: "abc") == RGBColor(red: 0xAA, green: 0xBB, blue: 0xCC))
    }

    @Test("a bad colour names the value", arguments: ["purpel", "#12345", "#ggg", "", "light blue", "#1234567"])
    func badColours(text: String) {
        #expect {
            try RGBColor(parsing: text)
        } throws: { error in
            "\(error)".contains("'\(text)'") && "\(error)".contains("CSS colour name")
        }
    }
}
