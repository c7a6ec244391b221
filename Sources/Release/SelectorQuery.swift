// `match --selector S --top-url P`: is the element-hiding selector S hidden on the page P? WebKit's answer for
// the page's document load (its css-display-none actions and the global style sheets of the lists that saw no
// ignore-previous-rules, read back into selectors), then the script layer's filters (cpm-script.json) that apply
// on P's host. S is compared as written in the list or as radarblock writes it (`:-abp-has(` as `:has(`, and
// mixed-case ID and class selectors in their quirks-mode attribute form), so a user asks with the list's selector.

import ContentRules
import FileIO
import RuleBuilder
import RuleCompiler
import RuleEngine
import StrictJSON
import Surrogates

public struct SelectorAnswer: Sendable {
    public var hidden: Bool
    /// The lists (by label) whose rules hide it, then "script" when the script layer does.
    public var by: [String]

    public var jsonValue: JSONValue {
        ["hidden": .bool(hidden), "by": .array(by.map(JSONValue.string))]
    }
}

public enum SelectorQuery {
    public static func answer(
        selector: String, topURL: String, engine: RuleEngine, labels: [String],
        scripts: [CookiePopupScriptData]
    ) throws -> SelectorAnswer {
        let hasForm = selector.replacingOccurrences(of: ":-abp-has(", with: ":has(")
        let wanted = Set([selector, hasForm, QuirksModeSelectors.rewrite(hasForm)].map(trim))
        let result = try engine.match(
            MatchRequest(url: topURL, topURL: topURL, resourceType: "top-document", loadContext: "top-frame"))
        var by: [String] = []
        for (i, e) in result.entries.enumerated() {
            let action = result.actions[i]
            guard action.kind == .cssDisplayNone else { continue }
            if CSSSelectorValidator.topLevelSelectors(action.text).contains(where: wanted.contains) {
                by.append(labels[Int(e.list)])
            }
        }
        let suffix = "{display:none !important;}"
        for li in result.stylesheetLists {
            let sheet = engine.lists[li].stylesheet
            let body = sheet.hasSuffix(suffix) ? String(sheet.dropLast(suffix.count)) : sheet
            if CSSSelectorValidator.topLevelSelectors(body).contains(where: wanted.contains) { by.append(labels[li]) }
        }
        if let host = CanonicalURL.parse(topURL)?.host, !scripts.isEmpty {
            let scripted = scripts.flatMap { $0.active(onHost: host) }
            if scripted.contains(where: { wanted.contains(trim($0.selector)) }) { by.append("script") }
        }
        var seen = Set<String>()
        by = by.filter { seen.insert($0).inserted }
        return SelectorAnswer(hidden: !by.isEmpty, by: by)
    }

    /// The script-layer data of a release directory's cookie pop-up lists (none when it has none).
    public static func scripts(release dir: String) throws -> [CookiePopupScriptData] {
        let (manifest, _) = try ReleaseLists.load(dir)
        var out: [CookiePopupScriptData] = []
        for entry in manifest.lists where entry.kind == .cookiePopups {
            guard let name = entry.script else { continue }
            guard ReleaseLists.isPlainName(name) else {
                throw FileError(
                    path: dir + "/" + ReleaseFiles.manifest, reason: "\"\(name)\" is not a file name in the release")
            }
            let path = dir + "/" + name
            guard let data = CookiePopupScriptData(json: try JSONParser.parse(try FileIO.read(path))) else {
                throw FileError(path: path, reason: "not a cookie pop-up script file")
            }
            out.append(data)
        }
        return out
    }

    static func trim(_ s: String) -> String { CSSSelectorValidator.topLevelSelectors(s).first ?? s }
}
