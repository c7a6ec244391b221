// radarblock match: what WebKit's content blocker reports for loads, from rule-list JSON or .rbc files.

import AdblockSyntax
import ContentRules
import FilterLists
import FileIO
import Foundation
import Parallel
import Release
import ReleaseDiff
import Provenance
import RuleCompiler
import RuleEngine
import StrictJSON
import Surrogates
import TrackerData

enum MatchCommand: Command {
    static let name = "match"
    static let summary = "answer what WebKit does with loads, from rule lists (.json or .rbc)"
    /// The command's options: its grammar lists them and `run` reads them, so a key is spelled once.
    enum Option {
        static let requests = OptionSpec(
            "--requests", value: "FILE",
            help: """
                one JSON request per line ("-" = stdin):
                  {"url": "...", "topURL": "...", "frameURL": "..." (default topURL),
                   "resourceType": "...", "loadContext": "top-frame"|"child-frame" (optional),
                   "requestMethod": "get"|... (optional)}
                A frame's own document load (an <iframe src>, child-document) is, as WebKit
                makes it, "frameURL": "about:blank" (the new frame's first document) with
                "loadContext": "child-frame"; without them it is judged as a load of the top page.
                Answers, one line each, in the same order:
                  {"actions":[{"type":"block"},...],"stylesheet":"..."}
                "stylesheet" (only when non-empty) is the global display:none stylesheet of
                every list that saw no ignore-previous-rules for the load, one per line.
                A line that cannot be answered gets {"error":"line N: ..."} (with --format text:
                "error: line N: ..."); the run goes on. But when the first 10 lines are all
                errors, the file is not JSONL requests (a TDS, a rule list, a JSON array): the
                run stops before answering, naming the file and its first bad lines (exit 1).
                Ten, because a requests file with a few bad lines has a good one among them.
                A regular file is mapped, not copied: if it shrinks during the run, the run
                stops with an error naming it (exit 1).
                """)
        static let explain = OptionSpec(
            "--explain",
            help: """
                with --requests: each answer also names the rule that decided it,
                  "decidedBy": {"list": NAME, "rule": INDEX, "ruleJSON": {...}, "provenance": {...}}
                (null when no rule decided): the last matching rule whose block was reported,
                else the last matching ignore-previous-rules rule of the first list that has one
                (the main list comes first: its exemption of a site decides, not a later list's).
                "rule" is the rule's index in the list's JSON; "ruleJSON" is null for an .rbc
                compiled without its source; "provenance" is what the builder recorded for the
                rule (the TDS tracker and rule, temp list, allowlist, ...) from a release
                directory or --provenance, else null.
                """)
        static let format = OptionSpec(
            "--format", value: "F",
            help: """
                with --requests: json (default, one answer object per line) or text (one
                readable line per request: outcome, type, URL, site and the deciding rule)
                """)
        static let explainWith = OptionSpec(
            "--explain-with", value: "W",
            help: """
                who names the deciding rule: automaton (default: the engine, in the same pass as
                the answer), rules (rule by rule over the rules the url automaton reports: slow)
                or all-rules (rule by rule over every rule: slowest, independent of the automata).
                The three agree; the last two exist to cross-check the first.
                """)
        static let provenance = OptionSpec(
            "--provenance", value: "FILE",
            help: "provenance of the single LIST given (`radarblock convert --provenance`)")
        static let attributedVendor = OptionSpec(
            "--attributed-vendor", value: "DOMAIN",
            help: """
                answer as a tab with an active ad-click attribution for the site DOMAIN: each
                release directory's ad-click attribution list is replaced by its attributed
                variant for DOMAIN (`radarblock attribution`)
                """)
        static let url = OptionSpec(
            "--url", value: "URL",
            help: "explain one load: what the page gets, the rule that decided it, then the answer line")
        static let topURL = OptionSpec("--top-url", value: "URL", help: "the main document's URL (required with --url)")
        static let frameURL = OptionSpec(
            "--frame-url", value: "URL", help: "the URL of the frame issuing the load (default: the top URL)")
        static let type = OptionSpec("--type", value: "TYPE", help: "resource type (default: other)")
        static let method = OptionSpec(
            "--method", value: "METHOD", help: "the initiating document's request method (default: none)")
        static let loadContext = OptionSpec(
            "--load-context", value: "C",
            help: """
                top-frame or child-frame (default: top-frame when the frame URL is the top
                URL, else child-frame); a frame's own document load is child-frame, with
                --frame-url about:blank, in WebKit
                """)
        static let json = OptionSpec("--json", help: "with --url: print only the answer line")
        static let selector = OptionSpec(
            "--selector", value: "S",
            help: """
                is the element-hiding selector S hidden on the page --top-url (a release's
                cookie pop-up list, or any list with css-display-none rules)? Prints
                  {"selector": S, "topURL": URL, "hidden": true|false, "by": [LIST..., "script"]}
                from the page's document load (its css-display-none actions and global style
                sheets) and, in a release, the script layer's filters (cpm-script.json). S is one
                selector as the list writes it (`:-abp-has(` may be written `:has(`).
                """)
        static let target = OptionSpec.target(
            "JSON lists are read as that engine's parser reads them (keys it does not know are ignored, as it ignores"
                + " them); an .rbc file keeps the target it was compiled for"
        )
    }

    static let grammar = CommandGrammar(
        forms: [
            "LIST... --requests FILE.jsonl [--explain] [--format json|text] [--provenance FILE] [--explain-with W]"
                + " [--attributed-vendor DOMAIN]",
            "LIST... --url URL --top-url URL [--frame-url URL] [--type TYPE] [--method METHOD] [--load-context C]"
                + " [--json]",
            "LIST... --selector S --top-url URL",
        ],
        positionals: ["LIST"], positionalCount: 1...64,
        parts: [
            .text(
                """
                Reports the actions WebKit's content-extension backend gives a load, in WebKit's order and
                de-duplication, concatenated over the lists in the order given. A LIST is rule-list JSON
                (validated and compiled in memory exactly like `radarblock compile` does), an .rbc file (checked
                and loaded), or a release directory from `radarblock build`: the lists its manifest's "lists"
                array names, in that order, with their provenance: those of the primary target (of --target when
                given), the click-to-load lists and the cookie pop-up list. A list file (rules, .rbc,
                provenance) whose sha256 is not the one the manifest recorded is refused, naming it: an edited
                rules.json would otherwise be answered from its stale .rbc. A LIST may also be an Adblock Plus
                / uBlock Origin filter list (a file that does not start with `{` or `[`, or starts with a
                header such as `[Adblock Plus 2.0]`): converted in memory as `convert --filter-list` converts it,
                each rule's provenance naming its filter, list and line (--explain shows it).
                """),
            .options(
                nil,
                [
                    Option.requests,
                    Option.explain,
                    Option.format,
                    Option.explainWith,
                    Option.provenance,
                    Option.attributedVendor,
                    Option.url,
                    Option.topURL,
                    Option.frameURL,
                    Option.type,
                    Option.method,
                    Option.loadContext,
                    Option.json,
                    Option.selector,
                    Option.target,
                ]),
            .text(
                """
                --url, --top-url and --frame-url must be absolute URLs (a usage error otherwise, exit 2).

                Matching follows WebKit: URLs are canonicalized like WebKit's URL parser (lowercase scheme and
                host, IDN to punycode, default port removed, "/" for an empty path, dot segments, percent-
                encoding; the fragment is kept); invalid URLs and data: URLs get no actions at all. A load is
                third-party unless its host is the main document's registrable domain (public suffix list) or
                a subdomain of it. Every load is evaluated with the URLs it was given, as WebKit's backend does.
                Combinations a browser never produces are answered as given, not rewritten: a browser's
                top-document load always has topURL = url and loadContext top-frame (its main document is
                itself), and a popup's frame is about:blank; a top-document request with another topURL is an
                artificial load (WebKit's own tests use such loads).

                Resource types (request name -> the WebKit type it is matched as):
                \(ResourceTypeMapping.helpTable)
                Exit status: 0 answered (even if some lines had errors), 1 a list (or its provenance) could not be
                loaded, a release's list file differs from its manifest's sha256, or --requests is not JSONL
                requests, 2 usage.
                """),
        ])

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try parse(arguments)
        let target = try args.target(Option.target)
        if let selector = args.value(Option.selector) {
            return try answerSelector(selector, args: args, target: target)
        }
        let requests = args.value(Option.requests)
        let url = args.value(Option.url)
        if (requests == nil) == (url == nil) {
            throw UsageError("give either --requests FILE or --url URL --top-url URL")
        }
        try checkModeOptions(args, requests: requests != nil)
        let format = try parseFormat(args)
        let decider = try parseDecider(args, format: format)
        let vendor = args.value(Option.attributedVendor)
        if let vendor {
            do { _ = try AdClickAttributionRelease.vendorSite(vendor) } catch {
                throw UsageError(String(describing: error))
            }
        }
        let loaded = try loadAll(args, target: target, vendor: vendor)
        // The decisions as `diff` makes them: the same side, so both say "surrogate" for the same requests.
        let side = MatchAnswer.side(loaded)
        let engine = side.engine

        if let requests {
            let explainer =
                args.has(Option.explain) || format.isText
                ? DecidingRuleDescriber(
                    engine: engine, labels: loaded.map(\.label), provenance: loaded.map(\.provenance)) : nil
            var batch = MatchBatch(engine: engine, explainer: explainer, format: format, decider: decider)
            batch.surrogates = side.surrogateOfRule
            try MatchBatch.answer(requestsFrom: requests, with: batch)
            return ExitCode.success
        }
        return try answerURL(url!, args: args, side: side, lists: loaded)
    }

    /// The options of the other form (--requests or --url) are usage errors.
    static func checkModeOptions(_ args: ParsedArguments, requests: Bool) throws {
        if requests {
            for o in [Option.topURL, Option.frameURL, Option.type, Option.method, Option.loadContext, Option.json]
            where args.given(o) {
                throw UsageError("\(o.key) goes with --url, not --requests")
            }
        } else {
            // --explain is what --url does anyway: accepted, as a person asking for it expects.
            for o in [Option.format, Option.explainWith] where args.value(o) != nil {
                throw UsageError("\(o.key) goes with --requests (--url always explains)")
            }
        }
    }

    static func parseFormat(_ args: ParsedArguments) throws -> MatchBatch.Format {
        switch args.value(Option.format) ?? "json" {
        case "json": return .json
        case "text": return .text(MatchTextLines())
        default: throw UsageError("--format must be json or text")
        }
    }

    static func parseDecider(_ args: ParsedArguments, format: MatchBatch.Format) throws -> MatchBatch.Decider {
        let decider: MatchBatch.Decider
        switch args.value(Option.explainWith) ?? "automaton" {
        case "automaton": decider = .automaton
        case "rules": decider = .explain(allRules: false)
        case "all-rules": decider = .explain(allRules: true)
        default: throw UsageError("--explain-with must be automaton, rules or all-rules")
        }
        if args.value(Option.explainWith) != nil, !args.has(Option.explain), !format.isText {
            throw UsageError("--explain-with goes with --explain or --format text")
        }
        return decider
    }

    /// Every LIST's lists, the single rule-list file's with its --provenance.
    static func loadAll(_ args: ParsedArguments, target: EngineProfile, vendor: String?) throws -> [NamedList] {
        var loaded = try args.positionals.flatMap {
            try loadLists($0, target: target, explicitTarget: args.value(Option.target) != nil, vendor: vendor)
        }
        if let p = args.value(Option.provenance) {
            guard loaded.count == 1, loaded[0].provenance == nil else {
                throw UsageError("--provenance goes with exactly one rule-list file (a release directory has its own)")
            }
            let provenance = try readProvenance(p)
            let rules = loaded[0].list.compiled.sourceRuleCount
            guard provenance.count == rules else {
                throw InputError(
                    "\(p): \(provenance.count) provenance entries, but \(args.positionals[0]) has \(rules) rules (give"
                        + " the provenance written with this list)"
                )
            }
            loaded[0].provenance = provenance
        }
        return loaded
    }

    /// `--url URL --top-url URL`: the page's view of the load and the explanation, or with --json the answer line.
    static func answerURL(_ url: String, args: ParsedArguments, side: DecisionSide, lists loaded: [NamedList]) throws
        -> Int32
    {
        guard let top = args.value(Option.topURL) else { throw UsageError("--url needs --top-url") }
        for o in [Option.url, Option.topURL, Option.frameURL] { try requireAbsoluteURL(args.value(o), flag: o.key) }
        // A bad option value is a usage error (exit 2), unlike a bad request line in a --requests file.
        if let type = args.value(Option.type), ResourceTypeMapping.resourceType(type, mainFrameContext: true) == nil {
            throw UsageError("--type: unknown resource type \"\(type)\" (see the list in --help)")
        }
        if let context = args.value(Option.loadContext), !["top-frame", "child-frame"].contains(context) {
            throw UsageError("--load-context must be top-frame or child-frame, not \"\(context)\"")
        }
        let request = MatchRequest(
            url: url, topURL: top, frameURL: args.value(Option.frameURL),
            resourceType: args.value(Option.type) ?? "other",
            loadContext: args.value(Option.loadContext), requestMethod: args.value(Option.method))
        let engine = side.engine
        do {
            if args.has(Option.json) {
                var out: [UInt8] = []
                try engine.match(request).writeJSONLine(into: &out)
                FileHandle.standardOutput.write(Data(out))
            } else {
                print(
                    try MatchAnswer.page(request, side: side, lists: loaded)
                        + ExplainListing.text(try Explain.report(engine: engine, request: request)), terminator: "")
            }
        } catch let e as RequestError {
            throw InputError(e.message)
        }
        return ExitCode.success
    }

    /// `--selector S --top-url URL`: one JSON line.
    static func answerSelector(_ selector: String, args: ParsedArguments, target: EngineProfile) throws -> Int32 {
        for o in [
            Option.requests, Option.url, Option.frameURL, Option.type, Option.method, Option.loadContext,
            Option.explain, Option.format, Option.provenance, Option.attributedVendor,
        ]
        where args.given(o) {
            throw UsageError("\(o.key) does not go with --selector")
        }
        guard let top = args.value(Option.topURL) else { throw UsageError("--selector needs --top-url") }
        try requireAbsoluteURL(top, flag: Option.topURL.key)
        let loaded = try args.positionals.flatMap {
            try loadLists($0, target: target, explicitTarget: args.value(Option.target) != nil, vendor: nil)
        }
        var scripts: [CookiePopupScriptData] = []
        for path in args.positionals where ReleaseLists.isRelease(path) {
            scripts += try SelectorQuery.scripts(release: path)
        }
        let answer: SelectorAnswer
        do {
            answer = try SelectorQuery.answer(
                selector: selector, topURL: top, engine: RuleEngine(lists: loaded.map(\.list)),
                labels: loaded.map(\.label), scripts: scripts)
        } catch let e as RequestError {
            throw InputError(e.message)
        }
        var o = JSONObject([("selector", .string(selector)), ("topURL", .string(top))])
        o["hidden"] = answer.jsonValue["hidden"]
        o["by"] = answer.jsonValue["by"]
        print(JSONWriter.string(.object(o)))
        return ExitCode.success
    }

    /// A URL option must be what a page could load: an absolute URL WebKit's parser accepts (a --requests line with
    /// such a URL is answered as WebKit would, with no actions; an option given by hand is a slip).
    static func requireAbsoluteURL(_ value: String?, flag: String) throws {
        guard let value, CanonicalURL.parse(value) == nil else { return }
        throw UsageError("\(flag) \(quoted(value)) is not an absolute URL (e.g. https://example.com/)")
    }

    /// A list to match with, the name `--explain` gives it, and its provenance when known.
    struct NamedList {
        var list: LoadedRuleList
        var label: String
        var provenance: [RuleProvenance]?
        /// The release the list is from, and its TDS (TDS rules, entities and surrogates).
        var release: String? = nil
        var tds: TrackerDataSet? = nil
        /// The surrogates its pages get, by tracker and TDS rule index (ReleaseSurrogates, as `diff` reads them).
        var surrogates: [TDSRuleID: String] = [:]
    }

    /// A release directory's lists (manifest order; those of `target` when it was given, else of the
    /// primary target, the click-to-load and cookie pop-up lists), or the one list of a file.
    static func loadLists(_ path: String, target: EngineProfile, explicitTarget: Bool, vendor: String?) throws
        -> [NamedList]
    {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
            guard ReleaseLists.isRelease(path) else {
                throw InputError("\(path): a directory, but not a release (no \(ReleaseFiles.manifest))")
            }
            let wanted = explicitTarget ? target.name : nil
            // The dataset the surrogates come from is decoded on a thread of its own while the lists load (it was a
            // third of a release's load); a list's error is still the one reported first.
            let found = Parallel.Background { Result { try ReleaseSurrogates.of(release: path) } }
            let lists =
                try vendor.map { try AdClickAttributionRelease.lists(release: path, target: wanted, vendor: $0) }
                ?? ReleaseLists.load(path, target: wanted).1
            let (tds, surrogates) = try found.join().get()
            for note in lists.compactMap({ $0.recompiledNote(release: path) }) { Console.note(note) }
            return lists.map {
                NamedList(
                    list: $0.list, label: $0.name, provenance: $0.provenance, release: path, tds: tds,
                    surrogates: surrogates)
            }
        }
        if vendor != nil { throw UsageError("--attributed-vendor goes with release directories, not \(path)") }
        let name = URL(fileURLWithPath: path).lastPathComponent
        // Mapped and read once: a compiled list is tens of megabytes, and reading it was a good part of the load.
        let list = try FileIO.withContents(path) { contents -> NamedList in
            func compiled() throws -> NamedList {
                NamedList(
                    list: try LoadedRuleList(RBCFile.load(buffer: contents, path: path)), label: name, provenance: nil)
            }
            if contents.starts(with: RBCFile.magic) { return try compiled() }
            let bytes = Array(contents)
            if let filterList = try filterList(bytes, name: name, target: target) { return filterList }
            if path.hasSuffix(".rbc") { return try compiled() }
            return NamedList(list: try loadList(json: bytes, path: path, target: target), label: name, provenance: nil)
        }
        return [list]
    }

    /// A filter list (`FilterListSide.isFilterList`), converted as `convert --filter-list` converts it, with its
    /// provenance (each rule's filter, list and line); nil for any other file.
    static func filterList(_ bytes: [UInt8], name: String, target: EngineProfile) throws -> NamedList? {
        guard FilterListSide.isFilterList(bytes) else { return nil }
        let side: FilterListSide
        do {
            side = FilterListSide(converting: try FilterListParser.parse(bytes, name: name), target: target)
        } catch { throw InputError("\(error)") }
        return NamedList(list: try side.compiled(), label: name, provenance: side.provenance)
    }

    /// A provenance file parallel to the list's rules (`radarblock convert --provenance`).
    static func readProvenance(_ path: String) throws -> [RuleProvenance] {
        do {
            return try RuleProvenance.decodeList(try FileIO.read(path), file: path)
        } catch let e as ProvenanceError {
            throw InputError(e.description)
        }
    }

    /// A rule list in JSON (the bytes of the file at `path`), compiled.
    static func loadList(json bytes: [UInt8], path: String, target: EngineProfile) throws -> LoadedRuleList {
        do {
            let list = try LoadedRuleList.compiling(
                json: bytes,
                options: .init(
                    name: RuleListIdentifier.defaultName(forPath: path),
                    parser: RuleListParserOptions(target: target)))
            if list.compiled.skippedRuleCount > 0 {
                Console.warning(
                    "\(path): \(list.compiled.skippedRuleCount) rule(s) skipped as WebKit skips them (run `radarblock"
                        + " validate` for details)"
                )
            }
            return list
        } catch let e as RuleListValidationError {
            throw InputError("\(path): " + (notARuleList(bytes, path: path) ?? e.description))
        }
    }

    /// A TDS or a privacy config given where a rule list goes: what it is, and what to run first.
    static func notARuleList(_ bytes: [UInt8], path: String) -> String? {
        guard bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{"),
            let top = try? JSONParser.parse(bytes), top.objectValue != nil
        else { return nil }
        if top["trackers"] != nil {
            return "this is a tracker data set, not a rule list: run 'radarblock convert --tds \(path) -o rules.json' "
                + "(or 'radarblock build') and match the rule list"
        }
        if top[TDSConventions.configTopLevelKey] != nil {
            return
                "this is a privacy configuration, not a rule list: it goes with --config to 'radarblock convert' or"
                + " 'radarblock build'"
        }
        return nil
    }
}
