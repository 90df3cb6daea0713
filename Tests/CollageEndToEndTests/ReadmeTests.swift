import Foundation
import Testing

/// The README's option tables against `--help` (issue #32): the README had
/// drifted from the program (it said captions were "coming" long after they
/// were drawn).
@Suite struct ReadmeTests {
    /// An option's row: its long names, and its default as written (the
    /// cell's first code span when the cell starts with one; nil for "none",
    /// "off" and the like).
    /// Made on each use, not kept in a static: a Regex held by a static was
    /// reported by LeakSanitizer (its storage is not found from the static).
    static var optionName: Regex<AnyRegexOutput> { try! Regex("--[a-z0-9][a-z0-9-]*") }
    static var trailingDefault: Regex<(Substring, Substring)> { try! Regex<(Substring, Substring)>("\\(default: ([^)]*)\\)\\.?$") }

    struct Row: Equatable {
        let names: Set<String>
        let defaultValue: String?
        /// The default cell as written.
        let defaultCell: String
    }

    /// Every `| option | default | meaning |` table of the README, by the
    /// command of the `### \`collage NAME` section it is in.
    func readmeTables() throws -> [String: [Row]] {
        let readme = try String(contentsOf: CLI.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var tables: [String: [Row]] = [:]
        var command: String?
        var inTable = false
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("### `collage ") {
                command = line.dropFirst("### `collage ".count).split(whereSeparator: { $0 == " " || $0 == "`" }).first.map(String.init)
            }
            if line == "| option | default | meaning |" { inTable = true; continue }
            guard inTable else { continue }
            guard line.hasPrefix("|") else { inTable = false; continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count > 3, !cells[1].hasPrefix("---"), let command else { continue }
            let names = Set(cells[1].matches(of: Self.optionName).map { String(cells[1][$0.range]) })
            let defaultValue = cells[2].hasPrefix("`") ? cells[2].dropFirst().prefix { $0 != "`" } : nil
            tables[command, default: []].append(Row(names: names, defaultValue: defaultValue.map(String.init), defaultCell: cells[2]))
        }
        return tables
    }

    /// `collage COMMAND --help`'s options: each entry's long names, its text
    /// joined into one line, and ArgumentParser's "(default: X)" at its end.
    func helpEntries(_ cli: CLI, _ command: String) throws -> [(names: Set<String>, text: String, defaultValue: String?)] {
        let help = try cli.run(command, "--help").stdout
        var entries: [[Substring]] = []
        for line in help.split(separator: "\n") {
            if line.hasPrefix("  -") { entries.append([line]) } else if !entries.isEmpty, line.hasPrefix("   ") { entries[entries.count - 1].append(line) }
        }
        return entries.map { lines in
            // "-o, --output <path>", before the gap that starts the text.
            let definition = lines[0].dropFirst(2).split(separator: "  ").first ?? ""
            let names = Set(definition.matches(of: Self.optionName).map { String(definition[$0.range]) })
            let text = lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            let defaultValue = text.firstMatch(of: Self.trailingDefault).map { String($0.1) }
            return (names, text, defaultValue)
        }
    }

    @Test func theOptionTablesAndHelpAgree() throws {
        let cli = try CLI()
        let tables = try readmeTables()
        #expect(tables.keys.contains("save"), "the save table is found")
        for (command, rows) in tables {
            let entries = try helpEntries(cli, command).filter { $0.names.isDisjoint(with: ["--help", "--version"]) }
            let helpNames = entries.reduce(into: Set<String>()) { $0.formUnion($1.names) }
            let readmeNames = rows.reduce(into: Set<String>()) { $0.formUnion($1.names) }
            #expect(readmeNames == helpNames,
                    "\(command): only in the README \(readmeNames.subtracting(helpNames).sorted()), only in --help \(helpNames.subtracting(readmeNames).sorted())")
            for row in rows {
                guard let entry = entries.first(where: { !$0.names.isDisjoint(with: row.names) }) else { continue }
                if let shown = entry.defaultValue {
                    // A value as a code span; a default in words, the start of --help's words.
                    #expect(row.defaultValue == shown || (row.defaultValue == nil && shown.hasPrefix(row.defaultCell)), "\(command) \(row.names.sorted()): the README says \(row.defaultValue ?? "none"), --help \(shown)")
                } else if let written = row.defaultValue {
                    // A default --help words in its text ("Default: \"Sans Bold\" for the title").
                    #expect(entry.text.contains(written), "\(command) \(row.names.sorted()): the README's default \(written) is not in --help: \(entry.text)")
                }
            }
        }
    }
}
