import ArgumentParser
import CollageKit

/// `--size`, a group of its own so that `suggest` has the one the root
/// command reads: ArgumentParser lets the root's options follow a command's
/// name, and gives them to the root, so `collage suggest --size A4` set the
/// root's `--size` and an option of suggest's own of that name was never
/// read (suggest chose for 1920x1080 whatever was asked). A command with an
/// option group of the root's type is given the root's value.
struct CanvasSizeOption: ParsableArguments {
    // Optional, with its default in the words, so that a command whose
    // default is another (`book`'s A4) can tell it was not given.
    @Option(name: .customLong("size"), help: ArgumentHelp(
        "Canvas size in pixels, or on paper (drawn at --dpi where the command takes it): \(PrintSize.papers.map(\.name).joined(separator: ", ")) (portrait; A4-landscape turns one), or WIDTHxHEIGHT in in, cm or mm (6x4in, 15x10cm, 210x297mm). With the rows layout, WIDTHx leaves the height to the photos; with columns, xHEIGHT the width. (default: \(SizeRequest.default))",
        valueName: "WxH"))
    var requested: SizeRequest?

    /// The size asked, else a screen's (the default every command but
    /// `book` draws; a book's pages are A4 unless asked: `Book.size`).
    var size: SizeRequest { requested ?? .default }
}

/// How the canvas is laid out and drawn: the options every command that
/// draws a collage shares (`save`, `batch`, `preview`, `pick` and `collage`).
struct LayoutOptionGroup: ParsableArguments {
    // The values of the options typed by models, and their defaults, are
    // listed by ArgumentParser from the models (ModelArguments.swift).
    @OptionGroup var canvas: CanvasSizeOption

    @Option(help: ArgumentHelp("The print resolution, in dots per inch (\(PrintResolution.allowed.lowerBound)-\(PrintResolution.allowed.upperBound)): a size on paper is drawn at it (default: \(PrintResolution.default.dotsPerInch)), and the file says it, so a print dialog or print shop prints the collage at its size (--size / DPI inches for pixels). Without it, a size in pixels says no size.", valueName: "dpi"))
    var dpi: PrintResolution?

    @Option(help: "How the canvas is divided.")
    var layout: LayoutMode = .default

    @Option(help: ArgumentHelp("Colour of empty cells, gaps, margins and transparency: #RRGGBB, #RGB or any CSS colour name, e.g. teal.",
                               valueName: "color"))
    var background: RGBColor = .white

    // Unconditional: "-1" is the value (refused below with the reason), not an option.
    // Optional, their default in the words, as --size: a book's are its own
    // unless given, and `book --margin 0` takes photos to the trim.
    @Option(name: .customLong("gap"), parsing: .unconditional,
            help: ArgumentHelp("Space between neighbouring cells, in pixels. (default: 0)", valueName: "px"))
    var requestedGap: Int?
    var gap: Int { requestedGap ?? 0 }

    @Option(name: .customLong("margin"), parsing: .unconditional,
            help: ArgumentHelp("Space around the edge of the canvas, in pixels. (default: 0)", valueName: "px"))
    var requestedMargin: Int?
    var margin: Int { requestedMargin ?? 0 }

    @OptionGroup var placement: PlacementOptionGroup

    @Option(help: ArgumentHelp(
        "A title in a band across the top of the canvas (inside --size; the photos fill the rest), centred, sized for the canvas's area (43 px on 1920x1080 and 1080x1920, 37 on 3000x500; smaller where its band would take over 8% of the longer side or a sixth of the height), black or white for contrast with --background, wrapped to two lines and then ellipsised. UTF-8, at most \(CollageTitle.maximumCharacters) characters; control characters are not drawn. Where the selection has a title of its own (`collage title`), this one is drawn instead.",
        valueName: "text"))
    var title: String?

    @Option(help: "A caption on a translucent band at the bottom of each photo that has none of its own (`collage caption`); at the top where the bottom would cover a face.")
    var caption: CaptionSource = .none

    @Option(help: ArgumentHelp(
        "The font of the title and captions, as a Pango font description: \"DejaVu Serif Bold 40\", \"Noto Sans 24px\" (family, style, size in points or px). A size sets the title's (captions take 70% of it); without one the title follows the canvas. Default: \"\(CollageFont.titleDefault)\" for the title, \"\(CollageFont.captionDefault)\" for captions. fc-list lists the installed families.",
        valueName: "description"))
    var font: String?

    @Option(name: [.customLong("text-colour"), .customLong("text-color")], help: ArgumentHelp(
        "Colour of the title and captions: #RRGGBB, #RGB or any CSS colour name (default: black or white, whichever contrasts more with --background, for the title; white for captions, on a dark band; a band is white under dark text).",
        valueName: "color"))
    var textColour: RGBColor?

    func validate() throws {
        // Bytes that are not UTF-8 (a terminal in another encoding) would be drawn as U+FFFD.
        for (option, value) in [("--title", title), ("--font", font)] {
            if let value, RawArguments.isLossy(value) {
                throw ValidationError("the \(option) is not valid UTF-8: set the terminal to UTF-8, or give it in UTF-8")
            }
        }
        if let title {
            do { _ = try CollageTitle(title, withoutIt: "leave out --title") } catch { throw ValidationError("--title: \(error)") }
        }
        if let font {
            do { _ = try ImageEngine.font(parsing: font) } catch { throw ValidationError("--font '\(font)': \(error)") }
        }
        // Gap and margin: `CollageRenderOptions.init` is their one validator;
        // a size on paper too large at --dpi: `resize(to:dpi:)`.
        let options: CollageRenderOptions
        do { options = try self.options() } catch { throw ValidationError(commandLineMessage(error)) }
        // A side left to the photos: the layout model says which layouts work one out.
        if let refusal = CollageRules.layoutRefusal(layout, size: options.size) { throw ValidationError(commandLineMessage(refusal)) }
    }

    func renderOptions(save: SaveOptions = .defaults) throws -> CollageRenderOptions {
        let title = try title.map { try CollageTitle($0, withoutIt: "leave out --title") }
        let font = try font.map { try ImageEngine.font(parsing: $0) }
        if title != nil || caption != .none {
            if !ImageEngine.fontsAvailable {
                Console.warning("no font is installed (fontconfig finds none), so no title or caption is drawn: install one, e.g. fonts-dejavu-core")
            } else {
                if let font, let substitute = ImageEngine.substitute(for: font) {
                    Console.warning("no installed font is called '\(substitute.asked)': \(substitute.used) is used instead (fc-list lists the installed families)")
                }
                if let title, case let missing = ImageEngine.missingGlyphs(in: title.text, font: font), missing > 0 {
                    Console.warning("no installed font has \(missing == 1 ? "1 character" : "\(missing) characters") of the title, drawn as boxes: fonts-noto-core covers most scripts, fonts-noto-cjk Chinese, Japanese and Korean, fonts-noto-color-emoji emoji")
                }
            }
        }
        return try options(save: save, title: title, font: font)
    }

    private func options(save: SaveOptions = .defaults, title: CollageTitle? = nil, font: CollageFont? = nil) throws -> CollageRenderOptions {
        var options = try CollageRenderOptions(layout: layout, background: background, gap: gap, margin: margin,
                                               save: save, crop: placement.crop, fit: placement.fit, title: title,
                                               caption: caption, font: font, textColour: textColour)
        try options.resize(to: canvas.size, dpi: dpi)
        return options
    }
}

/// The layout and drawing options with the save options (`SaveOptions`, one
/// flag each): what `save`, `batch`, `pick` and `collage` take.
struct RenderOptionGroup: ParsableArguments {
    @OptionGroup var layout: LayoutOptionGroup

    // Optional, so that a quality given for a PNG can be pointed out.
    @Option(help: ArgumentHelp("\(ImageFormat.qualityTitles) quality, 1-100 (default: \(SaveOptions.defaultQuality)).", valueName: "1-100"))
    var quality: Int?

    func validate() throws {
        do { _ = try saveOptions() } catch { throw ValidationError(commandLineMessage(error)) }
    }

    func renderOptions() throws -> CollageRenderOptions {
        try layout.renderOptions(save: saveOptions())
    }

    /// The save options the flags give, each the engine's default where not given.
    private func saveOptions() throws -> SaveOptions {
        try SaveOptions(quality: quality ?? SaveOptions.defaultQuality)
    }

    /// Says so when --quality was given for a format it does not apply to.
    func warnIfQualityIsIgnored(for format: ImageFormat) {
        if quality != nil && !format.hasQuality {
            Console.warning("--quality applies to \(ImageFormat.qualityTitles) only: \(ImageFormat.losslessTitles) is lossless, so it is ignored")
        }
    }
}
