// The cookie pop-up list of a release: `cpm.json` + `cpm.rbc` + `cpm.provenance.json`, in the manifest's `lists`
// with role "cpm" after the click-to-load lists, so an app can add or leave it out per site as it does a
// click-to-load list; and `cpm-script.json`, the script layer's filters (also appended to surrogates.js), which
// `match --selector` reads. Like the click-to-load lists it applies whatever the target and carries no "target".

import ContentRules
import Digest
import RuleBuilder
import RuleCompiler
import StrictJSON
import Surrogates
import TrackerData

extension ReleaseFiles {
    public static let cookiePopupRules = "cpm.json"
    public static let cookiePopupRBC = "cpm.rbc"
    public static let cookiePopupProvenance = "cpm.provenance.json"
    public static let cookiePopupScript = "cpm-script.json"
}

/// The `role` of a manifest list entry (DESIGN: every list of a release has one). Entries written before roles
/// existed have none: click-to-load lists are known by their `ruleAction`, every other one is a part of the main list.
public enum ReleaseListRole {
    public static let main = "main"
    public static let clickToLoad = "click-to-load"
    public static let cookiePopups = "cpm"

    public static func of(_ entry: JSONValue) -> String {
        entry["role"]?.stringValue ?? (entry["ruleAction"]?.stringValue != nil ? clickToLoad : main)
    }
}

extension ReleaseBuilder {
    /// The list for the primary target, nil when the TDS has none or the config turns it off.
    static func cookiePopupList(tds: TrackerDataSet, config: PrivacyConfig?, unprotected: UnprotectedSites?,
                                options: BuildOptions, warnings: inout [String]) throws -> CookiePopupList? {
        guard let list = CookiePopupRules.build(tds: tds, config: config, unprotected: unprotected, target: options.targets[0]) else { return nil }
        if options.strict, let bad = list.issues.first(where: { $0.kind == .malformed }) {
            throw BuildError(component: "tds", reason: bad.description)
        }
        warnings += list.issues.map { "cookie pop-ups: \($0)" }
        return list
    }

    static func compileCookiePopupList(_ list: CookiePopupList?, dataset: String?, parser: RuleListParserOptions, options: BuildOptions,
                                       progress: Progress, files: inout [(name: String, bytes: [UInt8])], lists: inout [JSONValue],
                                       listNames: inout [String], identifiers: inout [String], counts: inout [String: Double]) throws {
        guard let list, !list.rules.isEmpty else { return }
        progress("compiling the cookie pop-up list (\(list.rules.count) rules)")
        let json = CanonicalRuleWriter.bytes(list.rules)
        let compiled: CompiledRuleList
        do {
            try parser.target.checkGenerated(json, ruleCount: list.rules.count)
            compiled = try RuleListCompiler.compile(json: json, options: .init(name: "\(options.name)-cpm", dataset: dataset,
                                                                               parser: parser, budget: options.budget))
        } catch {
            throw BuildError(component: "rules", reason: "cookie pop-up list: \(error)")
        }
        let rbc = RBCFile.bytes(compiled)
        files.append((ReleaseFiles.cookiePopupRules, json))
        files.append((ReleaseFiles.cookiePopupRBC, rbc))
        files.append((ReleaseFiles.cookiePopupProvenance, RuleProvenance.listBytes(list.provenance)))
        var entry = JSONObject([
            ("identifier", .string(compiled.identifier)),
            ("rules", .string(ReleaseFiles.cookiePopupRules)),
            ("rbc", .string(ReleaseFiles.cookiePopupRBC)),
            ("provenance", .string(ReleaseFiles.cookiePopupProvenance)),
            ("ruleCount", .number(Double(list.rules.count))),
            ("sha256", .string(Digest.hex(.sha256, json))),
            ("role", .string(ReleaseListRole.cookiePopups)),
        ])
        if !list.scripted.isEmpty {
            let data = CookiePopupScriptData(filters: list.scripted, offSites: list.offSites)
            files.append((ReleaseFiles.cookiePopupScript, JSONWriter.bytes(data.jsonValue, options: [.sortedKeys]) + [0x0A]))
            entry["script"] = .string(ReleaseFiles.cookiePopupScript)
        }
        lists.append(.object(entry))
        listNames.append(ReleaseFiles.cookiePopupRules)
        identifiers.append(compiled.identifier)
        counts["rbcBytes", default: 0] += Double(rbc.count)
        counts["cookiePopupRules"] = Double(list.rules.count)
        for (k, v) in list.counts { counts["cookiePopup" + k.prefix(1).uppercased() + k.dropFirst()] = v }
    }
}
