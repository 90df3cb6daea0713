import ArgumentParser
import CollageKit

struct Clear: ServicedCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",  // not derived from the type name: that costs start-up time (docs/performance.md)
        abstract: "Remove every photo from the collage, and its title (refused when there is nothing to clear).")

    func run(with services: AppServices) throws {
        try report(try makeCollageViewModel(services).clear())
    }
}
