@testable import CollageKit
import Foundation
import Testing

/// `BookPlan.make`'s rules (issue #43), on measures alone: the cover's
/// photo, lone events, pages of at most six, --pages.
@Suite struct BookPlanTests {
    /// An event `title` of photos named `title-1`... with these scores.
    static func event(_ title: String, _ scores: [Double], people: Set<Int> = [], undated: Bool = false) -> BookPlan.Event {
        BookPlan.Event(title: title, photos: scores.enumerated().map {
            BookPlan.Candidate(photo: Photo(path: "/trip/\(title)-\($0.offset + 1).jpg"), score: $0.element,
                               hasPeople: people.contains($0.offset + 1))
        }, undated: undated)
    }

    static func names(_ page: BookPlan.Page) -> [String] { page.photos.map { $0.fileName } }

    @Test func theCoverTakesTheBestPhotoPeopleFirstAndItIsNotShownAgain() {
        let plan = BookPlan.make([Self.event("A", [1.0, 1.2, 0.9]), Self.event("B", [0.8, 0.7, 1.5], people: [2])],
                                 maxPages: nil)
        #expect(plan.hero?.fileName == "B-2.jpg", "a face beats a higher score")
        #expect(plan.pages.map(Self.names) == [["A-1.jpg", "A-2.jpg"], ["B-1.jpg", "B-3.jpg"]],
                "each page even, in the order taken: A's two best, B's two left")
        #expect(!plan.pages.flatMap(\.photos).contains(plan.hero!))
    }

    /// At A4 and 300 dpi every 640-pixel photo is past 2x: a 100-pixel
    /// copy, 14x, is left out rather than fill a page, while two are left.
    @Test func aPhotoFarSmallerThanTheRestOfItsEventIsLeftOut() {
        func event(_ enlargements: [Double?]) -> BookPlan.Event {
            BookPlan.Event(title: "A", photos: enlargements.enumerated().map {
                BookPlan.Candidate(photo: Photo(path: "/trip/A-\($0.offset + 1).jpg"), score: 1.0 - Double($0.offset) / 10,
                                   enlargement: $0.element)
            })
        }
        let hero = BookPlan.Event(title: "H", photos: [BookPlan.Candidate(photo: Photo(path: "/trip/hero.jpg"), score: 9)])
        let plan = BookPlan.make([hero, event([2.3, 2.4, 14.2, 2.5])], maxPages: nil)
        #expect(plan.pages.map(Self.names) == [["A-1.jpg", "A-2.jpg"]], "three fit: the two best, not the tiny third")
        // The fourth, the lowest-scored of the three left, gives way to keep the page even: said too.
        #expect(plan.notes == ["the event of A: A-3.jpg is left out, too small for its cell (it would be enlarged 14.2x)",
                               "the event of A: A-4.jpg is left out to keep its page's count even (its lowest-scored photo)"],
                "\(plan.notes)")
        // Only one other left: both stay; none past 2x: all stay, whatever their ratio.
        #expect(BookPlan.make([hero, event([2.3, 14.2])], maxPages: nil).pages.map(Self.names) == [["A-1.jpg", "A-2.jpg"]])
        #expect(BookPlan.make([hero, event([0.5, 1.9, 1.2, nil])], maxPages: nil).pages.map(Self.names)
                == [["A-1.jpg", "A-2.jpg", "A-3.jpg", "A-4.jpg"]])
    }

    @Test func aLoneEventJoinsThePageBeforeItElseAfterItAndTheUndatedNever() {
        let plan = BookPlan.make([Self.event("A", [2.0, 0.5]), Self.event("B", [1.0]), Self.event("C", [0.4, 0.3, 0.2]),
                                  Self.event("D", [0.9], undated: true)], maxPages: nil)
        // A's best is the cover's: its other photo joins B's (the event after it: A has none before it),
        // before B's own; the undated D's one photo is left out.
        #expect(plan.pages.map(\.title) == ["B", "C"])
        #expect(plan.pages.map(Self.names) == [["A-2.jpg", "B-1.jpg"], ["C-1.jpg", "C-2.jpg"]])
        #expect(plan.notes == [
            "the event of A has one photo worth showing: A-2.jpg joins the page of B",
            "the event of D has one photo worth showing: D-1.jpg is left out",
            "the event of C: C-3.jpg is left out to keep its page's count even (its lowest-scored photo)",
        ], "\(plan.notes)")
        // A lone event after another joins the one before it.
        let later = BookPlan.make([Self.event("A", [2.0, 1.9, 0.5]), Self.event("B", [1.0]), Self.event("C", [0.4, 0.3])],
                                  maxPages: nil)
        // A's two left and B's one are three: the best two, A-2 and B-1, in the order taken.
        #expect(later.pages.map(Self.names) == [["A-2.jpg", "B-1.jpg"], ["C-1.jpg", "C-2.jpg"]], "\(later.pages)")
        #expect(later.notes == ["the event of B has one photo worth showing: B-1.jpg joins the page of A",
                                "the event of A: A-3.jpg is left out to keep its page's count even (its lowest-scored photo)"])
        // Where it is not among the best of its neighbour's page, that is said.
        let crowded = BookPlan.make([Self.event("A", [2.0, 1.9, 1.8]), Self.event("B", [0.1]), Self.event("C", [0.4, 0.3])],
                                    maxPages: nil)
        #expect(crowded.pages.map(Self.names) == [["A-2.jpg", "A-3.jpg"], ["C-1.jpg", "C-2.jpg"]])
        #expect(crowded.notes == ["the event of B has one photo worth showing: B-1.jpg is left out (A's page shows better ones)"])
    }

    @Test func anEventOfManyPhotosTakesPagesOfAtMostSixEachEvenAndRepeatsItsTitle() {
        let plan = BookPlan.make([Self.event("Cover", [9.0]), Self.event("A", Array(repeating: 1.0, count: 11))],
                                 maxPages: nil)
        // Cover's lone photo is the cover's; A's eleven are ten shown, 6 + 4.
        #expect(plan.pages.map(\.photos.count) == [6, 4])
        #expect(plan.pages.map(\.title) == ["A", "A"])
        #expect(BookPlan.evenShares(8).map(\.count) == [4, 4])
        #expect(BookPlan.evenShares(12).map(\.count) == [6, 6])
        #expect(BookPlan.evenShares(14).map(\.count) == [6, 4, 4])
    }

    @Test func aListsCoverPhotoIsTheBestOfAPageOfFourWhichKeepsAnEvenCount() {
        func page(_ title: String, _ count: Int) -> BookPlan.Page {
            BookPlan.Page(title: title, photos: (1...count).map { Photo(path: "/list/\(title)-\($0).jpg") })
        }
        let scores = ["A-1.jpg": 3.0, "A-2.jpg": 2.0, "B-1.jpg": 1.0, "B-2.jpg": 0.9, "B-3.jpg": 0.2, "B-4.jpg": 0.5]
        var plan = BookPlan(hero: nil, pages: [page("A", 2), page("B", 4)])
        plan.takeCover { photo in scores[photo.fileName].map { BookPlan.Candidate(photo: photo, score: $0) } }
        #expect(plan.hero?.fileName == "B-1.jpg", "A's better photos are on a page of two, which one would leave with one")
        #expect(plan.pages.map(Self.names) == [["A-1.jpg", "A-2.jpg"], ["B-2.jpg", "B-4.jpg"]])
        #expect(plan.notes == ["B-1.jpg is the cover's photo: it and B-3.jpg leave the page of B, to keep it even"])
        var twos = BookPlan(hero: nil, pages: [page("A", 2)])
        twos.takeCover { photo in scores[photo.fileName].map { BookPlan.Candidate(photo: photo, score: $0) } }
        #expect(twos.hero == nil && twos.pages[0].photos.count == 2)
    }

    @Test func overPagesEventsGiveUpPagesFirstThenTheLowestScoredAreLeftOut() {
        let events = [Self.event("Cover", [9.0]), Self.event("A", Array(repeating: 1.0, count: 12)),
                      Self.event("B", [0.5, 0.4]), Self.event("C", [0.8, 0.7])]
        let roomy = BookPlan.make(events, maxPages: nil)
        #expect(roomy.pages.map(\.title) == ["A", "A", "B", "C"])
        let four = BookPlan.make(events, maxPages: 4)
        #expect(four.pages.map(\.title) == ["A", "B", "C"] && four.pages[0].photos.count == 6)
        #expect(four.notes == ["within 4 pages: the event of A shows 6 of its 12 photos"], "\(four.notes)")
        let three = BookPlan.make(events, maxPages: 3)
        #expect(three.pages.map(\.title) == ["A", "C"])
        #expect(three.notes.last == "within 3 pages: the event of B is left out (its best photo scores lowest)", "\(three.notes)")
        #expect(BookPlan.make(events, maxPages: 1).pages.isEmpty)
    }
}

/// A book's page, bleed and cover words (`BookOptions`, `BookService.monthTitle`).
@Suite struct BookOptionsTests {
    @Test func aBleedIsALengthAddedToEverySideAndRefusedNegativeOrOverAQuarterOfThePage() throws {
        #expect(try BookOptions.micrometres(parsing: "3mm") == 3_000)
        #expect(try BookOptions.micrometres(parsing: "0.125in") == 3_175)
        #expect(try BookOptions.micrometres(parsing: "0.3cm") == 3_000)
        #expect(try BookOptions.micrometres(parsing: "3") == 3_000, "a bare number is millimetres")
        #expect(throws: ValueError.self) { try BookOptions.micrometres(parsing: "three") }

        let a4 = try #require(try PrintSize(parsing: "A4"))
        var options = BookOptions(size: .paper(a4), bleedMicrometres: 3_000)
        let page = try options.page()
        #expect(page.paper?.widthMicrometres == 216_000 && page.paper?.heightMicrometres == 303_000)
        #expect(page.canvas.width == 2551 && page.canvas.height == 3579, "216 x 303 mm at 300 dpi")
        #expect(options.bleedRefusal() == nil)
        options.bleedMicrometres = -1_000
        #expect(options.bleedRefusal()?.contains("negative") == true)
        options.bleedMicrometres = 52_501
        #expect(options.bleedRefusal()?.contains("over a quarter") == true, "A4's shorter side is 210 mm")
        options.bleedMicrometres = 52_500
        #expect(options.bleedRefusal() == nil)

        let pixels = BookOptions(size: try SizeRequest(parsing: "600x840"), dpi: try PrintResolution(parsing: "72"),
                                 bleedMicrometres: 3_000)
        let sized = try pixels.page()
        #expect(sized.paper == nil && sized.canvas.width == 618 && sized.canvas.height == 858, "3 mm at 72 dpi: 9 pixels")
    }

    @Test func theCoverNamesTheMonthsTheTripSpans() {
        let locale = Locale(identifier: "en_US")
        func clock(_ text: String) -> Double { PhotoTime.wallClock(exif: text)! }
        #expect(BookService.monthTitle(from: clock("2008:10:22 10:00:00"), to: clock("2008:10:27 10:00:00"), locale: locale)
                == "October 2008")
        #expect(BookService.monthTitle(from: clock("2008:09:28 10:00:00"), to: clock("2008:10:02 10:00:00"), locale: locale)
                == "September – October 2008")
        #expect(BookService.monthTitle(from: clock("2008:12:28 10:00:00"), to: clock("2009:01:02 10:00:00"), locale: locale)
                == "December 2008 – January 2009")
    }
}
