// The cookie pop-up list of a release: `cpm.json` + `cpm.rbc` + `cpm.provenance.json`, in the manifest's `lists`
// with role "cpm" after the click-to-load lists, so an app can add or leave it out per site as it does a
// click-to-load list; and `cpm-script.json`, the script layer's filters (also appended to surrogates.js), which
// `match --selector` reads. Like the click-to-load lists it applies whatever the target and carries no "target".

import ContentRules
import Digest
import Release
import RuleBuilder
import RuleCompiler
import StrictJSON
import Surrogates
import TrackerData

extension SideList {
    /// The list for the primary target, nil when the TDS has none or the config turns it off.
    static func cookiePopupList(
        tds: TrackerDataSet, config: PrivacyConfig?, unprotected: UnprotectedSites?,
        options: BuildOptions, warnings: inout [String]
    ) throws -> CookiePopupList? {
        guard
            let list = CookiePopupRules.build(
                tds: tds, config: config, unprotected: unprotected, target: options.targets[0])
        else { return nil }
        if options.strict, let bad = list.issues.first(where: { $0.kind == .malformed }) {
            throw BuildError(component: .tds, reason: bad.description)
        }
        warnings += list.issues.map { "cookie pop-ups: \($0)" }
        return list
    }

    static func compileCookiePopupList(
        _ list: CookiePopupList?, dataset: String?, parser: RuleListParserOptions, options: BuildOptions,
        progress: ReleaseBuilder.Progress, into out: inout ReleaseListOutputs
    ) throws {
        guard let list, !list.rules.isEmpty else { return }
        progress("compiling the cookie pop-up list (\(list.rules.count) rules)")
        let side = SideList(
            rules: list.rules, provenance: list.provenance, name: "cpm", what: "cookie pop-up list",
            rulesFile: ReleaseFiles.cookiePopupRules, rbcFile: ReleaseFiles.cookiePopupRBC,
            provenanceFile: ReleaseFiles.cookiePopupProvenance, checked: true)
        var entry = try compileSideList(side, parser: parser, dataset: dataset, options: options, into: &out)
        entry.role = .cookiePopups
        if !list.scripted.isEmpty {
            let data = CookiePopupScriptData(filters: list.scripted, offSites: list.offSites)
            out.files.append(
                (ReleaseFiles.cookiePopupScript, JSONWriter.bytes(data.jsonValue, options: [.sortedKeys]) + [0x0A]))
            entry.script = ReleaseFiles.cookiePopupScript
        }
        out.lists.append(entry)
        out.counts[.cookiePopupRules] = Double(list.rules.count)
        for (k, v) in list.counts { out.counts[.cookiePopup(k)] = v }
    }
}
