// The lists a release holds beside the main one: every list of the conversion but the main one (click-to-load,
// ad-click attribution, cookie pop-ups, the filter lists', in the conversion's order), each published as its kind
// says (ReleaseListKind: files, role, count, how it is compiled; the filter lists' list in parts at the primary
// target's limit, FilterListSplitter). They apply whatever the target (no "target" field)
// and are compiled once, with the primary target's parser. The cookie pop-up list's `cpm-script.json` holds the
// script layer's filters (also appended to surrogates.js), which `match --selector` reads; the attribution
// list's TDS is written beside it, for the attributed variant (Release's AdClickAttributionRelease).

import ContentRules
import Conversion
import Digest
import Provenance
import Release
import RuleBuilder
import RuleCompiler
import StrictJSON
import Surrogates

/// What the build's lists add to a release: their files, manifest entries, names and counts.
struct ReleaseListOutputs {
    var files: [(name: String, bytes: [UInt8])] = []
    var lists: [ManifestList] = []
    /// The JSON lists `--verify-webkit` compiles.
    var listNames: [String] = []
    /// The list identifiers a split release is named by.
    var identifiers: [String] = []
    var counts: [ManifestCount: Double] = [:]
}

enum SideLists {
    /// Every side list of `conversion`, compiled and recorded in `out`; the cookie pop-up list's issues are
    /// warnings (with --strict a malformed line fails the TDS).
    static func compile(
        _ conversion: Conversion, dataset: String?, options: BuildOptions, progress: ReleaseBuilder.Progress,
        into out: inout ReleaseListOutputs, warnings: inout [String]
    ) throws {
        if let cookiePopups = conversion.cookiePopups {
            if options.strict, let bad = cookiePopups.issues.first(where: { $0.kind == .malformed }) {
                throw BuildError(component: .tds, reason: bad.description)
            }
            warnings += cookiePopups.issues.map { "cookie pop-ups: \($0)" }
        }
        let parser = RuleListParserOptions(target: options.targets[0])
        for list in conversion.lists where list.kind.files != nil {
            progress("compiling the \(list.kind.what) (\(list.rules.count) rules)")
            let written =
                list.kind.encodedForTarget
                ? TargetEncoding.adapt(
                    RuleBuildResult(rules: list.rules, provenance: list.provenance), for: parser.target)
                : RuleBuildResult(rules: list.rules, provenance: list.provenance)
            for (n, part) in try parts(of: list.kind, written, target: parser.target, options: options).enumerated() {
                var entry = try compileSideList(
                    list.kind, files: list.kind.files(part: n + 1)!, part, parser: parser, dataset: dataset,
                    options: options, into: &out)
                entry.role = list.kind.role
                record(list.record, in: &entry, into: &out, firstPart: n == 0)
                out.lists.append(entry)
                out.counts[list.kind.ruleCount, default: 0] += Double(part.rules.count)
            }
        }
    }

    /// The list in the parts its kind publishes: one, or for a kind that splits, parts of at most the target's
    /// limit (and `--max-rules`).
    static func parts(
        of kind: ConvertedListKind, _ list: RuleBuildResult, target: EngineProfile, options: BuildOptions
    ) throws -> [RuleBuildResult] {
        guard kind.splitsAtLimit else { return [list] }
        do {
            return try FilterListSplitter.split(list, maxRules: min(options.maxRules, target.maximumRuleCount))
        } catch {
            throw BuildError(component: .rules, reason: "\(kind.what): \(error)")
        }
    }

    /// Compiles `list` with `parser` and records its files, name, identifier and rbc bytes in `out`; returns its
    /// manifest entry, to which the caller adds what is particular to the kind.
    static func compileSideList(
        _ kind: ConvertedListKind, files: ReleaseFiles.SideListFiles, _ list: RuleBuildResult,
        parser: RuleListParserOptions, dataset: String?, options: BuildOptions, into out: inout ReleaseListOutputs
    ) throws -> ManifestList {
        let json = CanonicalRuleWriter.bytes(list.rules)
        let compiled: CompiledRuleList
        do {
            let parsed =
                kind.checkedAgainstTarget
                ? try parser.target.checkGenerated(json, ruleCount: list.rules.count)
                : try RuleListParser.parse(bytes: json, options: parser)
            compiled = try RuleListCompiler.compile(
                parsed, source: json,
                options: .init(
                    name: "\(options.name)-\(files.base)", dataset: dataset, parser: parser, budget: options.budget))
        } catch {
            throw BuildError(component: .rules, reason: "\(kind.what): \(error)")
        }
        let rbc = RBCFile.bytes(compiled)
        out.files.append((files.rules, json))
        out.files.append((files.rbc, rbc))
        out.files.append((files.provenance, RuleProvenance.listBytes(list.provenance)))
        out.listNames.append(files.rules)
        out.identifiers.append(compiled.identifier)
        out.counts[.rbcBytes, default: 0] += Double(rbc.count)
        return ManifestList(
            identifier: compiled.identifier, rules: files.rules, rbc: files.rbc, provenance: files.provenance,
            ruleCount: list.rules.count, sha256: Digest.hex(.sha256, json))
    }

    /// What the builder's record of a list adds to its entry and files: a click-to-load list's action and entity,
    /// the attribution list's TDS and allowlist, the cookie pop-up list's script layer and counts, the filter lists'
    /// sources, layer, issues and counts (those of the whole list with its first part).
    static func record(
        _ record: ConvertedList.Record, in entry: inout ManifestList, into out: inout ReleaseListOutputs,
        firstPart: Bool = true
    ) {
        switch record {
        case .main: return
        case .clickToLoad(let ctl):
            (entry.ruleAction, entry.entity) = (ctl.ruleAction, ctl.entity)
        case .adClickAttribution(let attribution):
            out.files.append((ReleaseFiles.attributionTDS, attribution.tds.canonicalBytes))
            entry.tds = ReleaseFiles.attributionTDS
            entry.allowlist = attribution.entries.map {
                AttributionAllowlistEntry(blocklistEntry: $0.blocklistEntry, host: $0.host)
            }
        case .cookiePopups(let list):
            if !list.scripted.isEmpty {
                let data = CookiePopupScriptData(filters: list.scripted, offSites: list.offSites)
                out.files.append(
                    (ReleaseFiles.cookiePopupScript, JSONWriter.bytes(data.jsonValue, options: [.sortedKeys]) + [0x0A]))
                entry.script = ReleaseFiles.cookiePopupScript
            }
            for (k, v) in list.counts { out.counts[.cookiePopup(k)] = v }
        case .filterLists(let lists):
            (entry.sources, entry.layer) = (lists.sources, lists.layer.rawValue)
            out.counts[.filterListParts, default: 0] += 1
            guard firstPart else { return }
            let issues = lists.issueLines
            out.files.append(
                (ReleaseFiles.filterListIssues(lists.layer), Array(issues.map { $0 + "\n" }.joined().utf8)))
            out.counts[.filterListIssues, default: 0] += Double(issues.count)
        }
    }
}
