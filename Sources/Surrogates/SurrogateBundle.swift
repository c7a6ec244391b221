// Builds surrogates.js: one self-contained user script (document start, all frames, page world) carrying
// the surrogate functions, the TDS subset (PageData) and the page-side matcher/runtime (PageScript.js, embedded
// in PageScript.swift by scripts/embed-page-script.py).
//
// Layout (deterministic: the same inputs give the same bytes):
//
//   /* header comment: tool version, counts */
//   (function (DATA, surrogateFunctions) {
//   <PageScript.js without its leading comment block>
//   })(<DATA: JSON, scriptSafe, sorted keys>, [
//   /* 0: <name> */
//   function () {
//   <body 0>
//   },
//   ...
//   ]);
//
// The surrogate functions are defined at the script's top level, outside the strict runtime: bodies are
// written as classic (sloppy) scripts and see only the global scope, not the runtime's variables.
//
// Design notes (the page side is described in PageScript.js):
// - Safety. Everything from the TDS and config is JSON data written with .scriptSafe (no `<`, `>`, `&`,
//   U+2028/U+2029 unescaped), never spliced into code; dataset-keyed maps are [key, value] arrays read into
//   Maps, so a key such as "__proto__" is just a key. Surrogate names are plain file names (checked when
//   parsing surrogates.txt; a TDS name that is not one can never be found and is reported as missing), so
//   they are safe in the `/* i: name */` comments. Surrogate bodies are code by design; ScriptBodyCheck
//   makes sure each one is self-contained (balanced brackets, closed strings/comments/templates/regexes),
//   cannot end an inline <script> and carries no `<!--` or raw U+2028/U+2029; JavaScriptCore's parser then
//   checks it as the function it becomes. A body that fails is dropped with an error naming it (its rules
//   stay plain blocks) and the finished bundle is parsed once more, so the bundle always parses.
//   No `new Function`/eval: pages with a strict CSP must still work.
// - Size. Only the surrogates some TDS rule names are carried (others are reported as left out), and only
//   the TDS subset that "redirect" decisions depend on (PageData.swift), or, with the tracker report (the
//   default), every tracker in lookup tables (PageTable.swift; the figures are in docs/tracker-report.md).
// - Missing surrogates: an error with --strict, else a warning and the rule is carried without its
//   surrogate (it still takes part in first-match, as a plain block).

import Domains
import StrictJSON
import TrackerData

public struct SurrogateBundleOptions: Sendable {
    /// A surrogate referenced by the TDS but missing from surrogates.txt is an error (else a warning).
    public var strict: Bool
    public var scope: PageDataScope
    /// Report every tracker request as a `radarblock:tracker` event (the default); the bundle then carries every
    /// tracker (scope .allTrackers) with entity display names and categories.
    public var reportTrackers: Bool
    /// The cookie pop-up filters of the script layer, appended as a piece of their own (CookiePopupScript.swift).
    public var cookiePopups: CookiePopupScriptData? = nil

    public init(strict: Bool = false, scope: PageDataScope = .surrogateTrackers, reportTrackers: Bool = true) {
        self.strict = strict
        self.scope = reportTrackers ? .allTrackers : scope
        self.reportTrackers = reportTrackers
    }
}

public struct SurrogateBundle: Sendable {
    /// The JavaScript bundle (UTF-8 text).
    public var script: String
    /// Problems that did not stop the build (missing surrogates without --strict, unused surrogates).
    public var warnings: [String]
    /// Surrogates dropped because their body does not parse, one message each naming it.
    public var errors: [String] = []
    /// Surrogate names in the bundle, sorted.
    public var surrogateNames: [String]
    /// Trackers carried (with rules, plus shadow entries), surrogate trackers, aliases, entities, allowlist entries.
    public var trackerCount: Int
    public var surrogateTrackerCount: Int
    public var cnameCount: Int
    public var entityCount: Int
    public var allowlistCount: Int
    /// What the page reads (PageData), before PageTable lays it out as the bundle's DATA.
    var pageData: JSONValue = .null

    public var bytes: [UInt8] { Array(script.utf8) }
}

public enum SurrogateBundleError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A TDS rule names a surrogate that surrogates.txt does not have (strict mode).
    case missingSurrogate(String)
    /// A surrogate body cannot be wrapped safely (strict mode).
    case invalidScript(SurrogatesFileError)
    /// The finished bundle does not parse (a bug: every body was checked).
    case bundleDoesNotParse(String)

    public var description: String {
        switch self {
        case .missingSurrogate(let message): return message
        case .invalidScript(let e): return e.description
        case .bundleDoesNotParse(let message): return "the generated surrogates.js does not parse: \(message)"
        }
    }
}

public enum SurrogateBundleBuilder {
    /// The CustomEvent the bundle dispatches on `window` for every surrogate it applies.
    public static let eventName = "radarblock:surrogate"
    /// The CustomEvent a reporting bundle (the default) dispatches on `window` for every tracker request.
    public static let trackerEventName = "radarblock:tracker"

    /// - Parameters:
    ///   - tdsSource / surrogatesSource: names of the inputs, used in messages.
    public static func build(
        tds: TrackerDataSet, tdsSource: String = "TDS",
        scripts: [SurrogateScript], surrogatesSource: String = "surrogates.txt",
        config: PrivacyConfig? = nil, unprotected: UnprotectedSites? = nil,
        options: SurrogateBundleOptions = SurrogateBundleOptions()
    ) throws -> SurrogateBundle {
        let byName = Dictionary(scripts.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var (referenced, warnings) = try referencedSurrogates(
            tds: tds, tdsSource: tdsSource, byName: byName,
            surrogatesSource: surrogatesSource, strict: options.strict)
        let unused = scripts.map(\.name).filter { !referenced.contains($0) }.sorted(by: byteOrder)
        if !unused.isEmpty {
            warnings.append(
                "\(surrogatesSource): \(unused.count) surrogate(s) not referenced by the TDS left out of the bundle: "
                    + unused.joined(separator: ", "))
        }
        let (bodies, errors) = try checkedBodies(
            of: &referenced, byName: byName, surrogatesSource: surrogatesSource,
            strict: options.strict)
        let names = referenced.sorted(by: byteOrder)
        let data = PageData.build(
            tds: tds, config: config, unprotected: unprotected,
            available: referenced, scope: options.scope, report: options.reportTrackers)
        let json = JSONWriter.string(
            .object(PageTable.layout(data.json.objectValue ?? JSONObject())),
            options: [.sortedKeys, .scriptSafe])

        var script = headerComment(surrogates: names.count, data: data, reportTrackers: options.reportTrackers)
        script += runtime + "(" + json + ", [\n" + functionsText(names, bodies) + "]);\n"
        if let cookiePopups = options.cookiePopups, !cookiePopups.filters.isEmpty {
            script += CookiePopupScript.piece(cookiePopups)
        }

        if let failure = try JavaScriptSyntax.check(script) {
            throw SurrogateBundleError.bundleDoesNotParse("line \(failure.line): \(failure.message)")
        }
        var bundle = SurrogateBundle(
            script: script, warnings: warnings, surrogateNames: names,
            trackerCount: data.trackerCount, surrogateTrackerCount: data.surrogateTrackerCount,
            cnameCount: data.cnameCount, entityCount: data.entityCount,
            allowlistCount: data.allowlistCount)
        bundle.errors = errors
        bundle.pageData = data.json
        return bundle
    }

    /// Which surrogates the TDS uses, and a warning for each it names but the file lacks (an error when
    /// `strict`).
    private static func referencedSurrogates(
        tds: TrackerDataSet, tdsSource: String, byName: [String: SurrogateScript],
        surrogatesSource: String, strict: Bool
    ) throws -> (Set<String>, [String]) {
        var referenced: Set<String> = []
        var warnings: [String] = []
        for domain in tds.sortedTrackerDomains {
            for (index, rule) in tds.trackers[domain]!.rules.enumerated() {
                guard let name = rule.surrogate else { continue }
                if byName[name] != nil {
                    referenced.insert(name)
                    continue
                }
                let path = JSONPath.root / "trackers" / domain / "rules" / index / "surrogate"
                var message = "\(tdsSource): \(path): surrogate \(quoted(name)) is not in \(surrogatesSource)"
                if let problem = SurrogatesFile.fileNameProblem(name) { message += " (\(problem))" }
                if strict { throw SurrogateBundleError.missingSurrogate(message) }
                warnings.append(message + "; the rule stays a plain block")
            }
        }
        return (referenced, warnings)
    }

    /// The checked body of each referenced surrogate; one that fails is removed from `referenced` with an
    /// error naming it (thrown when `strict`).
    private static func checkedBodies(
        of referenced: inout Set<String>, byName: [String: SurrogateScript],
        surrogatesSource: String, strict: Bool
    ) throws -> ([String: String], [String]) {
        var bodies: [String: String] = [:]
        var errors: [String] = []
        for name in referenced.sorted(by: byteOrder) {
            let s = byName[name]!
            do {
                bodies[name] = try checkedBody(s)
            } catch let e as ScriptBodyError {
                let error = SurrogatesFileError(
                    source: surrogatesSource, line: s.line + e.line,
                    message: "surrogate \(quoted(name)): \(e.message)")
                if strict { throw SurrogateBundleError.invalidScript(error) }
                errors.append(error.description + "; surrogate dropped, its rules stay plain blocks")
                referenced.remove(name)
            }
        }
        return (bodies, errors)
    }

    /// The surrogate functions, one per name in order, each after a `/* i: name */` comment.
    private static func functionsText(_ names: [String], _ bodies: [String: String]) -> String {
        var functions = ""
        for (i, name) in names.enumerated() {
            // `name` is a validated plain file name, so it is safe in a comment.
            functions +=
                "/* \(i): \(name) */\nfunction () {\n" + bodies[name]! + "\n}" + (i + 1 < names.count ? ",\n" : "\n")
        }
        return functions
    }

    /// The bundle's leading comment: counts and the events it dispatches.
    private static func headerComment(surrogates: Int, data: PageData, reportTrackers: Bool) -> String {
        var script = "/* radarblock surrogates.js: \(surrogates) surrogates, "
        script +=
            "\(data.surrogateTrackerCount) surrogate trackers, \(data.cnameCount) CNAME aliases. Generated; do not "
            + "edit.\n"
        script += "   Run as a user script at document start in all frames. Each surrogate applied is reported as a\n"
        script +=
            "   CustomEvent \"\(eventName)\" on window, detail {url, name, tracker, pageUrl, blocked, executed, error}."
        if reportTrackers {
            script +=
                "\n   Every tracker request is reported as a CustomEvent \"\(trackerEventName)\" on window, detail\n"
            script += "   {url, pageUrl, tracker, entity, displayName, category, blocked, reason, surrogate}."
        }
        return script + " */\n"
    }

    /// PageScript.js as the bundle carries it: without its whole-line `//` comments, its indentation (the bundle
    /// goes into every page; the file has no multi-line strings or templates, so such a line is always a comment
    /// and leading spaces are never inside a string) and the final newline.
    static let runtime: String = {
        var lines = PageScript.source.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.drop(while: { $0 == " " }) }
            .filter { !$0.hasPrefix("//") }[...]
        while let last = lines.last, last.isEmpty { lines = lines.dropLast() }
        return lines.joined(separator: "\n")
    }()

    /// The body made safe to embed (ScriptBodyCheck), then parsed as the function it becomes in the bundle.
    static func checkedBody(_ s: SurrogateScript) throws -> String {
        let body = try ScriptBodyCheck.prepare(s.body)
        // Line 1 is the wrapper's, as in the bundle ("function () {" then the body on its own lines).
        if let failure = try JavaScriptSyntax.check("(function () {\n" + body + "\n})") {
            throw ScriptBodyError(line: max(failure.line - 1, 1), message: failure.message)
        }
        return body
    }
}
