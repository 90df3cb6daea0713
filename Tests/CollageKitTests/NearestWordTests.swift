import Testing
@testable import CollageKit

@Suite struct NearestWordTests {
    let commands = ["add", "remove", "move", "focus", "caption", "clear", "save", "status", "batch", "pick", "preview", "help"]

    @Test func aTypoSuggestsItsWord() {
        #expect(NearestWord.nearest(to: "sav", among: commands) == "save")
        #expect(NearestWord.nearest(to: "stauts", among: commands) == "status", "a swap is one edit")
        #expect(NearestWord.nearest(to: "bach", among: commands) == "batch")
        #expect(NearestWord.nearest(to: "previw", among: commands) == "preview")
        #expect(NearestWord.nearest(to: "hlep", among: commands) == "help")
        #expect(NearestWord.nearest(to: "SAVE", among: commands) == "save")
    }

    @Test func anotherWordSuggestsNothing() {
        #expect(NearestWord.nearest(to: "photo.jpg", among: commands) == nil)
        #expect(NearestWord.nearest(to: "x", among: commands) == nil)
        #expect(NearestWord.nearest(to: "render", among: commands) == nil)
        #expect(NearestWord.nearest(to: "save", among: commands) == nil, "the word itself is no suggestion")
    }

    @Test func distanceCountsEdits() {
        #expect(NearestWord.distance("", "abc") == 3)
        #expect(NearestWord.distance("kitten", "sitting") == 3)
        #expect(NearestWord.distance("ab", "ba") == 1)
        #expect(NearestWord.distance("save", "save") == 0)
    }
}
