// The names of the files in a release directory: the one place any of them is spelled.

import Conversion

/// Names of the files in a release directory.
public enum ReleaseFiles {
    public static let rules = "rules.json"
    public static let rbc = "rules.rbc"
    public static let provenance = "provenance.json"
    public static let issues = "issues.txt"
    public static let surrogatesJS = "surrogates.js"
    public static let manifest = "manifest.json"
    public static let changesMarkdown = "changes.md"
    public static let changesHTML = "changes.html"
    public static let changesJSON = "changes.json"
    /// Copies of the inputs, so that a later build can fall back to them and a diff can compare datasets.
    public static let inputTDS = "input-tds.json"
    public static let inputConfig = "input-config.json"
    public static let inputSurrogates = "input-surrogates.txt"
    public static let inputUnprotected = "input-unprotected.txt"

    /// The extensions of a side list's three files, after the list's base name.
    static let rulesExtension = ".json"
    static let rbcExtension = ".rbc"
    static let provenanceExtension = ".provenance.json"

    /// The files of a side list (click-to-load, cookie pop-up, ad-click attribution), named from its base.
    public struct SideListFiles: Sendable, Equatable {
        /// The list's name in its identifier (after `--name`) and the start of its file names.
        public let base: String
        public var rules: String { base + ReleaseFiles.rulesExtension }
        public var rbc: String { base + ReleaseFiles.rbcExtension }
        public var provenance: String { base + ReleaseFiles.provenanceExtension }
        /// The three as a help text names them: `base.json/.rbc/.provenance.json`.
        public var synopsis: String {
            rules + "/" + ReleaseFiles.rbcExtension + "/" + ReleaseFiles.provenanceExtension
        }
    }

    /// The ad-click attribution list.
    public static let attributionList = SideListFiles(base: "attribution")
    public static let attributionRules = attributionList.rules
    public static let attributionRBC = attributionList.rbc
    public static let attributionProvenance = attributionList.provenance
    /// The TDS the attribution list (and every attributed variant) is built from.
    public static let attributionTDS = "attribution-tds.json"

    /// The cookie pop-up list and the script layer's filters.
    public static let cookiePopupList = SideListFiles(base: "cpm")
    public static let cookiePopupRules = cookiePopupList.rules
    public static let cookiePopupRBC = cookiePopupList.rbc
    public static let cookiePopupProvenance = cookiePopupList.provenance
    public static let cookiePopupScript = "cpm-script.json"

    /// Part n (1-based) of the filter lists' list of a layer: filters.json, filters-2.json, ... for the network
    /// filters; a further layer's name follows `filters-`.
    public static func filterList(_ layer: FilterListLayer, part n: Int) -> SideListFiles {
        let base = layer == .network ? "filters" : "filters-" + layer.rawValue
        return SideListFiles(base: n == 1 ? base : base + "-\(n)")
    }
    /// The filters of the filter lists a layer's list does not convert, one a line (`LIST: line N: FILTER: [kind]
    /// reason`, as `convert --filter-list` writes them).
    public static func filterListIssues(_ layer: FilterListLayer) -> String {
        filterList(layer, part: 1).base + ".issues.txt"
    }
    /// A filter list's copy in the release (n: its place among the `--filter-list`s, 1-based).
    public static func inputFilterList(_ n: Int) -> String { "input-filter-list-\(n).txt" }

    /// The click-to-load list of a rule action, its bytecode and its provenance.
    public static func clickToLoadList(_ ruleAction: String) -> SideListFiles {
        SideListFiles(base: "ctl-" + ruleAction)
    }
    public static func clickToLoadRules(_ ruleAction: String) -> String { clickToLoadList(ruleAction).rules }
    public static func clickToLoadRBC(_ ruleAction: String) -> String { clickToLoadList(ruleAction).rbc }
    public static func clickToLoadProvenance(_ ruleAction: String) -> String {
        clickToLoadList(ruleAction).provenance
    }

    /// Part n (1-based) of a split list: rules.json, rules-2.json, ...
    public static func rules(part n: Int) -> String { n == 1 ? rules : "rules-\(n).json" }
    public static func rbc(part n: Int) -> String { n == 1 ? rbc : "rules-\(n).rbc" }
    /// The provenance of part n of a main list split into parts (an unsplit list's is `provenance`).
    public static func provenance(part n: Int) -> String {
        (n == 1 ? "rules" : "rules-\(n)") + provenanceExtension
    }
    /// The list files of a further target (not the primary one): rules.<target>.json, rules.<target>-2.json, ...
    public static func rules(part n: Int, target: String) -> String {
        "rules.\(target)" + (n == 1 ? "" : "-\(n)") + ".json"
    }
    public static func rbc(part n: Int, target: String) -> String {
        "rules.\(target)" + (n == 1 ? "" : "-\(n)") + ".rbc"
    }
}
