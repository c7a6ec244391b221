// The lists a release holds beside the main one: click-to-load, cookie pop-ups, ad-click attribution. They
// apply whatever the target (no "target" field) and are compiled once, with the primary target's parser.

import ContentRules
import Digest
import Release
import Provenance
import RuleBuilder
import RuleCompiler
import TrackerData

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

/// A side list's rules and the names it is published under.
struct SideList {
    var rules: [ContentRule]
    var provenance: [RuleProvenance]
    /// The list name its identifier starts with, after `--name` (`ctl-block-x`, `cpm`, `attribution`).
    var name: String
    /// The list as an error names it ("click-to-load list block-x").
    var what: String
    var rulesFile: String
    var rbcFile: String
    var provenanceFile: String
    /// Checked against the target's limits before compiling (the cookie pop-up list's selectors).
    var checked = false
}

extension SideList {
    /// The click-to-load, attribution and cookie pop-up lists, in that order; returns the cookie pop-up list,
    /// whose script layer goes into the surrogate bundle.
    static func compileSideLists(
        _ built: RuleBuildResult, _ decoded: ConversionInputs, dataset: String?, options: BuildOptions,
        progress: ReleaseBuilder.Progress, into out: inout ReleaseListOutputs, warnings: inout [String]
    ) throws -> CookiePopupList? {
        let primaryParser = RuleListParserOptions(target: options.targets[0])
        try compileClickToLoadLists(
            built, dataset: dataset, parser: primaryParser, options: options, progress: progress, into: &out)
        try compileAttributionList(built, dataset: dataset, options: options, progress: progress, into: &out)
        let cookiePopups = try cookiePopupList(
            tds: decoded.tds, config: decoded.config, unprotected: decoded.unprotected, options: options,
            warnings: &warnings)
        try compileCookiePopupList(
            cookiePopups, dataset: dataset, parser: primaryParser, options: options, progress: progress, into: &out)
        return cookiePopups
    }

    /// Compiles `list` with `parser` and records its files, name, identifier and rbc bytes in `out`; returns its
    /// manifest entry, to which the caller adds what is particular to the list.
    static func compileSideList(
        _ list: SideList, parser: RuleListParserOptions, dataset: String?, options: BuildOptions,
        into out: inout ReleaseListOutputs
    ) throws -> ManifestList {
        let json = CanonicalRuleWriter.bytes(list.rules)
        let compiled: CompiledRuleList
        do {
            let parsed =
                list.checked
                ? try parser.target.checkGenerated(json, ruleCount: list.rules.count)
                : try RuleListParser.parse(bytes: json, options: parser)
            compiled = try RuleListCompiler.compile(
                parsed, source: json,
                options: .init(
                    name: "\(options.name)-\(list.name)", dataset: dataset, parser: parser, budget: options.budget))
        } catch {
            throw BuildError(component: .rules, reason: "\(list.what): \(error)")
        }
        let rbc = RBCFile.bytes(compiled)
        out.files.append((list.rulesFile, json))
        out.files.append((list.rbcFile, rbc))
        out.files.append((list.provenanceFile, RuleProvenance.listBytes(list.provenance)))
        out.listNames.append(list.rulesFile)
        out.identifiers.append(compiled.identifier)
        out.counts[.rbcBytes, default: 0] += Double(rbc.count)
        return ManifestList(
            identifier: compiled.identifier, rules: list.rulesFile, rbc: list.rbcFile, provenance: list.provenanceFile,
            ruleCount: list.rules.count, sha256: Digest.hex(.sha256, json))
    }

    static func compileClickToLoadLists(
        _ built: RuleBuildResult, dataset: String?, parser: RuleListParserOptions, options: BuildOptions,
        progress: ReleaseBuilder.Progress, into out: inout ReleaseListOutputs
    ) throws {
        // Encoded for the primary target, as the attribution list is: the builder writes for the newest engine.
        for ctl in TargetEncoding.adapt(built, for: options.targets[0]).clickToLoadLists {
            progress("compiling the click-to-load list \(ctl.ruleAction) (\(ctl.rules.count) rules)")
            let list = SideList(
                rules: ctl.rules, provenance: ctl.provenance, name: "ctl-\(ctl.ruleAction)",
                what: "click-to-load list \(ctl.ruleAction)", rulesFile: ReleaseFiles.clickToLoadRules(ctl.ruleAction),
                rbcFile: ReleaseFiles.clickToLoadRBC(ctl.ruleAction),
                provenanceFile: ReleaseFiles.clickToLoadProvenance(ctl.ruleAction))
            var entry = try compileSideList(list, parser: parser, dataset: dataset, options: options, into: &out)
            (entry.ruleAction, entry.entity, entry.role) = (ctl.ruleAction, ctl.entity, .clickToLoad)
            out.lists.append(entry)
            out.counts[.clickToLoadRules, default: 0] += Double(ctl.rules.count)
        }
    }
}
