// `radarblock convert --filter-list FILE...`: Adblock Plus / uBO filter lists, converted together as one (as
// `build --filter-list` converts them) -> a WebKit content rule list of their network filters, beside it a second
// list of their cosmetic filters (`OUT.cosmetic.json`, kept apart so that no network exception switches element
// hiding off) and `OUT.issues.txt`, one line per filter of either not converted (its list, its line, its text,
// why).

import AdblockSyntax
import ContentRules
import FileIO
import FilterLists
import Parallel
import Provenance
import RuleBuilder
import StrictJSON

enum FilterListConvert {
    static let option = OptionSpec(
        "--filter-list", value: "FILE", repeatable: true,
        help: """
            convert an Adblock Plus / uBlock Origin filter list (EasyPrivacy, EasyList) instead of a
            TDS: its network filters become block rules, its @@ exceptions ignore-previous-rules rules
            after them, its $important filters blocks after those. Its cosmetic filters (##, #@#,
            $elemhide/$generichide exceptions) become css-display-none rules in a second list, written
            with -o OUT.json to OUT.cosmetic.json (provenance: PROV.cosmetic.json), so that no network
            exception switches them off; without -o it is not written. Repeated, the lists are converted
            together as one, as build converts them (an exception of one list cancels the blocks of every
            list; the blocks of every list first, then the exceptions of every list, ...): one network list,
            one cosmetic list. A filter WebKit cannot decide exactly as Adblock Plus does is left out and
            reported (docs/filter-lists.md): with -o OUT in OUT.issues.txt ("LIST: line N: FILTER: [kind]
            reason", one a line, LIST the file name of the filter's list), else on stderr. Takes --target,
            --provenance (source "filter-list": list, lines, filter) and -o only
            """)

    /// The options of `convert` that do not go with --filter-list.
    static let conflicting = [
        ConvertCommand.Option.tds, ConvertCommand.Option.config, ConvertCommand.Option.unprotected,
        ConvertCommand.Option.mode, ConvertCommand.Option.cpm, ConvertCommand.Option.strict,
        ConvertCommand.Option.noOptimize, ConvertCommand.Option.perTrackerExemptions,
    ]

    static func run(_ paths: [String], _ args: ParsedArguments, target: EngineProfile) throws -> Int32 {
        if let other = conflicting.first(where: args.given) {
            throw UsageError("--filter-list converts filter lists on their own: \(other.key) does not go with it")
        }
        let output = args.value(ConvertCommand.Option.output) ?? "-"
        let provenancePath = args.value(ConvertCommand.Option.provenance)
        let lists = try parsed(paths)
        // What the issues and the note call the lists converted as one; a single list's file name.
        let name = lists.map(\.name).joined(separator: "+"), path = paths.joined(separator: "+")
        let (network, hiding) = FilterListConverter.convert(lists, target: target, network: { $0 }, cosmetic: { $0 })
        var conversion = network
        conversion.cosmetic = hiding
        let (rules, provenanceBytes, finishedHiding) = try checkedInShares(
            network, hiding, path: path, target: target, provenance: provenancePath != nil)
        let cosmetic = try finishedHiding.rules.get()
        let hidingProvenanceBytes = finishedHiding.provenance
        let issues = FilterListConverter.inListOrder(conversion.issues + conversion.cosmetic.issues, lists)
        let issueLines =
            issues.map { $0.named(or: name) }
            + (conversion.targetIssues + conversion.cosmetic.targetIssues).map { "\(name): \($0)" }
        if output == "-" {
            issueLines.forEach { Console.warning($0) }
        } else {
            try FileIO.write(Array(issueLines.map { $0 + "\n" }.joined().utf8), to: issuesPath(output))
        }
        let writesCosmetic = output != "-" && !conversion.cosmetic.rules.isEmpty
        if let provenancePath, let provenanceBytes, let hidingProvenanceBytes {
            try FileIO.write(provenanceBytes, to: provenancePath)
            if writesCosmetic { try FileIO.write(hidingProvenanceBytes, to: cosmeticPath(provenancePath)) }
        }
        if writesCosmetic { try FileIO.write(cosmetic, to: cosmeticPath(output)) }
        try FileIO.write(rules, to: output)
        Console.note(
            "convert --filter-list: \(name): \(lists.reduce(0) { $0 + $1.lines }) lines,"
                + " \(lists.reduce(0) { $0 + $1.network.count }) network and"
                + " \(lists.reduce(0) { $0 + $1.cosmetic.count }) cosmetic filters -> \(conversion.rules.count) rules"
                + " (\(conversion.blocks) blocks, \(conversion.exceptions) exceptions, \(conversion.important)"
                + " important), \(conversion.disabledByBadfilter) disabled by $badfilter, \(issueLines.count) not"
                + " converted" + (output == "-" ? "" : " -> \(output), \(issuesPath(output))"))
        Console.note(cosmeticNote(conversion.cosmetic, output: output, written: writesCosmetic))
        exitKeeping(lists, network, conversion, issues, issueLines, status: ExitCode.success)
    }

    /// The lists of `paths`, read and parsed on every core, each named by its file name; the first list (in the
    /// order given) that cannot be read is the error.
    static func parsed(_ paths: [String]) throws -> [FilterList] {
        let names = paths.map { String($0.split(separator: "/").last ?? Substring($0)) }
        if let twice = names.enumerated().first(where: { names[..<$0.offset].contains($0.element) })?.element {
            throw UsageError(
                "--filter-list: two lists named \(twice): the issues and the provenance name a list by its file name")
        }
        var texts: [(bytes: [UInt8], pieces: [FilterListParser.Piece])] = []
        for (path, name) in zip(paths, names) {
            let bytes: [UInt8]
            do { bytes = try FileIO.read(path) } catch { throw InputError("\(path): \(error)") }
            do {
                texts.append((bytes, try FilterListParser.pieces(bytes, name: name, size: pieceBytes)))
            } catch { throw InputError("\(error)") }
        }
        // The pieces of every list at once, so that both cores parse to the end whatever the lists' lengths.
        let work = texts.indices.flatMap { list in texts[list].pieces.map { (list, $0) } }
        let parts = Parallel.map(work.count) { i in
            FilterListParser.parse(texts[work[i].0].bytes, piece: work[i].1, name: names[work[i].0])
        }
        return Parallel.map(texts.count) { list in
            FilterList(joining: zip(work, parts).filter { $0.0.0 == list }.map(\.1), name: names[list])
        }
    }

    /// The bytes of a piece of a list parsed on one core: EasyList is eight of them.
    static let pieceBytes = 256 << 10

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
            throw notExpressible(error, path: path, target: target)
        }
        return bytes
    }

    /// The network list's bytes and its provenance's, encoded and checked in shares on every core, exactly as
    /// `checked` checks the whole list: after the conversion it is the long pole. Beside them the cosmetic list's
    /// (checked whole, on whichever core is free first, its error thrown by the caller after the network list's).
    static func checkedInShares(
        _ c: FilterListConversion, _ hiding: CosmeticConversion, path: String, target: EngineProfile,
        provenance: Bool
    ) throws -> (
        rules: [UInt8], provenance: [UInt8]?, cosmetic: (rules: Result<[UInt8], any Error>, provenance: [UInt8]?)
    ) {
        let ranges = Parallel.shares(c.rules.count, parts: c.rules.count / checkShareRules + 1)
        let (cosmetic, shares) = Parallel.alongside(
            {
                (
                    Result { hiding.rules.isEmpty ? [] : try checked(hiding.rules, path: path, target: target) },
                    provenance ? (hiding.rules.isEmpty ? [] : RuleProvenance.listBytes(hiding.provenance)) : nil
                )
            }, ranges.count
        ) { i in
            (
                target.checkGeneratedShare(c.rules[ranges[i]]),
                provenance ? RuleProvenance.listBytes(c.provenance[ranges[i]]) : []
            )
        }
        do {
            let rules = try target.checkGenerated(shares: shares.map(\.0))
            return (rules, provenance ? JSONWriter.joinedLinesArrays(shares.map(\.1)) : nil, cosmetic)
        } catch {
            throw notExpressible(error, path: path, target: target)
        }
    }

    /// The rules in a share of the network list's check.
    static let checkShareRules = 8192

    static func notExpressible(_ error: any Error, path: String, target: EngineProfile) -> InputError {
        InputError("\(path): the conversion is not expressible for \(target.name): \(error)")
    }

    static func cosmeticNote(_ cosmetic: CosmeticConversion, output: String, written: Bool) -> String {
        let what =
            "cosmetic list: \(cosmetic.rules.count) rules (\(cosmetic.selectors) selectors,"
            + " \(cosmetic.pageExceptions) page exceptions)"
        if written { return what + " -> \(cosmeticPath(output))" }
        return what + (cosmetic.rules.isEmpty ? "" : ", not written: it goes beside -o OUT")
    }
}
