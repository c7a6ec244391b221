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

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try parse(arguments)
        guard let out = args.value("--output") else { throw UsageError("missing --out DIR (or -o DIR)") }
        var options = BuildOptions(out: out)
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
            print("built \(manifest.identifier) in \(options.out): \(Int(c[.trackers] ?? 0)) trackers, \(Int(c[.rules] ?? 0)) rules in \(Int(c[.lists] ?? 1)) list(s)" + ((c[.clickToLoadLists] ?? 0) > 0 ? " + \(Int(c[.clickToLoadLists]!)) click-to-load list(s)" : "") + ", \(Int(c[.surrogates] ?? 0)) surrogates")
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
