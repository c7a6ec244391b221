// `radarblock convert --filter-list FILE`: an Adblock Plus / uBO filter list -> a WebKit content rule list of its
// network filters, beside it a second list of its cosmetic filters (`OUT.cosmetic.json`, kept apart so that no
// network exception switches element hiding off) and `OUT.issues.txt`, one line per filter of either not
// converted (its line, its text, why).

import AdblockSyntax
import ContentRules
import FileIO
import FilterLists
import Provenance
import RuleBuilder

enum FilterListConvert {
    static let option = OptionSpec(
        "--filter-list", value: "FILE",
        help: """
            convert an Adblock Plus / uBlock Origin filter list (EasyPrivacy, EasyList) instead of a
            TDS: its network filters become block rules, its @@ exceptions ignore-previous-rules rules
            after them, its $important filters blocks after those. Its cosmetic filters (##, #@#,
            $elemhide/$generichide exceptions) become css-display-none rules in a second list, written
            with -o OUT.json to OUT.cosmetic.json (provenance: PROV.cosmetic.json), so that no network
            exception switches them off; without -o it is not written. A filter WebKit cannot decide
            exactly as Adblock Plus does is left out and reported (docs/filter-lists.md): with -o OUT
            in OUT.issues.txt ("LIST: line N: FILTER: [kind] reason", one a line), else on stderr.
            Takes --target, --provenance (source "filter-list": list, lines, filter) and -o only
            """)

    /// The options of `convert` that do not go with --filter-list.
    static let conflicting = [
        ConvertCommand.Option.tds, ConvertCommand.Option.config, ConvertCommand.Option.unprotected,
        ConvertCommand.Option.mode, ConvertCommand.Option.cpm, ConvertCommand.Option.strict,
        ConvertCommand.Option.noOptimize, ConvertCommand.Option.perTrackerExemptions,
    ]

    static func run(_ path: String, _ args: ParsedArguments, target: EngineProfile) throws -> Int32 {
        if let other = conflicting.first(where: args.given) {
            throw UsageError("--filter-list converts a filter list on its own: \(other.key) does not go with it")
        }
        let output = args.value(ConvertCommand.Option.output) ?? "-"
        let provenancePath = args.value(ConvertCommand.Option.provenance)
        let bytes: [UInt8]
        do { bytes = try FileIO.read(path) } catch { throw InputError("\(path): \(error)") }
        let name = String(path.split(separator: "/").last ?? Substring(path))
        let list: FilterList
        do { list = try FilterListParser.parse(bytes, name: name) } catch { throw InputError("\(error)") }
        let conversion = FilterListConverter.convert(list, target: target)
        let rules = try checked(conversion.rules, path: path, target: target)
        let cosmetic =
            conversion.cosmetic.rules.isEmpty ? [] : try checked(conversion.cosmetic.rules, path: path, target: target)
        let issues = (conversion.issues + conversion.cosmetic.issues).sorted { $0.line < $1.line }
        let issueLines =
            issues.map { "\(name): \($0)" }
            + (conversion.targetIssues + conversion.cosmetic.targetIssues).map { "\(name): \($0)" }
        if output == "-" {
            issueLines.forEach { Console.warning($0) }
        } else {
            try FileIO.write(Array(issueLines.map { $0 + "\n" }.joined().utf8), to: issuesPath(output))
        }
        let writesCosmetic = output != "-" && !conversion.cosmetic.rules.isEmpty
        if let provenancePath {
            try FileIO.write(RuleProvenance.listBytes(conversion.provenance), to: provenancePath)
            if writesCosmetic {
                try FileIO.write(
                    RuleProvenance.listBytes(conversion.cosmetic.provenance), to: cosmeticPath(provenancePath))
            }
        }
        if writesCosmetic { try FileIO.write(cosmetic, to: cosmeticPath(output)) }
        try FileIO.write(rules, to: output)
        Console.note(
            "convert --filter-list: \(name): \(list.lines) lines, \(list.network.count) network and"
                + " \(list.cosmetic.count) cosmetic filters -> \(conversion.rules.count) rules (\(conversion.blocks)"
                + " blocks, \(conversion.exceptions) exceptions, \(conversion.important) important),"
                + " \(conversion.disabledByBadfilter) disabled by $badfilter, \(issueLines.count) not converted"
                + (output == "-" ? "" : " -> \(output), \(issuesPath(output))"))
        Console.note(cosmeticNote(conversion.cosmetic, output: output, written: writesCosmetic))
        return ExitCode.success
    }

    static func issuesPath(_ output: String) -> String { output + ".issues.txt" }

    /// `OUT.json` -> `OUT.cosmetic.json`, any other name -> `NAME.cosmetic.json`.
    static func cosmeticPath(_ output: String) -> String {
        (output.hasSuffix(".json") ? String(output.dropLast(5)) : output) + ".cosmetic.json"
    }

    /// The list's bytes, checked against the target's limits.
    static func checked(_ rules: [ContentRule], path: String, target: EngineProfile) throws -> [UInt8] {
        let bytes = CanonicalRuleWriter.bytes(rules)
        do {
            try target.checkGenerated(bytes, ruleCount: rules.count)
        } catch {
            throw InputError("\(path): the conversion is not expressible for \(target.name): \(error)")
        }
        return bytes
    }

    static func cosmeticNote(_ cosmetic: CosmeticConversion, output: String, written: Bool) -> String {
        let what =
            "cosmetic list: \(cosmetic.rules.count) rules (\(cosmetic.selectors) selectors,"
            + " \(cosmetic.pageExceptions) page exceptions)"
        if written { return what + " -> \(cosmeticPath(output))" }
        return what + (cosmetic.rules.isEmpty ? "" : ", not written: it goes beside -o OUT")
    }
}
