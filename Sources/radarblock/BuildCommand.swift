// radarblock build: the nightly job, from inputs to a verified release directory.

import Foundation
import Pipeline
import RuleBuilder
import TdsGenerator

struct BuildCommand: Command {
    static let name = "build"
    static let summary = "build a release directory (rules.json, rules.rbc, surrogates.js, manifest.json)"
    static let help = """
    usage: radarblock build (--tds FILE|URL | --radar DIR) [--config FILE|URL] [--surrogates FILE|URL]
                            [--unprotected FILE|URL] --out DIR [--previous DIR] [--if-changed]
                            [--fallback DIR] [--max-rules N] [--mode faithful|ddg] [--name NAME] [--strict] [--verify-webkit]
                            [--cache DIR] [--timeout SECONDS] [--retries N]
                            [--entities DIR] [--policy FILE] [--mapping FILE] [--overrides FILE]

    Writes the release into DIR atomically: the files are written into a temporary sibling directory which
    then replaces DIR in one rename. A failed or interrupted build leaves DIR exactly as it was.

    release files:
      rules.json            the WebKit content rule list (canonical, one rule per line)
      rules.rbc             the same list compiled to radarblock bytecode (see `radarblock inspect`)
      rules-N.json/.rbc     further lists when the rules exceed --max-rules (split by tracker, never by index;
                            the exceptions are repeated in every list so each one is correct on its own)
      ctl-<ruleAction>.json/.rbc/.provenance.json
                            one click-to-load list per supported rule action of the config's clickToLoad feature
                            (enabled, entity enabled, action listed): what that action blocks, which rules.json
                            does not block; an app leaves it out for a tab where the user clicked to load
      provenance.json       where each rule of rules.json comes from
      surrogates.js         the surrogate bundle (with --surrogates)
      issues.txt            every input problem and conversion issue, one per line (nothing is dropped silently)
      input-*.json/.txt     copies of the inputs, for fallbacks and diffs
      manifest.json         identifier, versions, each input's source, ETag, Last-Modified and sha256, each
                            output's sha256 and size, counts and compile figures, and `lists`: every rule
                            list in order (identifier, rules, rbc, ruleCount, sha256; click-to-load lists also
                            ruleAction, entity, provenance)
      changes.md, changes.json   with --previous: what changed since that release (see `radarblock diff`)

    inputs:
      --tds FILE|URL        tracker data set; URLs are fetched with conditional requests (ETag) when --cache is set
      --radar DIR           build the TDS from a Tracker Radar checkout instead (see `radarblock tds`),
                            with --entities, --policy, --mapping and --overrides as for `radarblock tds`
      --config FILE|URL     privacy configuration v4
      --surrogates FILE|URL surrogates.txt
      --unprotected FILE|URL  user-unprotected sites, one host per line (each with its subdomains)
    options:
      --out DIR             the release directory to write (replaced as a whole)
      --previous DIR        the previous release: write changes.md / changes.json against it
      --if-changed          with --previous: when every input is byte-identical to the previous release's (same
                            tool version and mode), do nothing, say so and exit 0
      --fallback DIR        when the build fails, retry as DuckDuckGo's apps do: the TDS of release DIR, then without
                            the config, the user's sites, the surrogates; the manifest records what was replaced or dropped
      --max-rules N         rules per list (default 150000, WebKit's limit; older Safari: 50000)
      --mode MODE           faithful (default) or ddg (see `radarblock convert --help`)
      --name NAME           identifier name (default "tds")
      --strict              any input problem or conversion issue fails the build
      --verify-webkit       also compile every list with WebKitGTK's own compiler (loaded at run time) and fail the
                            build if WebKit rejects one; the manifest records the WebKit version and compile times
                            (the only non-deterministic part of a manifest)
      --cache DIR           cache for downloaded inputs (conditional requests: If-None-Match / If-Modified-Since)
      --timeout SECONDS     per-request timeout for URLs (default 30)
      --retries N           retries for URLs with exponential backoff (default 3)

    exit status: 0 built (or unchanged with --if-changed), 1 the build failed (the message names the component:
    tds, config, surrogates, unprotected, rules), 2 usage error.
    """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments.parse(arguments, options: [
            OptionSpec("--tds"), OptionSpec("--radar"), OptionSpec("--entities"), OptionSpec("--policy"),
            OptionSpec("--mapping"), OptionSpec("--overrides"), OptionSpec("--config"), OptionSpec("--surrogates"),
            OptionSpec("--unprotected"), OptionSpec("--out"), OptionSpec("--previous"), OptionSpec("--if-changed", value: false),
            OptionSpec("--fallback"), OptionSpec("--max-rules"), OptionSpec("--mode"), OptionSpec("--name"),
            OptionSpec("--strict", value: false), OptionSpec("--verify-webkit", value: false), OptionSpec("--cache"), OptionSpec("--timeout"), OptionSpec("--retries"),
        ])
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
        options.verifyWebKit = args.has("--verify-webkit")
        if let n = args.value("--max-rules") {
            guard let v = Int(n), v > 0, v <= 150_000 else { throw UsageError("--max-rules must be between 1 and 150000") }
            options.maxRules = v
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
}
