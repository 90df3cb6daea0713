/// Where a collage's photos, title and captions go, before anything is
/// drawn: the one planner. It asks the photos' shapes of a `PhotoInspecting`
/// (the layouts but the grid need them) and the height of laid-out text of a
/// `TextMeasuring` (the title's band and each caption's), and gives the
/// geometry to `CollageLayout`; the engine then only draws what it planned.
public struct CollagePlanner: Sendable {
    let inspector: any PhotoInspecting
    let text: any TextMeasuring

    public init(inspector: any PhotoInspecting, text: any TextMeasuring) {
        self.inspector = inspector
        self.text = text
    }

    /// Where each photo goes (`CollageLayout`), reading the photos' shapes
    /// from their headers when the layout needs them (the grid does not).
    public func plan(_ photos: [Photo], options: CollageRenderOptions) throws -> LayoutPlan {
        var request = LayoutRequest(options)
        if let title = options.title { request.title = try measure(title, options, width: options.size.width) }
        let shapes = request.needsPhotoShapes
            ? try photos.map { PhotoShape(try inspector.inspect($0)) }
            : photos.map { _ in PhotoShape(width: 1, height: 1) }
        let plan = try CollageLayout.plan(shapes, request)
        // A width left to the photos: the band kept room for two lines; if
        // the title fits on one at the width the photos gave, plan again with
        // a band of one line (the photos then get more height, and so more
        // width), and keep that plan if the title still fits it as measured.
        // (The width is not known before the photos are laid out, so this
        // case alone is laid out twice.)
        guard options.size.width == nil, let title = options.title, let reserved = request.title,
              let fitted = try measure(title, options, width: plan.canvas.width),
              fitted.textHeight < reserved.textHeight else { return plan }
        request.title = fitted
        let tighter = try CollageLayout.plan(shapes, request)
        guard try measure(title, options, width: tighter.canvas.width) == fitted else { return plan }
        return tighter
    }

    /// The title laid out by the text engine for the canvas of `options`:
    /// how tall its lines are at the width they will be drawn at (wrapped to
    /// two lines at most). Without a width (`--layout columns`, `--size
    /// xHEIGHT`, before the photos give it), room for two lines is kept.
    /// Nil when there is no font to draw it with: then the photos fill the
    /// whole canvas. A band that passes `TitleRequest.bandLimit` (a title
    /// on two lines, or a font whose lines are taller than estimated) is
    /// laid out in the largest smaller font whose band fits, unless `--font`
    /// gave the size.
    func measure(_ title: CollageTitle, _ options: CollageRenderOptions, width canvasWidth: Int?) throws -> TitleRequest? {
        let pixels = TitleRequest.fontPixels(for: options.size, font: options.font)
        let limit = TitleRequest.bandLimit(for: options.size)
        guard let measured = try measure(title, options, width: canvasWidth, pixels: pixels) else { return nil }
        guard options.font?.pixels == nil, measured.bandHeight > limit, pixels > TitleRequest.minimumPixels else {
            return measured
        }
        // The band grows with the font (taller lines, more of them): the
        // largest whole size that fits, halving the sizes between the
        // smallest and this one (six layouts for 43 px, each under 0.1 ms).
        var (fits, passes) = (TitleRequest.minimumPixels, pixels)
        var fitting: TitleRequest?
        while passes - fits > 1 {
            let middle = ((fits + passes) / 2).rounded(.down)
            guard let laidOut = try measure(title, options, width: canvasWidth, pixels: middle) else { return nil }
            if laidOut.bandHeight <= limit { (fits, fitting) = (middle, laidOut) } else { passes = middle }
        }
        if let fitting { return fitting }
        return try measure(title, options, width: canvasWidth, pixels: fits)
    }

    /// The title laid out in a font of `pixels`.
    private func measure(_ title: CollageTitle, _ options: CollageRenderOptions, width canvasWidth: Int?,
                         pixels: Double) throws -> TitleRequest? {
        var lines = TitleRequest.maximumLines, reserve = 1
        var width: Int?
        if let canvasWidth {
            let band = TitleBand(text: title.text, rect: CellRect(x: 0, y: 0, width: max(1, canvasWidth - 2 * options.margin), height: 1),
                                 fontPixels: pixels)
            width = band.textBox.width
        } else {
            (lines, reserve) = (1, TitleRequest.maximumLines)
        }
        guard let height = try text.lineHeight(of: title.text, font: options.font?.description ?? CollageFont.titleDefault,
                                               pixels: pixels, width: width, lines: lines) else { return nil }
        // A font's lines are 1-1.5 em; a broken font cannot make the band take the canvas.
        let lineHeight = min(height, Int((pixels * 3).rounded()) * lines)
        return TitleRequest(text: title.text, fontPixels: pixels, textHeight: lineHeight * reserve)
    }

    /// Where `text` goes as a caption of `cell`: a band across its bottom
    /// (`CaptionBand`) as tall as the line the text engine lays out, clear
    /// of `heads` (what the draw found in the cell); nil when no font can
    /// draw it (nothing is drawn then).
    func placeCaption(_ caption: String, in cell: CellRect, fontPixels: Double, options: CollageRenderOptions,
                      clearOf heads: [CellRect] = []) throws(ImageEngineError) -> DrawnCaption? {
        let width = CaptionBand.textBox(in: cell, fontPixels: fontPixels).width
        guard let height = try text.lineHeight(of: caption, font: options.font?.description ?? CollageFont.captionDefault,
                                               pixels: fontPixels, width: width, lines: 1) else { return nil }
        // A broken font's line cannot make the band take the cell.
        let lineHeight = min(height, Int((fontPixels * 3).rounded()))
        return DrawnCaption(text: caption, band: CaptionBand.rect(in: cell, lineHeight: lineHeight, fontPixels: fontPixels,
                                                                  clearOf: heads),
                            fontPixels: fontPixels)
    }
}

extension ImageEngine {
    /// The planner over this engine's probe and text measures: what its
    /// `render` plans with.
    public var planner: CollagePlanner { CollagePlanner(inspector: self, text: self) }

    /// `planner.plan`: the previews' plan (`PreviewDrawing`).
    public func plan(_ photos: [Photo], options: CollageRenderOptions) throws -> LayoutPlan {
        try planner.plan(photos, options: options)
    }
}
