// The names of the files in a release directory: the one place any of them is spelled.

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

    /// The ad-click attribution list.
    public static let attributionRules = "attribution.json"
    public static let attributionRBC = "attribution.rbc"
    public static let attributionProvenance = "attribution.provenance.json"
    /// The TDS the attribution list (and every attributed variant) is built from.
    public static let attributionTDS = "attribution-tds.json"

    /// The cookie pop-up list and the script layer's filters.
    public static let cookiePopupRules = "cpm.json"
    public static let cookiePopupRBC = "cpm.rbc"
    public static let cookiePopupProvenance = "cpm.provenance.json"
    public static let cookiePopupScript = "cpm-script.json"

    /// The click-to-load list of a rule action, its bytecode and its provenance.
    public static func clickToLoadRules(_ ruleAction: String) -> String { "ctl-\(ruleAction).json" }
    public static func clickToLoadRBC(_ ruleAction: String) -> String { "ctl-\(ruleAction).rbc" }
    public static func clickToLoadProvenance(_ ruleAction: String) -> String { "ctl-\(ruleAction).provenance.json" }

    /// Part n (1-based) of a split list: rules.json, rules-2.json, ...
    public static func rules(part n: Int) -> String { n == 1 ? rules : "rules-\(n).json" }
    public static func rbc(part n: Int) -> String { n == 1 ? rbc : "rules-\(n).rbc" }
    /// The list files of a further target (not the primary one): rules.<target>.json, rules.<target>-2.json, ...
    public static func rules(part n: Int, target: String) -> String {
        "rules.\(target)" + (n == 1 ? "" : "-\(n)") + ".json"
    }
    public static func rbc(part n: Int, target: String) -> String {
        "rules.\(target)" + (n == 1 ? "" : "-\(n)") + ".rbc"
    }
}
