import ArgumentParser
import CollageKit
import Foundation

struct Status: ServicedCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Show the collage: how many photos, its own title, its photos and which actions are allowed.")

    @Flag(help: "Print one JSON object: title, collageTitle, count, photos, missing, pathBytes, focus, captions, canAdd, canClear, canSave.")
    var json = false

    func run(with services: AppServices) throws {
        let state = try makeCollageViewModel(services).currentState
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(StatusReport(state))
            print(String(decoding: data, as: UTF8.self))
            return
        }
        print(state.title)
        // The collage's own title, on a line of its own: the line above is the rules' count.
        if let title = state.collageTitle { print("title: \"\(Console.printable(title.text))\"") }
        for (index, photo) in state.photos.enumerated() {
            print("  \(index + 1). \(Console.printable(photo.path))" + (photo.focus.map { "  (focus \($0))" } ?? "")
                + (photo.caption.map { "  (caption \"\(Console.printable($0))\")" } ?? "")
                + (state.absences[photo].map { "  (\($0))" } ?? ""))
        }
        let room = CollageRules.maximumPhotos - state.count
        print("add:   " + (state.canAdd ? "yes (room for \(room) more)" : "no (the collage is full)"))
        print("clear: " + (state.canClear ? "yes" : "no (nothing to clear)"))
        print("save:  " + (state.saveRefusal.map { "no (\($0))" } ?? "yes"))
    }
}

/// The `--json` shape, with the keys the documentation promises.
private struct StatusReport: Encodable {
    /// The rules' title ("2 photos").
    let title: String
    /// The collage's own title (`collage title`); absent without one.
    let collageTitle: String?
    let count: Int
    let photos: [String]
    /// The photos that can no longer be read, as in `photos`.
    let missing: [String]
    /// For each photo, the base64 of its path's exact bytes when they are not
    /// UTF-8 (its entry in `photos` then shows U+FFFD in their place); null
    /// for every other. A JSON string holds only Unicode: this keeps such a
    /// name without loss.
    let pathBytes: [String?]
    /// For each photo, its focus as {"x": , "y": }, or null.
    let focus: [PhotoFocus?]
    /// For each photo, the caption the person gave it, or null.
    let captions: [String?]
    let canAdd: Bool
    let canClear: Bool
    let canSave: Bool

    init(_ state: CollageState) {
        title = state.title
        collageTitle = state.collageTitle?.text
        count = state.count
        photos = state.photos.map(\.path)
        missing = state.missing.map(\.path)
        pathBytes = state.photos.map { $0.pathIsExact ? nil : Data($0.fileSystemPath).base64EncodedString() }
        focus = state.photos.map(\.focus)
        captions = state.photos.map(\.caption)
        canAdd = state.canAdd
        canClear = state.canClear
        canSave = state.canSave
    }
}
