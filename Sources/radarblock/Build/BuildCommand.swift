// radarblock build: the nightly job, from inputs to a verified release directory.

import ContentRules
import Foundation
import Release
import ReleaseBuild
import RuleBuilder
import RuleCompiler
import TDSGenerator

struct BuildCommand: Command {
    static let name = "build"
    static let summary =
        "build a release directory (rules.json, rules.rbc, \(ReleaseFiles.surrogatesJS), \(ReleaseFiles.manifest))"

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try parse(arguments)
        var (options, radar) = try inputs(args)
        try parseBehaviour(args, into: &options)
        try parseCompileCost(args, into: &options)
        try parseContentGates(args, into: &options)
        options.budget = try BudgetOptions.parse(args)
        try parseRulesAndTargets(args, into: &options)
        try parseFetch(args, into: &options.fetch)

        let progress = ProgressLine()
        defer { progress.finish() }
        if let radar {
            progress.update("generating the TDS from \(radar)")
            options.generatedTDS = try TDSFromRadar.generate(
                directory: radar, entities: args.value(Option.entities), policy: args.value(Option.policy),
                mapping: args.value(Option.mapping), overrides: args.value(Option.overrides), strict: options.strict,
                warn: Console.warning)
        }

        let outcome: BuildOutcome
        do {
            outcome = try ReleaseBuilder.run(options, progress: progress.update)
        } catch let e as BuildError {
            progress.finish()
            if e.component == .gate {
                Console.error("build refused by a gate: \(e.reason)")
            } else {
                Console.error("build failed in component \(e.component): \(e.reason)")
            }
            Console.note("radarblock: \(options.out) was left as it was")
            return e.component == .gate && args.has(Option.detailedExit) ? Exit.refused : ExitCode.failure
        }
        progress.finish()
        report(outcome, options: options)
        guard args.has(Option.detailedExit) else { return ExitCode.success }
        if case .unchanged = outcome { return Exit.unchanged }
        if case .built(let manifest, _) = outcome, manifest.inputs.values.contains(where: { $0.fallback != nil }) {
            return Exit.fromFallback
        }
        return ExitCode.success
    }

    /// The statuses `build --detailed-exit` adds to the common ones (0 built, 1 failed, 2 usage), which every
    /// command keeps by default; scripts/nightly.sh passes them on.
    enum Exit {
        static let unchanged: Int32 = 3
        static let fromFallback: Int32 = 4
        static let refused: Int32 = 5
    }

    /// The output directory and the inputs; the Tracker Radar directory when the TDS is to be generated from it.
    static func inputs(_ args: ParsedArguments) throws -> (BuildOptions, radar: String?) {
        guard let out = args.value(Option.output) else { throw UsageError("missing --out DIR (or -o DIR)") }
        var options = BuildOptions(out: out)
        options.tds = args.value(Option.tds)
        let radar = args.value(Option.radar)
        if options.tds != nil && radar != nil { throw UsageError("give either --tds or --radar, not both") }
        if options.tds == nil && radar == nil { throw UsageError("missing --tds FILE|URL (or --radar DIR)") }
        options.config = args.value(Option.config)
        options.surrogates = args.value(Option.surrogates)
        options.unprotected = args.value(Option.unprotected)
        options.previous = args.value(Option.previous)
        return (options, radar)
    }

    /// The switches: --if-changed, --fallback, --strict, --force, tracker reports, optimization, --verify-webkit.
    static func parseBehaviour(_ args: ParsedArguments, into options: inout BuildOptions) throws {
        options.ifChanged = args.has(Option.ifChanged)
        if options.ifChanged && options.previous == nil { throw UsageError("--if-changed needs --previous DIR") }
        options.fallback = args.value(Option.fallback)
        options.strict = args.has(Option.strict)
        options.force = args.has(Option.force)
        options.reportTrackers = try TrackerReportFlag.parse(args, off: Option.noReportTrackers)
        options.optimize = !args.has(Option.noOptimize)
        options.sameEntity =
            args.has(Option.perTrackerExemptions) ? .perTracker : args.has(Option.singleList) ? .shared : .entityLists
        if args.has(Option.verifyWebkit) { options.webKitVerifier = WebKitEngine.verifier }
    }

    /// --max-rules, --target (repeatable, each once), --mode and --name.
    static func parseRulesAndTargets(_ args: ParsedArguments, into options: inout BuildOptions) throws {
        if let n = args.value(Option.maxRules) {
            guard let v = Int(n), v > 0, v <= EngineProfile.webKitRuleLimit else {
                throw UsageError("--max-rules must be between 1 and \(EngineProfile.webKitRuleLimit)")
            }
            options.maxRules = v
        }
        let targetNames = args.all(Option.target)
        if !targetNames.isEmpty {
            options.targets = try targetNames.map { try EngineProfile.named($0, option: Option.target) }
            if Set(targetNames).count != targetNames.count {
                throw UsageError("--target given twice with the same name")
            }
        }
        if let m = args.value(Option.mode) {
            guard let mode = RuleBuildMode(rawValue: m) else {
                throw UsageError("--mode must be faithful or ddg, not \(m)")
            }
            options.mode = mode
        }
        if let name = args.value(Option.name) { options.name = name }
    }

    /// How URL inputs are fetched: --cache, --timeout, --max-download-size, --retries.
    static func parseFetch(_ args: ParsedArguments, into fetch: inout FetchOptions) throws {
        fetch.cacheDirectory = args.value(Option.cache)
        if let t = args.value(Option.timeout) {
            guard let v = Double(t), v > 0 else { throw UsageError("--timeout must be a positive number of seconds") }
            fetch.timeout = v
        }
        if let size = args.value(Option.maxDownloadSize) {
            guard let v = parseByteCount(size), v > 0 else {
                throw UsageError(
                    "--max-download-size must be a positive number of bytes, optionally with k, M or G, not \(size)")
            }
            fetch.maxBytes = v
        }
        if let r = args.value(Option.retries) {
            guard let v = Int(r), v >= 0 else { throw UsageError("--retries must be a whole number") }
            fetch.retries = v
        }
    }

    /// The build's warnings (the first 20, then where the rest are) and its one-line summary on stdout.
    static func report(_ outcome: BuildOutcome, options: BuildOptions) {
        switch outcome {
        case .unchanged(let identifier):
            print("unchanged: every input is identical to \(options.previous!) (\(identifier)); nothing rebuilt")
        case .built(let manifest, let warnings):
            let shown = 20
            for w in warnings.prefix(shown) { Console.warning(w) }
            if warnings.count > shown {
                Console.warning("\(warnings.count - shown) more warnings in \(options.out)/\(ReleaseFiles.issues)")
            }
            print(summary(manifest, out: options.out))
        }
    }

    /// "built ID in DIR: N trackers, N rules in N list(s)[ + N click-to-load list(s)], N surrogates".
    static func summary(_ manifest: Manifest, out: String) -> String {
        let c = manifest.counts
        let count = { (key: ManifestCount, absent: Double) in Int(c[key] ?? absent) }
        let clickToLoad = count(.clickToLoadLists, 0)
        return "built \(manifest.identifier) in \(out): \(count(.trackers, 0)) trackers, "
            + "\(count(.rules, 0)) rules in \(listsPerTarget(manifest) ?? "\(count(.lists, 1)) list(s)")"
            + (clickToLoad > 0 ? " + \(clickToLoad) click-to-load list(s)" : "")
            + ", \(count(.surrogates, 0)) surrogates"
    }

    /// "1 list(s) (safari-17) + 1 list(s) (webkitgtk-2.50)" for a release of several targets (the rules
    /// counted are the first target's); nil for one target.
    static func listsPerTarget(_ manifest: Manifest) -> String? {
        guard manifest.targets.count > 1 else { return nil }
        return manifest.targets.map { target in
            "\(manifest.lists(for: target).filter { $0.role == .main }.count) list(s) (\(target))"
        }.joined(separator: " + ")
    }

    /// "1048576", "512k", "64M", "1G" (powers of 1024).
    static func parseByteCount(_ text: String) -> Int? {
        let units: [Character: Int] = [
            "k": 1 << 10, "K": 1 << 10, "m": 1 << 20, "M": 1 << 20, "g": 1 << 30, "G": 1 << 30,
        ]
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
        let noCost = args.has(Option.noCompileCost)
        if let pct = args.value(Option.maxCompileRegression) {
            guard let v = Double(pct), v.isFinite, v >= 0 else {
                throw UsageError("--max-compile-regression must be a percentage (a number >= 0), not \(pct)")
            }
            guard options.previous != nil else { throw UsageError("--max-compile-regression needs --previous DIR") }
            guard !noCost else {
                throw UsageError("--max-compile-regression needs the compile cost: drop --no-compile-cost")
            }
            options.maxCompileRegression = v
        }
        if options.previous != nil && !noCost { options.webKitCostMeter = WebKitEngine.costMeter }
    }

    /// --max-tracker-removal PCT and --max-newly-allowed N, the content gates of --previous.
    static func parseContentGates(_ args: ParsedArguments, into options: inout BuildOptions) throws {
        if let pct = args.value(Option.maxTrackerRemoval) {
            guard let v = Double(pct), v.isFinite, v >= 0, v <= 100 else {
                throw UsageError("--max-tracker-removal must be a percentage between 0 and 100, not \(pct)")
            }
            guard options.previous != nil else { throw UsageError("--max-tracker-removal needs --previous DIR") }
            options.contentGates.maxTrackerRemovalPercent = v
        }
        if let n = args.value(Option.maxNewlyAllowed) {
            guard let v = Int(n), v >= 0 else {
                throw UsageError("--max-newly-allowed must be a whole number of requests, not \(n)")
            }
            guard options.previous != nil else { throw UsageError("--max-newly-allowed needs --previous DIR") }
            options.contentGates.maxNewlyAllowed = v
        }
    }
}
