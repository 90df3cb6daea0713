import Foundation

/// What the choice made of one photo: its group and event, its score, and
/// whether it was chosen or why not.
public struct PhotoVerdict: Equatable, Sendable {
    public let group: Int
    public let event: Int
    /// How good a pick it is among the best of each scene (higher is
    /// better); nil for a photo that is not the best of its scene.
    public var score: Double?
    public var chosen: Bool
    /// One line for a person; nil when chosen.
    public var whyNot: String?
    /// Why a photo worth showing is chosen only when too few others are
    /// left (too small for its cell, cut short or corrupt); nil for most.
    public var demotion: String? = nil
    /// How much its cell would enlarge it (`SuggestionChoice.enlargement`).
    public var enlarged: Double? = nil
}

/// The choice of `collage suggest` (issue #33), as rules on measures alone
/// (no file, no pixel), in the order they apply:
///
/// 1. of each scene (`DuplicateGroups`), only its best shot: well exposed,
///    whole (not cut short or corrupt), large enough for its cell, then the
///    sharpest (sharpness is compared only within the scene, where it tells
///    blur from detail), and of shots about as sharp the larger;
/// 2. a best shot is worth showing unless it is nearly all clipped black or
///    white, or has no detail at all;
/// 3. each is scored: exposure (how little is clipped), people (faces,
///    where they were looked for), and how much of it a cell of the
///    canvas's shape keeps;
/// 4. `count` of them (or fewer, the collage's total still even, when fewer
///    are worth showing) are chosen greedily, each the best score plus its
///    distance in time from those chosen already, so the choice spreads over
///    the photos' time rather than six shots of one minute; a photo too
///    small for its cell (`tooSmall`) or cut short or corrupt is chosen only
///    when no other is left.
public struct SuggestionChoice: Sendable {
    /// The counts a collage of suggestions can have.
    public static let counts = [2, 4, 6]
    public static let defaultCount = 6

    public var count: Int
    /// The canvas's width / height (`--size`).
    public var canvasShape: Double
    /// The canvas's pixels (`--size`), for how much a cell would enlarge a
    /// photo; nil: not counted.
    public var canvasArea: Double?
    /// How many photos the collage holds already: the choice makes its
    /// total even.
    public var alreadyIn: Int

    public init(count: Int = SuggestionChoice.defaultCount, canvasShape: Double = 1920.0 / 1080.0,
                canvasArea: Double? = 1920.0 * 1080.0, alreadyIn: Int = 0) {
        self.count = count
        self.canvasShape = canvasShape
        self.canvasArea = canvasArea
        self.alreadyIn = alreadyIn
    }

    /// A photo its cell would enlarge more than this is too small for it:
    /// past 2x a photo looks soft (what `save` warns of).
    public static let largestEnlargement = 2.0

    /// How much its cell would enlarge the photo: a cell of the photo's own
    /// shape (the layouts give a photo a cell near its shape) and of an
    /// even share of the canvas among the collage's photos. nil when the
    /// canvas is not known in pixels.
    public func enlargement(_ m: PhotoMeasures) -> Double? {
        guard let canvasArea, m.width > 0, m.height > 0 else { return nil }
        let cells = Double(max(2, count + alreadyIn))
        return (canvasArea / cells / (Double(m.width) * Double(m.height))).squareRoot()
    }

    public func isTooSmall(_ m: PhotoMeasures) -> Bool { (enlargement(m) ?? 0) > Self.largestEnlargement }

    /// Why a photo is chosen only when no other is left, nil when it is not.
    public func demotion(_ m: PhotoMeasures) -> String? {
        if m.corruptData > 0 { return "cut short or corrupt (its decode read past broken data)" }
        if isTooSmall(m), let times = enlargement(m) {
            return "too small for its cell: \(m.width)x\(m.height) would be enlarged \(Self.oneDecimal(times))x"
        }
        return nil
    }

    /// `String(format: "%.1f", x)` for a positive finite x, without its
    /// cost (a library's 100,000 photos too small for their cells each
    /// paid it twice: a quarter of a warm run): the tenths rounded as
    /// printf rounds them, except near a half, where printf itself decides
    /// (only it rounds the exact binary value).
    static func oneDecimal(_ x: Double) -> String {
        let tenths = x * 10
        guard x.isFinite, x >= 0, tenths < 1e15, abs(tenths - tenths.rounded(.down) - 0.5) > 1e-6 else {
            return String(format: "%.1f", x)
        }
        let rounded = Int(tenths.rounded())
        return "\(rounded / 10).\(rounded % 10)"
    }

    /// Badly exposed: this much clipped, or a mean this far to either end.
    static let badClipping = 0.3
    static let darkMean = 0.15, brightMean = 0.9
    /// Not worth showing at all.
    static let uselessClipping = 0.9
    static let leastDetail = 1.0
    /// A shot this much less sharp than its scene's sharpest is blurred.
    static let blurredRatio = 0.6
    static let faceBonus = 0.5
    static let fitWeight = 0.2
    static let spreadWeight = 1.0

    public static func isBadlyExposed(_ m: PhotoMeasures) -> Bool {
        m.clippedShare > badClipping || m.meanLevel < darkMean || m.meanLevel > brightMean
    }

    /// Why a scene's best shot is not worth showing, nil when it is.
    public static func uselessness(_ m: PhotoMeasures) -> String? {
        if m.clippedShare > uselessClipping { return "nearly all clipped black or white" }
        if m.sharpness < leastDetail { return "no detail (a blank or flat picture)" }
        return nil
    }

    /// The photos' groups and events and each scene's best shot: every
    /// verdict but the choice. `photos` in the order taken, the undated
    /// last: they are an event of their own, after the dated ones.
    public func judge(_ photos: [MeasuredPhoto]) -> [PhotoVerdict] {
        let groups = DuplicateGroups.groups(of: photos.map {
            DuplicateGroups.Fingerprint(hash: $0.measures.hash, gradientHash: $0.measures.gradientHash, instant: $0.measures.taken?.instant)
        })
        let dated = photos.compactMap(\.measures.taken?.instant)
        var events = PhotoEvents.events(of: dated)
        let undatedEvent = (events.last ?? -1) + 1
        events += Array(repeating: undatedEvent, count: photos.count - dated.count)
        var verdicts = photos.indices.map {
            PhotoVerdict(group: groups[$0], event: events[$0], score: nil, chosen: false, whyNot: nil,
                         enlarged: enlargement(photos[$0].measures))
        }
        // Each scene's best shot and its sharpest, in one pass over the
        // photos (a library's 100,000 scenes made 100,000 arrays of members):
        // the first of equals, as `max` keeps it.
        let scenes = (groups.max() ?? -1) + 1
        var bestOf = [Int](repeating: -1, count: scenes), sharpestOf = [Double](repeating: -.infinity, count: scenes)
        for i in photos.indices {
            let g = groups[i]
            if bestOf[g] < 0 || betterShot(photos[i].measures, than: photos[bestOf[g]].measures) { bestOf[g] = i }
            sharpestOf[g] = max(sharpestOf[g], photos[i].measures.sharpness)
        }
        var names: [Int: String] = [:]
        for i in photos.indices where bestOf[groups[i]] != i {
            let best = bestOf[groups[i]], sharpest = sharpestOf[groups[i]]
            let top = photos[best].measures
            let m = photos[i].measures
            // By the path's text: `fileName` makes a URL, which stats the file.
            let name = names[best] ?? {
                let path = photos[best].photo.path
                let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
                names[best] = name
                return name
            }()
            // Exposure first: a dark copy has little contrast, so its
            // detail measures low too.
            if Self.isBadlyExposed(m) && !Self.isBadlyExposed(top) {
                verdicts[i].whyNot = "badly exposed: \(name) of the same scene is better exposed"
            } else if m.corruptData > 0 && top.corruptData == 0 {
                verdicts[i].whyNot = "cut short or corrupt: \(name) of the same scene is whole"
            } else if isTooSmall(m) && !isTooSmall(top) {
                verdicts[i].whyNot = "too small for its cell: \(name) of the same scene is larger"
            } else if m.sharpness < Self.blurredRatio * sharpest {
                verdicts[i].whyNot = "blurred: \(name) of the same scene is sharper"
            } else if m.width * m.height < top.width * top.height {
                verdicts[i].whyNot = "near-duplicate of \(name), a larger shot of the same scene"
            } else {
                verdicts[i].whyNot = "near-duplicate of \(name), a better shot of the same scene"
            }
        }
        // Photos of one size share one demotion's words: a library's
        // 100,000 photos of a few sizes made 100,000 strings alike.
        var demotions: [Int: String?] = [:]
        for best in bestOf where best >= 0 {
            let top = photos[best].measures
            if let useless = Self.uselessness(top) {
                verdicts[best].whyNot = "not worth showing: \(useless)"
            } else {
                verdicts[best].score = score(top)
                let sides = 0..<(1 << 31)
                if top.corruptData > 0 || !sides.contains(top.width) || !sides.contains(top.height) {
                    verdicts[best].demotion = demotion(top)
                } else {
                    let size = top.width << 32 | top.height
                    if let words = demotions[size] {
                        verdicts[best].demotion = words
                    } else {
                        let words = demotion(top)
                        demotions[size] = words
                        verdicts[best].demotion = words
                    }
                }
            }
        }
        return verdicts
    }

    /// Of one scene: well exposed first, then whole, then large enough for
    /// its cell, then sharper, except that of two about as sharp (neither
    /// blurred beside the other) the larger wins; then the first taken.
    func betterShot(_ a: PhotoMeasures, than b: PhotoMeasures) -> Bool {
        let (badA, badB) = (Self.isBadlyExposed(a), Self.isBadlyExposed(b))
        if badA != badB { return !badA }
        if (a.corruptData > 0) != (b.corruptData > 0) { return a.corruptData == 0 }
        let (smallA, smallB) = (isTooSmall(a), isTooSmall(b))
        if smallA != smallB { return !smallA }
        let (pixelsA, pixelsB) = (a.width * a.height, b.width * b.height)
        let alike = min(a.sharpness, b.sharpness) >= Self.blurredRatio * max(a.sharpness, b.sharpness)
        if alike && pixelsA != pixelsB { return pixelsA > pixelsB }
        if a.sharpness != b.sharpness { return a.sharpness > b.sharpness }
        return (a.taken?.instant ?? .infinity) < (b.taken?.instant ?? .infinity)
    }

    /// The choice that fills a collage holding `alreadyIn` photos up to
    /// `CollageRules.maximumPhotos`; nil when it is full.
    public static func filling(alreadyIn: Int, canvasShape: Double = 1920.0 / 1080.0,
                               canvasArea: Double? = 1920.0 * 1080.0) -> SuggestionChoice? {
        let free = CollageRules.maximumPhotos - alreadyIn
        guard free > 0 else { return nil }
        return SuggestionChoice(count: free, canvasShape: canvasShape, canvasArea: canvasArea, alreadyIn: alreadyIn)
    }

    /// Photos in the collage already are not chosen again, nor their
    /// near-duplicates: their scene is in it.
    public func setAside(_ verdicts: inout [PhotoVerdict], photos: [MeasuredPhoto], alreadyIn: Set<Photo>) {
        guard !alreadyIn.isEmpty else { return }
        var takenGroups: [Int: String] = [:]
        for i in photos.indices where alreadyIn.contains(photos[i].photo) {
            takenGroups[verdicts[i].group] = photos[i].photo.fileName
        }
        for i in photos.indices {
            guard let name = takenGroups[verdicts[i].group] else { continue }
            verdicts[i].score = nil
            verdicts[i].whyNot = alreadyIn.contains(photos[i].photo)
                ? "already in the collage" : "near-duplicate of \(name), already in the collage"
        }
    }

    /// A scene's best shot's score: exposure, people, fit.
    public func score(_ m: PhotoMeasures) -> Double {
        let exposure = 1 - min(1, m.clippedShare * 2) - (Self.isBadlyExposed(m) ? 0.5 : 0)
        let people = (m.faces ?? 0) > 0 ? Self.faceBonus : 0
        return exposure + people + Self.fitWeight * kept(m)
    }

    /// The share of the photo a cell of the canvas's shape keeps when it
    /// covers it.
    func kept(_ m: PhotoMeasures) -> Double {
        guard m.width > 0, m.height > 0, canvasShape > 0 else { return 0 }
        let shape = Double(m.width) / Double(m.height)
        return min(shape / canvasShape, canvasShape / shape)
    }

    /// How many to choose of `available` worth showing: `count`, or fewer
    /// so that the collage's total (with the `alreadyIn`) is the largest
    /// even one there can be (0 when that is under two).
    public func chosenCount(available: Int) -> Int {
        var wanted = min(count, available)
        if (wanted + alreadyIn) % 2 != 0 { wanted -= 1 }
        return wanted > 0 && wanted + alreadyIn >= 2 ? wanted : 0
    }

    /// The scored photos still in the running for faces (the dear measure):
    /// the best of each of `4 x count` stretches of time, so a choice spread
    /// over the time has people to choose from everywhere. Indices into
    /// `verdicts`, among `among` (all when nil).
    public func running(_ verdicts: [PhotoVerdict], among: [Int]? = nil) -> [Int] {
        let scored = (among ?? Array(verdicts.indices)).filter { verdicts[$0].score != nil }
        let stretches = max(1, 4 * count)
        guard scored.count > stretches else { return scored }
        return (0..<stretches).compactMap { k in
            let part = scored[(k * scored.count / stretches)..<((k + 1) * scored.count / stretches)]
            return part.max { Self.rank(verdicts[$0]) < Self.rank(verdicts[$1]) }
        }
    }

    /// The choice for one collage of the photos at `among` (an event's, or
    /// all of them): as many cells as it will hold (`chosenCount` of the
    /// scored there, with those already in), and each scored photo's
    /// enlargement and demotion its cell's. An event of three photos makes
    /// a collage of two, whose cells are three times the size of six's.
    /// `verdicts` are this choice's `judge`'s, whose cells are `count`'s.
    public func forCollage(_ verdicts: inout [PhotoVerdict], photos: [MeasuredPhoto], among: [Int]) -> SuggestionChoice {
        let scored = among.filter { verdicts[$0].score != nil }
        let holding = chosenCount(available: scored.count)
        guard holding > 0 else { return self }
        var collage = self
        collage.count = holding
        // A collage of `count` cells: `judge` gave each these already.
        guard holding != count else { return collage }
        for i in scored {
            verdicts[i].enlarged = collage.enlargement(photos[i].measures)
            verdicts[i].demotion = collage.demotion(photos[i].measures)
        }
        return collage
    }

    /// A photo is chosen only when no other is left: below every other.
    static let demotionPenalty = 100.0

    /// A scored verdict's worth against others: its score, below every
    /// other when it is demoted.
    static func rank(_ verdict: PhotoVerdict) -> Double {
        verdict.score! - (verdict.demotion == nil ? 0 : demotionPenalty)
    }

    /// Chooses among the running (indices in the order taken, among
    /// `among`) as `choose` would with every running photo's faces known,
    /// asking `lookForFaces` (indices, at most `batch` at a time; it fills
    /// in their faces in `photos`) only of photos that could still be
    /// chosen: one whose best score, with a face, could not beat a photo
    /// already known is never searched. The choice is the same; where
    /// people are found there are far fewer searches (a face found settles
    /// a pick), where none are, each photo near the best is still searched.
    /// Sets aside the rest of `among`. Returns the chosen indices in the
    /// order taken.
    @discardableResult
    public func settle(_ verdicts: inout [PhotoVerdict], photos: inout [MeasuredPhoto], running: [Int],
                       among: [Int]? = nil, batch: Int = 1,
                       lookForFaces: (_ indices: [Int], _ photos: inout [MeasuredPhoto]) -> Void) -> [Int] {
        let scope = among ?? Array(verdicts.indices)
        // A demotion decided only where a photo without one was there to take instead.
        let anyUndemoted = scope.contains { verdicts[$0].score != nil && verdicts[$0].demotion == nil }
        for i in scope where verdicts[i].score != nil && !running.contains(i) {
            verdicts[i].whyNot = (anyUndemoted ? verdicts[i].demotion : nil) ?? "not chosen: a better photo was taken near it"
        }
        let scored = running.filter { verdicts[$0].score != nil }
        // Of the running only: a map of all the verdicts for each event made
        // a library's 1,000 events copy its 100,000 verdicts each.
        let demoted = Dictionary(uniqueKeysWithValues: scored.map { ($0, verdicts[$0].demotion != nil ? Self.demotionPenalty : 0) })
        let picked = pick(scored, bounds: { i in
            let m = photos[i].measures
            guard m.faces == nil else { return (score(m) - demoted[i]!, true) }
            var withFace = m
            withFace.faces = 1
            return (score(withFace) - demoted[i]!, false)
        }, lookForFaces: { asked in
            lookForFaces(asked, &photos)
            // One the search said nothing of counts as without faces.
            for i in asked where photos[i].measures.faces == nil { photos[i].measures.faces = 0 }
        }, batch: batch)
        for i in scored { verdicts[i].score = score(photos[i].measures) }
        return mark(&verdicts, scored: scored, picked: picked)
    }

    /// Chooses among the scored photos at `among` (indices into `verdicts`,
    /// in the order taken; all when nil), marking them chosen and giving the
    /// others their reason. Returns the chosen indices in the order taken.
    @discardableResult
    public func choose(_ verdicts: inout [PhotoVerdict], among: [Int]? = nil) -> [Int] {
        let scored = (among ?? Array(verdicts.indices)).filter { verdicts[$0].score != nil }
        let known = verdicts
        let picked = pick(scored, bounds: { (Self.rank(known[$0]), true) }, lookForFaces: { _ in }, batch: 1)
        return mark(&verdicts, scored: scored, picked: picked)
    }

    /// The greedy choice of `chosenCount` of `scored` (indices in the order
    /// taken): each the best score plus its distance (in places among
    /// `scored`) from those chosen already, the earliest of equals. `bounds`
    /// gives a photo's score, or while its faces are unknown the most it can
    /// be (with a face); a pick is made only when no photo's most could
    /// still beat the best known, and until then `lookForFaces` is asked of
    /// the likeliest to (at most `batch` at a time). Returns the chosen
    /// indices in the order taken.
    private func pick(_ scored: [Int], bounds: (Int) -> (score: Double, known: Bool),
                      lookForFaces: ([Int]) -> Void, batch: Int) -> [Int] {
        let wanted = chosenCount(available: scored.count)
        var chosen: [Int] = []   // positions in `scored`
        while chosen.count < wanted {
            var best: (position: Int, value: Double)?
            var open: [(position: Int, most: Double)] = []
            for position in scored.indices where !chosen.contains(position) {
                // (Not an array of the distances: one for each photo, each
                // pick, of each of a library's 1,000 events.)
                let spread = chosen.isEmpty || scored.count < 2 ? 0
                    : Double(chosen.lazy.map { abs($0 - position) }.min()!) / Double(scored.count - 1)
                let (score, known) = bounds(scored[position])
                let value = score + Self.spreadWeight * spread
                if !known {
                    open.append((position, value))
                } else if best == nil || value > best!.value {
                    best = (position, value)
                }
            }
            // Those that could beat it (or equal it, earlier).
            let threats = open.filter { best == nil || $0.most > best!.value || ($0.most == best!.value && $0.position < best!.position) }
            if threats.isEmpty {
                chosen.append(best!.position)
            } else {
                let likeliest = threats.sorted { $0.most != $1.most ? $0.most > $1.most : $0.position < $1.position }
                lookForFaces(likeliest.prefix(max(1, batch)).map { scored[$0.position] })
            }
        }
        return chosen.map { scored[$0] }.sorted()
    }

    /// Marks the picked chosen, and gives the rest of `scored` their reason.
    private func mark(_ verdicts: inout [PhotoVerdict], scored: [Int], picked: [Int]) -> [Int] {
        // A demotion decided only where a photo without one was chosen.
        let undemotedPicked = picked.contains { verdicts[$0].demotion == nil }
        for i in scored {
            if picked.contains(i) {
                verdicts[i].chosen = true
                verdicts[i].whyNot = nil
            } else if picked.isEmpty {
                verdicts[i].whyNot = "too few photos worth showing for a collage"
            } else if undemotedPicked, let demotion = verdicts[i].demotion {
                verdicts[i].whyNot = demotion
            } else {
                verdicts[i].whyNot = "not chosen: better photos, or photos of other times, were"
            }
        }
        return picked
    }
}
