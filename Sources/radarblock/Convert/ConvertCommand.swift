// radarblock convert: TDS (+ privacy config, + user-unprotected sites) -> a WebKit content rule list.

import ContentRules
import Conversion
import FileIO
import FilterLists
import Provenance
import Release
import RuleBuilder
import StrictJSON
import TrackerData

struct ConvertCommand: Command {
    static let name = "convert"
    static let summary = "convert a TDS (+ config) into a WebKit content rule list"
    /// The command's options: its grammar lists them and `run` reads them, so a key is spelled once.
    enum Option {
        static let tds = OptionSpec("--tds", value: "FILE", help: "tracker data set (TDS v5 JSON)")
        static let config = OptionSpec(
            "--config", value: "FILE",
            help: """
                privacy configuration v4 (temp list: unprotectedTemporary + contentBlocking exceptions;
                tracker allowlist and request blocklist when their state is "enabled"; a contentBlocking
                state other than "enabled" gives one rule that blocks nothing). Click-to-load rules
                (block-ctl-*) never block in this list: `radarblock build` writes their own lists
                """)
        static let unprotected = OptionSpec(
            "--unprotected", value: "FILE",
            help: "user-unprotected sites, one host per line, each with its subdomains (# comments)")
        static let mode = OptionSpec("--mode", value: "MODE", help: "faithful (default) or ddg")
        static let provenance = OptionSpec(
            "--provenance", value: "FILE",
            help: #"""
                also write where each rule comes from: a JSON array parallel to the rules (element i
                describes rule i), one object per line:
                  {"source":"tds","tracker":"a.com","rule":3,"role":"block host"}
                    rule: the index in the tracker's TDS rules, or "default", "entity", "popup";
                    role (faithful): block / ignore / exception / reset / same-entity, and the
                    url-filter form ("host": the rule's host part aligned with the request host;
                    "in-url": the regex found later in the URL; "host+in-url": both forms in one
                    url-filter, see --no-optimize); "cname": the alias host for rules
                    of a CNAME-cloaked tracker
                  {"source":"temp-list"}  {"source":"user-unprotected"}  {"source":"top-level"}
                  {"source":"allowlist","tracker":"a.com","index":2,"allowlistRule":"a.com/x.js"}
                  {"source":"requestBlocklist","tracker":"a.com","index":0,"name":"requestBlocklist/a.com/0"}
                  {"source":"feature-state","role":"contentBlocking \"disabled\""}
                  {"source":"tds","rule":"entity","role":"same-entity","entity":"E"}  the shared exemption
                """#)
        static let strict = OptionSpec(
            "--strict",
            help: """
                any problem (an input field the decoders would skip, a TDS rule WebKit cannot
                express, ...) is an error: exit 1 and write nothing (default: warnings on stderr)
                """)
        static let noOptimize = OptionSpec(
            "--no-optimize",
            help: """
                skip the optimization stage. By default the list is rewritten into one WebKit decides
                identically for every load but compiles with less work: a rule's host-form and in-URL-form
                url-filters (adjacent, same action and conditions) become one filter matching their union
                """)
        static let perTrackerExemptions = OptionSpec(
            "--per-tracker-exemptions",
            help: """
                faithful mode: one same-entity exemption per tracker, none shared (the encoding before
                the shared exemption: same decisions, larger list; for equivalence checks)
                """)
        static let cpm = OptionSpec(
            "--cpm", value: "FILE",
            help: """
                also write the cookie pop-up list of a TDS v7/v8 (`cpm.filterList`, Adblock Plus element
                hiding) as its own rule list, as `build` writes \(ReleaseFiles.cookiePopupRules) (absent when the\
                 config's
                autoconsent feature or its filterlist sub-feature is not enabled); its lines that cannot
                be used are warnings (--strict: a malformed line is an error). Without --cpm, a TDS with
                a cookie pop-up list gets a note that this output leaves it out
                """)
        static let filterList = FilterListConvert.option
        static let output = OptionSpec.output(#"output file, "-" for stdout (default); written atomically"#)
        static let target = OptionSpec.target(
            "the list is written for that engine: what it lacks is encoded equivalently (top-document as document +"
                + " load-context top-frame) or the rule is left out and reported [unexpressible-on-target] (--strict:"
                + " exit 1); more rules than its limit is an error (build splits)",
            default: .portable)
    }

    static let grammar = CommandGrammar(
        forms: [
            "--tds FILE [--config FILE] [--unprotected FILE] [--mode faithful|ddg]",
            "--tds FILE [--provenance FILE] [--strict] [--target NAME] [--no-optimize] [--per-tracker-exemptions]"
                + " [--cpm FILE] [-o OUT]",
            "--filter-list FILE [--filter-list FILE]... [--target NAME] [--provenance FILE] [-o OUT]",
        ],
        parts: [
            .text(
                """
                Writes the rule list as canonical JSON (one rule per line), ready for WKContentRuleListStore.

                modes:
                  faithful (default)  WebKit does what the TDS means: the first matching TDS rule wins, options that\
                 do not
                                      match fall through, exceptions apply only where their rule matched, ports are\
                 ignored,
                                      CNAME-cloaked requests are judged by the real tracker's rules, same-entity\
                 requests are
                                      first party, the longest tracker host wins, and the temp list, user-unprotected\
                 sites
                                      and tracker allowlist override everything. Top-level documents and popups are\
                 never
                                      blocked. Site conditions judge the page's own host (anchored if-top-url /
                                      unless-top-url, not if-domain, which WebKit also applies to a site named later in
                                      the page's URL). The entity whose same-entity exemptions would name the most sites
                                      leads the list with one shared exemption, so that an entity with thousands of\
                 tracker
                                      domains costs trackers + sites conditions, not trackers x sites.
                  ddg                 DuckDuckGo's TrackerRadarKit algorithm, rule for rule (only the order across\
                 trackers
                                      differs: TrackerRadarKit's is random, ours is sorted), with its known gaps.\
                 Rules WebKit
                                      would reject are repaired when exact, else left out, and reported.
                """),
            .options(
                "options",
                [
                    Option.tds,
                    Option.config,
                    Option.unprotected,
                    Option.mode,
                    Option.provenance,
                    Option.strict,
                    Option.noOptimize,
                    Option.perTrackerExemptions,
                    Option.cpm,
                    Option.filterList,
                    Option.output,
                    Option.target,
                ]),
        ])

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try parse(arguments)
        let target = try args.target(Option.target, default: .portable)
        let lists = args.all(Option.filterList)
        if !lists.isEmpty { return try FilterListConvert.run(lists, args, target: target) }
        let tdsPath = try args.required(Option.tds)
        let strict = args.has(Option.strict)
        let output = args.value(Option.output) ?? "-"
        let modeName = args.value(Option.mode) ?? RuleBuildMode.faithful.rawValue
        guard let mode = RuleBuildMode(rawValue: modeName) else {
            throw UsageError("--mode must be faithful or ddg, not \(modeName)")
        }

        // Decoders throw the first problem in strict mode; otherwise they report and skip.
        let configPath = args.value(Option.config)
        let unprotectedPath = args.value(Option.unprotected)
        let inputs = try ConversionInputs.load(
            tdsPath: tdsPath, configPath: configPath, unprotectedPath: unprotectedPath, strict: strict)
        inputs.issues.forEach { Console.warning($0.description) }
        let (tds, tdsIssues, config, unprotected) = (inputs.tds, inputs.tdsIssues, inputs.config, inputs.unprotected)

        let conversion = Conversion.convert(
            tds: tds, config: config, unprotected: unprotected, decodeIssues: tdsIssues,
            options: ConversionOptions(
                mode: mode, sameEntity: args.has(Option.perTrackerExemptions) ? .perTracker : .shared,
                optimize: !args.has(Option.noOptimize), target: target,
                cookiePopups: args.value(Option.cpm).map { _ in target }))
        let (result, optimization) = (conversion.result, conversion.optimization)

        func describe(_ issue: ConversionIssue) -> String {
            switch issue.location {
            case .tds(let p): return "\(tdsPath): \(p): \(issue.message) [\(issue.kind.rawValue)]"
            case .config(let p): return "\(configPath ?? "config"): \(p): \(issue.message) [\(issue.kind.rawValue)]"
            case .unprotected:
                return "\(unprotectedPath ?? "unprotected sites"): \(issue.message) [\(issue.kind.rawValue)]"
            case .output: return "\(output == "-" ? "output" : output): \(issue.message) [\(issue.kind.rawValue)]"
            }
        }
        // An output WebKit would reject is never written.
        if let fatal = result.issues.first(where: { $0.kind == .output }) {
            throw InputError(describe(fatal))
        }
        if strict, let first = result.issues.first {
            throw InputError(
                describe(first) + (result.issues.count > 1 ? " (and \(result.issues.count - 1) more)" : ""))
        }
        result.issues.forEach { Console.warning(describe($0)) }

        let bytes = CanonicalRuleWriter.bytes(result.rules)
        do {
            try target.checkGenerated(bytes, ruleCount: result.rules.count)
        } catch {
            throw InputError("\(tdsPath): the conversion is not expressible for \(target.name): \(error)")
        }
        if let path = args.value(Option.provenance) {
            try FileIO.write(RuleProvenance.listBytes(result.provenance), to: path)
        }
        try writeCookiePopups(
            conversion.cookiePopups, tds: tds, target: target, to: args.value(Option.cpm), strict: strict)
        try FileIO.write(bytes, to: output)
        if output != "-" {
            Console.note(
                "convert (\(mode.rawValue)): \(tds.trackers.count) trackers, \(tds.cnames.count) CNAME aliases -> "
                    + "\(result.rules.count) rules, \(bytes.count) bytes -> \(output)"
                    + (optimization.rulesIn == optimization.rulesOut
                        ? "" : " (optimized from \(optimization.rulesIn) rules)")
                    + (result.issues.isEmpty ? "" : " (\(result.issues.count) warnings)"))
        }
        return ExitCode.success
    }

    /// `--cpm FILE`: the cookie pop-up list; without it, a note when the TDS has one.
    static func writeCookiePopups(
        _ converted: CookiePopupList?, tds: TrackerDataSet, target: EngineProfile, to path: String?, strict: Bool
    ) throws {
        guard let path else {
            if tds.cookiePopupFilterList != nil {
                Console.note(
                    "the TDS has a cookie pop-up list (cpm), which this output leaves out: give --cpm FILE, or `build`"
                        + " writes \(ReleaseFiles.cookiePopupRules)"
                )
            }
            return
        }
        guard let list = converted else {
            throw InputError(
                tds.cookiePopupFilterList == nil
                    ? "--cpm: the TDS has no cookie pop-up list (cpm.filterList)"
                    : "--cpm: the config turns the cookie pop-up list off (autoconsent or its filterlist sub-feature"
                        + " is not enabled)"
            )
        }
        if strict, let bad = list.issues.first(where: { $0.kind == .malformed }) { throw InputError(bad.description) }
        list.issues.forEach { Console.warning("cookie pop-ups: \($0)") }
        if !list.scripted.isEmpty {
            Console.warning(
                "cookie pop-ups: \(list.scripted.count) filter(s) need the script layer, which `build --surrogates`"
                    + " appends to \(ReleaseFiles.surrogatesJS); not in \(path)"
            )
        }
        let bytes = CanonicalRuleWriter.bytes(list.rules)
        try target.checkGenerated(bytes, ruleCount: list.rules.count)
        try FileIO.write(bytes, to: path)
    }
}
