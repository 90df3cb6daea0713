import Foundation

/// A photo book's pages (issue #43), planned from measures alone: which
/// photo is the cover's, which photos each page shows, and what was left
/// out and why. Pure rules, no file read: `BookService` gathers the events
/// and draws the plan.
public struct BookPlan: Equatable, Sendable {
    /// One event as the book sees it: its title, its photos worth showing
    /// (the best of each scene) with their scores, in the order taken.
    public struct Event: Equatable, Sendable {
        public var title: String
        public var photos: [Candidate]
        /// The undated photos' group: never joined to a neighbour's page.
        public var undated: Bool

        public init(title: String, photos: [Candidate], undated: Bool = false) {
            self.title = title
            self.photos = photos
            self.undated = undated
        }
    }

    public struct Candidate: Equatable, Sendable {
        public var photo: Photo
        public var score: Double
        public var hasPeople: Bool
        /// How much a cell of the page would enlarge it (`SuggestionChoice`'s
        /// estimate); nil when not known.
        public var enlargement: Double?

        public init(photo: Photo, score: Double, hasPeople: Bool = false, enlargement: Double? = nil) {
            self.photo = photo
            self.score = score
            self.hasPeople = hasPeople
            self.enlargement = enlargement
        }
    }

    /// A page after the cover: its title (an event's, repeated on each of
    /// its pages) and its photos, in the order taken.
    public struct Page: Equatable, Sendable {
        public var title: String
        public var photos: [Photo]
        /// A list's `#layout` for this page; nil: the book's.
        public var layout: LayoutMode?

        public init(title: String, photos: [Photo], layout: LayoutMode? = nil) {
            self.title = title
            self.photos = photos
            self.layout = layout
        }
    }

    /// The cover's photo; nil for a cover of its title alone.
    public var hero: Photo?
    public var pages: [Page]
    /// What a person is told on stderr: events joined, shortened, left out.
    public var notes: [String]

    public init(hero: Photo?, pages: [Page], notes: [String] = []) {
        self.hero = hero
        self.pages = pages
        self.notes = notes
    }

    /// The most photos on a page, and how many a page shows at least.
    static let mostPerPage = CollageRules.maximumPhotos
    static let fewestPerPage = 2
    /// How many times the enlargement of its event's least enlarged photo a
    /// photo may need before it is too small beside them.
    static let smallerThanTheRest = 2.0

    /// The book of `events` (in time order, the undated last) in at most
    /// `maxPages` pages, the cover included (nil: as many as they need):
    ///
    /// 1. the cover's photo is the best-scored of all, people preferred; it
    ///    is not shown again;
    /// 2. an event with a single photo worth showing joins the page of the
    ///    event before it (else after it), or is left out when it has none;
    /// 3. each event shows all its photos worth showing (an even number),
    ///    six a page, over as many pages as it needs, but not one its cell
    ///    would enlarge more than 2x and more than twice as much as the
    ///    event's least enlarged photo, while two others are left (a page of a trip's
    ///    camera photos is not filled with a 100-pixel copy: at A4 and 300
    ///    dpi every 640-pixel photo is past `SuggestionChoice`'s 2x, so that
    ///    rule alone cannot tell them apart);
    /// 4. over `maxPages`, the events with the most pages give up pages
    ///    first (down to one page each, and at least two photos), then the
    ///    lowest-scored events are left out; each said in `notes`.
    public static func make(_ events: [Event], maxPages: Int?) -> BookPlan {
        var events = events
        var notes: [String] = []
        // 1. The cover's photo.
        let all = events.indices.flatMap { e in events[e].photos.indices.map { (e, $0) } }
        let heroAt = all.max { a, b in
            let (x, y) = (events[a.0].photos[a.1], events[b.0].photos[b.1])
            return (x.hasPeople ? 1 : 0, x.score) < (y.hasPeople ? 1 : 0, y.score)
        }
        var hero: Photo?
        if let (e, p) = heroAt {
            hero = events[e].photos[p].photo
            events[e].photos.remove(at: p)
        }
        // 2. Events of one photo join a neighbour.
        var joins: [(note: Int, photo: Photo, from: String, to: String)] = []
        var e = 0
        while e < events.count {
            guard events[e].photos.count < fewestPerPage else { e += 1; continue }
            let lone = events.remove(at: e)
            guard let single = lone.photos.first else { continue }
            let neighbour = lone.undated ? nil
                : (e > 0 && !events[e - 1].undated ? e - 1 : (e < events.count && !events[e].undated ? e : nil))
            if let neighbour {
                // Where it was taken: after the event before, before the event after.
                events[neighbour].photos.insert(single, at: neighbour < e ? events[neighbour].photos.count : 0)
                // Said once the pages are chosen: it may not be among its neighbour's best.
                joins.append((notes.count, single.photo, lone.title, events[neighbour].title))
                notes.append("")
            } else {
                notes.append("the event of \(lone.title) has one photo worth showing: \(single.photo.fileName) is left out")
            }
        }
        // 3. Far smaller than the rest of their event: left out, while two are left.
        for e in events.indices {
            let least = events[e].photos.compactMap(\.enlargement).min() ?? 0
            let limit = max(SuggestionChoice.largestEnlargement, BookPlan.smallerThanTheRest * least)
            let fitting = events[e].photos.filter { ($0.enlargement ?? 0) <= limit }
            guard fitting.count >= fewestPerPage, fitting.count < events[e].photos.count else { continue }
            for small in events[e].photos where (small.enlargement ?? 0) > limit {
                notes.append("the event of \(events[e].title): \(small.photo.fileName) is left out, too small for its cell "
                             + "(it would be enlarged \(String(format: "%.1f", small.enlargement ?? 0))x)")
            }
            events[e].photos = fitting
        }
        // Pages each event would take.
        var counts = events.map { $0.photos.count - $0.photos.count % 2 }
        func pagesOf(_ n: Int) -> Int { (n + mostPerPage - 1) / mostPerPage }
        var kept = Array(events.indices)
        // 4. Within --pages: shorter events first, then fewer events.
        if let maxPages {
            let budget = max(0, maxPages - 1)
            let wanted = counts
            func total() -> Int { kept.map { pagesOf(counts[$0]) }.reduce(0, +) }
            while total() > budget, let longest = kept.max(by: { pagesOf(counts[$0]) < pagesOf(counts[$1]) }),
                  pagesOf(counts[longest]) > 1 {
                counts[longest] = (pagesOf(counts[longest]) - 1) * mostPerPage
            }
            for i in kept where counts[i] < wanted[i] {
                notes.append("within \(maxPages) pages: the event of \(events[i].title) shows \(counts[i]) of its \(events[i].photos.count) photos")
            }
            func worth(_ i: Int) -> Double { events[i].photos.map(\.score).max() ?? 0 }
            while total() > budget, let lowest = kept.min(by: { worth($0) < worth($1) }) {
                kept.removeAll { $0 == lowest }
                notes.append("within \(maxPages) pages: the event of \(events[lowest].title) is left out (its best photo scores lowest)")
            }
        }
        // The best `counts[i]` of each event, in the order taken, spread evenly over its pages.
        var pages: [Page] = []
        for i in kept {
            let ranked = events[i].photos.indices.sorted { events[i].photos[$0].score > events[i].photos[$1].score }
            let chosen = Set(ranked.prefix(counts[i]))
            // An odd count gives up its lowest-scored photo (a page shows an
            // even number), said unless it joined from another event (its
            // own note says so) or --pages shortened the event (said above).
            if counts[i] == events[i].photos.count - 1, let last = ranked.last,
               !joins.contains(where: { $0.photo == events[i].photos[last].photo }) {
                notes.append("the event of \(events[i].title): \(events[i].photos[last].photo.fileName) is left out "
                             + "to keep its page's count even (its lowest-scored photo)")
            }
            let photos = events[i].photos.indices.filter { chosen.contains($0) }.map { events[i].photos[$0].photo }
            for share in evenShares(photos.count) {
                pages.append(Page(title: events[i].title, photos: Array(photos[share])))
            }
        }
        let shown = Set(pages.flatMap(\.photos))
        for join in joins {
            notes[join.note] = "the event of \(join.from) has one photo worth showing: \(join.photo.fileName) "
                + (shown.contains(join.photo) ? "joins the page of \(join.to)" : "is left out (\(join.to)'s page shows better ones)")
        }
        return BookPlan(hero: hero, pages: pages, notes: notes)
    }

    /// `n` (even) photos over the fewest pages of at most six, each an even
    /// count, as even as can be: 8 is 4 + 4, 10 is 6 + 4. Ranges of indices.
    static func evenShares(_ n: Int) -> [Range<Int>] {
        guard n >= fewestPerPage else { return [] }
        let pairs = n / 2, pages = (n + mostPerPage - 1) / mostPerPage
        var ranges: [Range<Int>] = []
        var start = 0
        for k in 0..<pages {
            let size = 2 * (pairs / pages + (k < pairs % pages ? 1 : 0))
            ranges.append(start..<(start + size))
            start += size
        }
        return ranges
    }
}
