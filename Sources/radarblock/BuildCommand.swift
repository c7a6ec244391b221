// radarblock build: the nightly job, from inputs to a verified release directory.

import ContentRules
import Foundation
import Pipeline
import RuleCompiler
import RuleBuilder
import TdsGenerator

struct BuildCommand: Command {
    static let name = "build"
    static let summary = "build a release directory (rules.json, rules.rbc, surrogates.js, manifest.json)"
    static var help: String { """
    usage: radarblock build (--tds FILE|URL | --radar DIR) [--config FILE|URL] [--surrogates FILE|URL]
                            [--unprotected FILE|URL] --out DIR [--force] [--previous DIR] [--if-changed] [--target NAME]...
                            [--fallback DIR] [--max-rules N] [--mode faithful|ddg] [--no-optimize] [--name NAME] [--strict] [--verify-webkit]
                            [--max-compile-regression PCT] [--no-compile-cost] [--per-tracker-exemptions]
                            [--cache DIR] [--timeout SECONDS] [--retries N] [--max-download-size BYTES]
                            [--entities DIR] [--policy FILE] [--mapping FILE] [--overrides FILE]
                            [--max-dfa-states N] [--max-dfa-mb N] [--max-total-dfa-states N] [--max-compile-seconds S]

    Writes the release into DIR atomically: the files are written into a temporary sibling directory which
    then replaces DIR in one rename. A failed or interrupted build leaves DIR exactly as it was.
    DIR is replaced only when it is absent, empty or a radarblock release (its manifest.json says so);
    anything else is refused unless --force is given. When DIR is a symbolic link (the layout
    `current -> releases/<identifier>`), it stays one: the new release is written beside the link's target as
    releases/<identifier> and the link is swapped to it in one rename; the old release stays where it was.
    A lock file (.radarblock-lock-<name> beside DIR) makes a second build of the same DIR fail at once.

    release files:
      rules.json            the WebKit content rule list (canonical, one rule per line)
      rules.rbc             the same list compiled to radarblock bytecode (see `radarblock inspect`)
      rules-N.json/.rbc     further lists when the rules exceed --max-rules or the target's rule limit (split by
                            tracker, never by index; the exceptions are repeated in every list so each one is
                            correct on its own)
      rules.T.json/.rbc, rules.T-N.json/.rbc
                            the list set of each further --target T (the first --target's lists are rules*.json);
                            manifest.json lists every list with its "target" and names the targets in "targets"
      ctl-<ruleAction>.json/.rbc/.provenance.json
                            one click-to-load list per supported rule action of the config's clickToLoad feature
                            (enabled, entity enabled, action listed): what that action blocks, which rules.json
                            does not block; an app leaves it out for a tab where the user clicked to load
      attribution.json/.rbc/.provenance.json, attribution-tds.json
                            the ad-click attribution list (config adClickAttribution enabled and naming a tracker):
                            the trackers its allowlist names, which rules.json leaves out, and the TDS it is built
                            from; manifest role "ad-click-attribution". See `radarblock attribution --help`
      cpm.json/.rbc/.provenance.json, cpm-script.json
                            the cookie pop-up list of a TDS v7/v8 (cpm.filterList, Adblock Plus element hiding),
                            manifest role "cpm", when the config's autoconsent feature and its filterlist
                            sub-feature are enabled (or without --config); cpm-script.json: the filters only the
                            script layer applies (appended to surrogates.js). See README, "TDS versions"
      provenance.json       where each rule of rules.json comes from
      surrogates.js         the surrogate bundle (with --surrogates; every body is parsed with JavaScriptCore, one
                            that does not parse is dropped and reported in issues.txt, an error with --strict);
                            it also reports every tracker request unless --no-report-trackers (see `surrogates --help`)
      issues.txt            every input problem and conversion issue, one per line (nothing is dropped silently)
      input-*.json/.txt     copies of the inputs, for fallbacks and diffs
      manifest.json         identifier, versions, each input's source, ETag, Last-Modified and sha256, each
                            output's sha256 and size, counts and compile figures, and `lists`: every rule
                            list in order (identifier, rules, rbc, ruleCount, sha256; click-to-load lists also
                            ruleAction, entity, provenance; the cookie pop-up list role, provenance, script)
      changes.md, changes.json   with --previous: what changed since that release (see `radarblock diff`), and
                            WebKit's compile cost against the previous release's (below)

    inputs:
      --tds FILE|URL        tracker data set; URLs are fetched with conditional requests (ETag) when --cache is set
      --radar DIR           build the TDS from a Tracker Radar checkout instead (see `radarblock tds`),
                            with --entities, --policy, --mapping and --overrides as for `radarblock tds`
      --config FILE|URL     privacy configuration v4
      --surrogates FILE|URL surrogates.txt
      --unprotected FILE|URL  user-unprotected sites, one host per line (each with its subdomains)
    options:
      --out DIR             the release directory to write (replaced as a whole), or a link to one
      --force               replace DIR even when it is neither empty nor a radarblock release
      --no-report-trackers  surrogates.js does not dispatch radarblock:tracker for every tracker request (by default
                            it does, and the manifest says so: counts.trackerReport); --report-trackers is accepted
                            and changes nothing
      --previous DIR        the previous release: write changes.md / changes.json against it. When WebKitGTK is
                            installed, also measure what WebKit pays to compile the new release: every list an app
                            compiles (rules*.json of the first target and the click-to-load lists), each in a fresh
                            `radarblock compile --engine webkit` process; the manifest records it as
                            "webkitCompileCost": {webkitVersion, seconds, cpuSeconds, memoryKB, bytes, lists: [{list,
                            seconds, cpuSeconds, memoryKB, bytes}]} (totals: time and size summed over the lists,
                            memory the largest list's; seconds = wall time of WebKit's compile inside the process,
                            cpuSeconds = its CPU time, memoryKB = peak RSS above a one-rule list's, bytes = WebKit's
                            file). Wall-clock figures, like webkitVerification. changes.md shows the change against
                            the previous release's recorded cost (or, when it recorded none for this WebKit version,
                            its lists compiled now). Without WebKitGTK nothing is measured; a list WebKit cannot
                            compile is a warning (with --max-compile-regression, the build fails)
      --max-compile-regression PCT  with --previous: fail the build (exit 1, nothing published: DIR, and the
                            `current` link, stay as they were) when the new release's WebKit compile time (CPU) or
                            peak memory is more than PCT percent above the previous release's; needs WebKitGTK.
                            A release over the limit is measured once more and judged by the cheaper of the two
                            runs (a busy machine only slows a compile); rises under 0.05 s CPU or 4 MiB never
                            count. Keep PCT above the measurement's noise (about 10% for CPU time)
      --no-compile-cost     with --previous: do not measure WebKit's compile cost
      --if-changed          with --previous: when every input is byte-identical to the previous release's (same
                            tool version and mode), do nothing, say so and exit 0
      --fallback DIR        when the build fails, retry as DuckDuckGo's apps do: the TDS of release DIR, then without
                            the config, the user's sites, the surrogates; the manifest records what was replaced or dropped
      --max-rules N         rules per list (default: the target's limit, 150000; safari-14: 50000)
    \(TargetHelp.option("repeatable: one list set per target, each split at that engine's rule limit; what the engine lacks is encoded equivalently (top-document as document + load-context top-frame) or the rule is left out and reported in issues.txt (--strict: the build fails)", indent: "  "))
      --mode MODE           faithful (default) or ddg (see `radarblock convert --help`)
      --no-optimize         skip the optimization stage (see `radarblock convert --help`); the manifest's
                            counts.optimized says which one a release had
      --per-tracker-exemptions
                            one same-entity exemption per tracker, none shared (see `radarblock convert --help`);
                            counts.perTrackerExemptions = 1 in the manifest
      --name NAME           identifier name (default "tds")
      --strict              any input problem or conversion issue fails the build
      --verify-webkit       also compile every list with WebKitGTK's own compiler (loaded at run time) and fail the
                            build if WebKit rejects one; the manifest records the WebKit version and compile times
                            (the only non-deterministic part of a manifest)
      --cache DIR           cache for downloaded inputs (conditional requests: If-None-Match / If-Modified-Since)
      --timeout SECONDS     per-request timeout for URLs, covering the whole body (default 30)
      --max-download-size BYTES  largest body accepted from a URL, counted after gzip/deflate decoding, with an
                            optional k, M or G suffix (powers of 1024; default 64M); a larger body fails the
                            build (component named) without retrying
      --retries N           retries for URLs with exponential backoff (default 3)

    \(BudgetOptions.help)
    A rule whose own automaton is over --max-dfa-states or --max-dfa-mb is dropped from the release and
    reported in issues.txt (with --strict the build fails instead); the rest of the list is built as usual.
    Over --max-total-dfa-states or --max-compile-seconds no single rule is to blame: the build fails.

    exit status: 0 built (or unchanged with --if-changed), 1 the build failed (the message names the component:
    tds, config, surrogates, unprotected, rules), 2 usage error.
    """ }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments.parse(arguments, options: [
            OptionSpec("--tds"), OptionSpec("--radar"), OptionSpec("--entities"), OptionSpec("--policy"),
            OptionSpec("--mapping"), OptionSpec("--overrides"), OptionSpec("--config"), OptionSpec("--surrogates"),
            OptionSpec("--unprotected"), OptionSpec("--out"), OptionSpec("--force", value: false), OptionSpec("--report-trackers", value: false), OptionSpec("--no-report-trackers", value: false), OptionSpec("--previous"), OptionSpec("--if-changed", value: false),
            OptionSpec("--fallback"), OptionSpec("--max-rules"), OptionSpec("--mode"), OptionSpec("--name"),
            OptionSpec("--strict", value: false), OptionSpec("--verify-webkit", value: false), OptionSpec("--no-optimize", value: false),
            OptionSpec("--per-tracker-exemptions", value: false), OptionSpec("--cache"), OptionSpec("--timeout"), OptionSpec("--retries"),
            OptionSpec("--max-download-size"), OptionSpec("--target", repeatable: true),
            OptionSpec("--max-compile-regression"), OptionSpec("--no-compile-cost", value: false),
        ] + BudgetOptions.specs)
        var options = BuildOptions(out: try args.required("--out"))
        options.tds = args.value("--tds")
        let radar = args.value("--radar")
        if options.tds != nil && radar != nil { throw UsageError("give either --tds or --radar, not both") }
        if options.tds == nil && radar == nil { throw UsageError("missing --tds FILE|URL (or --radar DIR)") }
        options.config = args.value("--config")
        options.surrogates = args.value("--surrogates")
        options.unprotected = args.value("--unprotected")
        options.previous = args.value("--previous")
        options.ifChanged = args.has("--if-changed")
        if options.ifChanged && options.previous == nil { throw UsageError("--if-changed needs --previous DIR") }
        options.fallback = args.value("--fallback")
        options.strict = args.has("--strict")
        options.force = args.has("--force")
        options.reportTrackers = try TrackerReportFlag.parse(args)
        options.optimize = !args.has("--no-optimize")
        options.sameEntity = args.has("--per-tracker-exemptions") ? .perTracker : .shared
        if args.has("--verify-webkit") { options.webKitVerifier = WebKitEngine.verifier }
        try parseCompileCost(args, into: &options)
        options.budget = try BudgetOptions.parse(args)
        if let n = args.value("--max-rules") {
            guard let v = Int(n), v > 0, v <= 150_000 else { throw UsageError("--max-rules must be between 1 and 150000") }
            options.maxRules = v
        }
        let targetNames = args.all("--target")
        if !targetNames.isEmpty {
            options.targets = try targetNames.map { name in
                guard let p = EngineProfile.named(name) else { throw UsageError("unknown --target \(name): use one of \(EngineProfile.names)") }
                return p
            }
            if Set(targetNames).count != targetNames.count { throw UsageError("--target given twice with the same name") }
        }
        if let m = args.value("--mode") {
            guard let mode = RuleBuildMode(rawValue: m) else { throw UsageError("--mode must be faithful or ddg, not \(m)") }
            options.mode = mode
        }
        if let name = args.value("--name") { options.name = name }
        options.fetch.cacheDirectory = args.value("--cache")
        if let t = args.value("--timeout") {
            guard let v = Double(t), v > 0 else { throw UsageError("--timeout must be a positive number of seconds") }
            options.fetch.timeout = v
        }
        if let size = args.value("--max-download-size") {
            guard let v = parseByteCount(size), v > 0 else {
                throw UsageError("--max-download-size must be a positive number of bytes, optionally with k, M or G, not \(size)")
            }
            options.fetch.maxBytes = v
        }
        if let r = args.value("--retries") {
            guard let v = Int(r), v >= 0 else { throw UsageError("--retries must be a whole number") }
            options.fetch.retries = v
        }

        let progress = ProgressLine()
        defer { progress.finish() }
        if let radar {
            progress.update("generating the TDS from \(radar)")
            options.generatedTDS = try TdsFromRadar.generate(directory: radar, entities: args.value("--entities"),
                                                             policy: args.value("--policy"), mapping: args.value("--mapping"),
                                                             overrides: args.value("--overrides"), strict: options.strict,
                                                             warn: Console.warning)
        }

        let outcome: BuildOutcome
        do {
            outcome = try ReleaseBuilder.run(options, progress: progress.update)
        } catch let e as BuildError {
            progress.finish()
            Console.error("build failed in component \(e.component): \(e.reason)")
            Console.note("radarblock: \(options.out) was left as it was")
            return ExitCode.failure
        }
        progress.finish()
        switch outcome {
        case .unchanged(let identifier):
            print("unchanged: every input is identical to \(options.previous!) (\(identifier)); nothing rebuilt")
        case .built(let manifest, let warnings):
            let shown = 20
            for w in warnings.prefix(shown) { Console.warning(w) }
            if warnings.count > shown {
                Console.warning("\(warnings.count - shown) more warnings in \(options.out)/\(ReleaseFiles.issues)")
            }
            let c = manifest.counts
            print("built \(manifest.identifier) in \(options.out): \(Int(c["trackers"] ?? 0)) trackers, \(Int(c["rules"] ?? 0)) rules in \(Int(c["lists"] ?? 1)) list(s)" + ((c["clickToLoadLists"] ?? 0) > 0 ? " + \(Int(c["clickToLoadLists"]!)) click-to-load list(s)" : "") + ", \(Int(c["surrogates"] ?? 0)) surrogates")
        }
        return ExitCode.success
    }

    /// "1048576", "512k", "64M", "1G" (powers of 1024).
    static func parseByteCount(_ text: String) -> Int? {
        let units: [Character: Int] = ["k": 1 << 10, "K": 1 << 10, "m": 1 << 20, "M": 1 << 20, "g": 1 << 30, "G": 1 << 30]
        var digits = Substring(text)
        var unit = 1
        if let last = text.last, let u = units[last] {
            unit = u
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let n = Int(digits) else { return nil }
        let (product, overflow) = n.multipliedReportingOverflow(by: unit)
        return overflow ? nil : product
    }
}

extension BuildCommand {
    /// --previous measures WebKit's compile cost unless --no-compile-cost; --max-compile-regression gates on it.
    static func parseCompileCost(_ args: ParsedArguments, into options: inout BuildOptions) throws {
        let noCost = args.has("--no-compile-cost")
        if let pct = args.value("--max-compile-regression") {
            guard let v = Double(pct), v.isFinite, v >= 0 else {
                throw UsageError("--max-compile-regression must be a percentage (a number >= 0), not \(pct)")
            }
            guard options.previous != nil else { throw UsageError("--max-compile-regression needs --previous DIR") }
            guard !noCost else { throw UsageError("--max-compile-regression needs the compile cost: drop --no-compile-cost") }
            options.maxCompileRegression = v
        }
        if options.previous != nil && !noCost { options.webKitCostMeter = WebKitEngine.costMeter }
    }
}
