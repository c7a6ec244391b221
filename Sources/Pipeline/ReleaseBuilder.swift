// `radarblock build`: the nightly job. Inputs (files or URLs) -> TDS -> WebKit rules (split when over the
// limit) -> compiled .rbc lists -> surrogate bundle -> manifest (+ changes against the previous release),
// published atomically. Every stage is a pure function of the inputs, so two builds from the same inputs
// are byte-identical. A failure names the component that broke; with a fallback release, the build
// follows DuckDuckGo's ladder (previous TDS, then drop the allowlist, the temp list, the user's sites) and
// records what it did in the manifest.

import ContentRules
import Digest
import FileIO
import Foundation
import RuleBuilder
import RuleCompiler
import RuleDiff
import StrictJSON
import Surrogates
import TrackerData

public struct BuildOptions: Sendable {
    public var tds: String?
    /// A TDS produced by the caller (e.g. generated from Tracker Radar files) instead of `tds`.
    public var generatedTDS: (bytes: [UInt8], source: String)?
    public var config: String?
    public var surrogates: String?
    public var unprotected: String?
    public var out: String
    public var previous: String?
    public var ifChanged = false
    public var fallback: String?
    public var maxRules = RuleBuilder.maximumRuleCount
    /// The engines the release is for, the first one primary (rules.json, ...); one list set per target,
    /// each split at min(maxRules, the target's rule limit).
    public var targets: [EngineProfile] = [.default]
    public var mode: RuleBuildMode = .faithful
    /// Run the optimization stage (RuleListOptimizer); `--no-optimize` turns it off.
    public var optimize = true
    /// Faithful mode's same-entity exemptions; `--per-tracker-exemptions` gives the encoding without a shared one.
    public var sameEntity: SameEntityEncoding = .shared
    public var name = "tds"
    public var strict = false
    /// Compile every list with WebKitGTK too and fail the build if WebKit rejects one (`--verify-webkit`).
    public var webKitVerifier: WebKitVerifier? = nil
    /// With `previous`: WebKit's compile cost of the new release (and of the previous one when its manifest
    /// recorded none), recorded in the manifest and shown in changes.md. Nil, or a meter that cannot load
    /// WebKitGTK: nothing is measured.
    public var webKitCostMeter: WebKitCostMeter? = nil
    /// `--max-compile-regression PCT`: fail, publishing nothing, when the new release's WebKit compile time (CPU)
    /// or peak memory is more than PCT% above the previous release's.
    public var maxCompileRegression: Double? = nil
    /// Replace --out even when it is neither empty nor a radarblock release.
    public var force = false
    /// surrogates.js also reports every tracker request (`radarblock:tracker`, the default; --no-report-trackers
    /// leaves it out); manifest counts.trackerReport = 1.
    public var reportTrackers = true
    public var fetch = FetchOptions()
    /// Limits of the compiled automata; a rule whose own automaton is over them is dropped (and reported).
    public var budget = CompileBudget()

    public init(out: String) { self.out = out }
}

public enum BuildOutcome: Sendable {
    case built(Manifest, warnings: [String])
    /// `--if-changed` found every input unchanged since the previous release.
    case unchanged(identifier: String)
}

public struct BuildError: Error, CustomStringConvertible {
    /// The input that broke the build: "tds", "config", "surrogates", "unprotected", or "rules" (the list as a whole).
    public let component: String
    public let reason: String
    public var description: String { "\(component): \(reason)" }
}

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

    /// The click-to-load list of a rule action, its bytecode and its provenance.
    public static func clickToLoadRules(_ ruleAction: String) -> String { "ctl-\(ruleAction).json" }
    public static func clickToLoadRBC(_ ruleAction: String) -> String { "ctl-\(ruleAction).rbc" }
    public static func clickToLoadProvenance(_ ruleAction: String) -> String { "ctl-\(ruleAction).provenance.json" }

    /// Part n (1-based) of a split list: rules.json, rules-2.json, ...
    public static func rules(part n: Int) -> String { n == 1 ? rules : "rules-\(n).json" }
    public static func rbc(part n: Int) -> String { n == 1 ? rbc : "rules-\(n).rbc" }
    /// The list files of a further target (not the primary one): rules.<target>.json, rules.<target>-2.json, ...
    public static func rules(part n: Int, target: String) -> String { "rules.\(target)" + (n == 1 ? "" : "-\(n)") + ".json" }
    public static func rbc(part n: Int, target: String) -> String { "rules.\(target)" + (n == 1 ? "" : "-\(n)") + ".rbc" }
}

/// Everything the pure part of the build needs, already fetched.
struct BuildInputs {
    var tds: (bytes: [UInt8], record: InputRecord)
    var config: (bytes: [UInt8], record: InputRecord)?
    var surrogates: (bytes: [UInt8], record: InputRecord)?
    var unprotected: (bytes: [UInt8], record: InputRecord)?
}

/// The products of a build, before publishing.
struct BuildProducts {
    var files: [(name: String, bytes: [UInt8])] = []
    var manifest: Manifest
    var warnings: [String] = []
    var tds: TrackerDataSet
    var rules: [ContentRule]
    var provenance: [RuleProvenance]
    var compiled: [CompiledRuleList] = []
}

public enum ReleaseBuilder {
    public typealias Progress = (String) -> Void

    public static func run(_ options: BuildOptions, progress: Progress = { _ in }) throws -> BuildOutcome {
        // Refuse early: before any download, and while holding the lock for the whole build.
        let lock = try ReleaseDirectory.lock(options.out)
        defer { withExtendedLifetime(lock) {} }
        try ReleaseDirectory.preflight(options.out, force: options.force)
        progress("fetching inputs")
        var inputs = try fetchInputs(options)

        let previousManifest = try options.previous.map { try loadManifest(release: $0) }
        if options.ifChanged, let prev = previousManifest, isUnchanged(inputs, options: options, previous: prev) {
            return .unchanged(identifier: prev.identifier)
        }

        var fallbackNotes: [String] = []
        var products: BuildProducts
        do {
            products = try produce(inputs, options: options, progress: progress)
        } catch let failure as BuildError {
            guard let fallback = options.fallback else { throw failure }
            (products, inputs, fallbackNotes) = try climbFallbackLadder(after: failure, inputs: inputs, fallback: fallback,
                                                                       options: options, progress: progress)
        }
        products.warnings += fallbackNotes

        if let previous = options.previous {
            // Before anything is published: over --max-compile-regression this throws. Without a gate the cost
            // is information only, and a list WebKit cannot compile is --verify-webkit's business: warn.
            var costs: (ReleaseCompileCost, CompileCostChange)? = nil
            do {
                costs = try measureCompileCost(products, previous: previous, previousManifest: previousManifest,
                                               options: options, progress: progress)
            } catch where options.maxCompileRegression == nil {
                products.warnings.append("WebKit compile cost not measured: \(error)")
            }
            products.manifest.webKitCompileCost = costs?.0.jsonValue
            progress("comparing with \(previous)")
            // The new release as a later diff reads it, from the files about to be published.
            let lists = try ReleaseLists.lists(of: products.manifest, files: .products(products.files))
            let changes = try ReleaseChanges.compare(previousRelease: previous, newManifest: products.manifest, newTDS: products.tds,
                                                     newRules: products.rules, newProvenance: products.provenance, newLists: lists,
                                                     newFiles: .products(products.files))
            var json = try changes.json()
            if let change = costs?.1, case .object(var o) = json {
                o["webkitCompileCost"] = change.jsonValue
                json = .object(o)
            }
            products.files.append((ReleaseFiles.changesMarkdown, Array(try changes.markdown(compileCost: costs?.1).utf8)))
            products.files.append((ReleaseFiles.changesHTML, Array(try changes.html(compileCost: costs?.1).utf8)))
            products.files.append((ReleaseFiles.changesJSON, JSONWriter.bytes(json, options: []) + [0x0A]))
        }
        products.files.append((ReleaseFiles.manifest, products.manifest.bytes()))
        progress("publishing \(options.out)")
        try ReleaseDirectory.publish(products.files, to: options.out, releaseName: products.manifest.identifier, force: options.force)
        return .built(products.manifest, warnings: products.warnings)
    }

    // MARK: inputs

    static func fetchInputs(_ options: BuildOptions) throws -> BuildInputs {
        func fetch(_ source: String, component: String) throws -> ([UInt8], InputRecord) {
            do {
                let f = try InputFetcher.fetch(source, options: options.fetch)
                return (f.bytes, InputRecord(f))
            } catch {
                throw BuildError(component: component, reason: String(describing: error))
            }
        }
        let tds: ([UInt8], InputRecord)
        if let generated = options.generatedTDS {
            tds = (generated.bytes, InputRecord(source: generated.source, etag: nil, lastModified: nil,
                                                sha256: Digest.hex(.sha256, generated.bytes), bytes: generated.bytes.count))
        } else if let source = options.tds {
            tds = try fetch(source, component: "tds")
        } else {
            throw BuildError(component: "tds", reason: "no TDS given (--tds FILE|URL or --radar DIR)")
        }
        return BuildInputs(tds: tds,
                           config: try options.config.map { try fetch($0, component: "config") },
                           surrogates: try options.surrogates.map { try fetch($0, component: "surrogates") },
                           unprotected: try options.unprotected.map { try fetch($0, component: "unprotected") })
    }

    static func loadManifest(release: String) throws -> Manifest {
        let path = release + "/" + ReleaseFiles.manifest
        do {
            return try Manifest.parse(try FileIO.read(path))
        } catch {
            throw BuildError(component: "previous", reason: "\(path): \(error)")
        }
    }

    /// Unchanged = same input bytes, same tool, same options that shape the output.
    static func isUnchanged(_ inputs: BuildInputs, options: BuildOptions, previous: Manifest) -> Bool {
        guard previous.toolVersion == ToolVersion.current, previous.mode == options.mode.rawValue else { return false }
        // A manifest from before targets existed was built for the default profile.
        guard (previous.targets.isEmpty ? [EngineProfile.default.name] : previous.targets) == options.targets.map(\.name) else { return false }
        guard (previous.counts["trackerReport"] ?? 0) == (reportsTrackers(inputs, options) ? 1 : 0) else { return false }
        guard (previous.counts["optimized"] ?? 0) == (options.optimize ? 1 : 0) else { return false }
        guard (previous.counts["perTrackerExemptions"] ?? 0) == (options.sameEntity == .perTracker ? 1 : 0) else { return false }
        let now: [String: String] = recordMap(inputs).mapValues(\.sha256)
        let then = previous.inputs.mapValues(\.sha256)
        return now == then && previous.inputs.values.allSatisfy { $0.fallback == nil }
    }

    /// The bundle reports trackers only when there is a bundle.
    static func reportsTrackers(_ inputs: BuildInputs, _ options: BuildOptions) -> Bool {
        options.reportTrackers && inputs.surrogates != nil
    }

    static func recordMap(_ inputs: BuildInputs) -> [String: InputRecord] {
        var m = ["tds": inputs.tds.record]
        if let c = inputs.config { m["config"] = c.record }
        if let s = inputs.surrogates { m["surrogates"] = s.record }
        if let u = inputs.unprotected { m["unprotected"] = u.record }
        return m
    }

    // MARK: the pure build

    static func produce(_ inputs: BuildInputs, options: BuildOptions, progress: Progress) throws -> BuildProducts {
        var warnings: [String] = []
        let decoded = try decodeInputs(inputs, options: options, warnings: &warnings, progress: progress)
        let (tds, config, unprotected) = (decoded.tds, decoded.config, decoded.unprotected)

        progress("converting \(tds.trackers.count) trackers")
        let (built, optimization) = RuleListOptimizer.optimize(
            RuleBuilder.build(tds: tds, config: config, unprotectedSites: unprotected, mode: options.mode, sameEntity: options.sameEntity,
                              splitAttribution: true),
            if: options.optimize)
        if options.strict, let issue = built.issues.first { throw BuildError(component: "tds", reason: issue.description) }
        warnings += built.issues.map { "conversion: \($0)" }
        guard !built.rules.isEmpty else { throw BuildError(component: "tds", reason: "the conversion produced no rules") }

        let dataset = inputs.tds.record.etag.flatMap(RuleListIdentifier.datasetVersion(fromETag:))
        var files: [(name: String, bytes: [UInt8])] = []
        var lists: [JSONValue] = []
        var counts: [String: Double] = [:]
        var primary: TargetListSet? = nil
        for (t, target) in options.targets.enumerated() {
            let set = try compileListSet(built, target: target, primary: t == 0, dataset: dataset, options: options, progress: progress)
            files += set.files
            lists += set.lists
            warnings += set.issues
            for (k, v) in set.counts { counts[k, default: 0] += v }
            if t == 0 { primary = set }
        }
        guard let primary else { throw BuildError(component: "rules", reason: "no --target") }
        let parts = primary.parts
        var identifiers = primary.identifiers
        let compiledLists = primary.compiled
        files.append((ReleaseFiles.provenance, RuleProvenance.listBytes(primary.provenance)))
        var listNames = (1...parts.count).map(ReleaseFiles.rules(part:))
        // Click-to-load lists apply whatever the target (no "target" field); they are compiled with the primary one's parser.
        let primaryParser = RuleListParserOptions(target: options.targets[0])

        try compileClickToLoadLists(built, dataset: dataset, parser: primaryParser, options: options, progress: progress,
                                    files: &files, lists: &lists, listNames: &listNames, identifiers: &identifiers, counts: &counts)
        counts["clickToLoadLists"] = Double(built.clickToLoadLists.count)
        try compileAttributionList(built, dataset: dataset, options: options, progress: progress,
                                   files: &files, lists: &lists, listNames: &listNames, identifiers: &identifiers, counts: &counts)
        let cookiePopups = try cookiePopupList(tds: tds, config: config, unprotected: unprotected, options: options, warnings: &warnings)
        try compileCookiePopupList(cookiePopups, dataset: dataset, parser: primaryParser, options: options, progress: progress,
                                   files: &files, lists: &lists, listNames: &listNames, identifiers: &identifiers, counts: &counts)

        var verification: JSONValue? = nil
        if let verifier = options.webKitVerifier {
            verification = try verifyWithWebKit(verifier, files: files, listNames: listNames, progress: progress)
        }

        let surrogateCount = try buildSurrogates(inputs, tds: tds, config: config, unprotected: unprotected, options: options,
                                                 cookiePopups: cookiePopups, progress: progress, files: &files, warnings: &warnings)

        files.append((ReleaseFiles.issues, Array(warnings.map { MessageText.bounded($0) + "\n" }.joined().utf8)))
        // Input copies make the release self-contained for fallbacks and diffs.
        files.append((ReleaseFiles.inputTDS, inputs.tds.bytes))
        if let c = inputs.config { files.append((ReleaseFiles.inputConfig, c.bytes)) }
        if let s = inputs.surrogates { files.append((ReleaseFiles.inputSurrogates, s.bytes)) }
        if let u = inputs.unprotected { files.append((ReleaseFiles.inputUnprotected, u.bytes)) }

        counts["trackers"] = Double(tds.trackers.count)
        counts["tdsRules"] = Double(tds.ruleCount)
        counts["rules"] = Double(primary.rules.count)
        counts["lists"] = Double(parts.count)
        counts["surrogates"] = Double(surrogateCount)
        if reportsTrackers(inputs, options) { counts["trackerReport"] = 1 }
        counts["conversionIssues"] = Double(built.issues.count)
        // Absent without the stage, so that `--no-optimize` writes the manifest it wrote before the stage existed.
        if options.optimize {
            counts["optimized"] = 1
            counts["optimizedAwayRules"] = Double(optimization.rulesIn - optimization.rulesOut)
        }
        if options.sameEntity == .perTracker { counts["perTrackerExemptions"] = 1 }
        if primary.droppedRules > 0 { counts["rulesOverAutomatonBudget"] = Double(primary.droppedRules) }

        let manifest = Manifest(
            identifier: identifiers.count == 1 ? identifiers[0] : releaseIdentifier(identifiers),
            toolVersion: ToolVersion.current, rbcFormatVersion: Int(RBCFile.formatVersion), mode: options.mode.rawValue,
            inputs: recordMap(inputs), components: ComponentIdentifiers.compute(tds: inputs.tds.record, config: config, unprotected: unprotected),
            outputs: files.map { OutputRecord(name: $0.name, sha256: Digest.hex(.sha256, $0.bytes), bytes: $0.bytes.count) },
            counts: counts, lists: lists, webKitVerification: verification, targets: options.targets.map(\.name))
        return BuildProducts(files: files, manifest: manifest, warnings: warnings, tds: tds, rules: primary.rules, provenance: primary.provenance,
                             compiled: compiledLists)
    }

    /// Decodes the TDS, config and unprotected sites; a failure, or with --strict any issue, is charged to its input.
    static func decodeInputs(_ inputs: BuildInputs, options: BuildOptions, warnings: inout [String], progress: Progress) throws -> ConversionInputs {
        progress("reading the inputs")
        let decoded: ConversionInputs
        do {
            decoded = try ConversionInputs.decode(
                tds: .init(bytes: inputs.tds.bytes, name: inputs.tds.record.source),
                config: inputs.config.map { .init(bytes: $0.bytes, name: $0.record.source) },
                unprotected: inputs.unprotected.map { .init(bytes: $0.bytes, name: $0.record.source) }, strict: options.strict)
        } catch let e as ConversionInputs.Failure {
            throw BuildError(component: e.component.rawValue, reason: String(describing: e.underlying))
        }
        // With --strict, any reported issue is charged to its input.
        for (component, issues) in [("tds", decoded.tdsIssues), ("config", decoded.configIssues), ("unprotected", decoded.unprotectedIssues)] {
            if options.strict, let first = issues.first { throw BuildError(component: component, reason: first.description) }
            warnings += issues.map(\.description)
        }
        return decoded
    }

    /// Click-to-load lists apply whatever the target (no "target" field), so they are compiled once, with `parser`.
    static func compileClickToLoadLists(_ built: RuleBuildResult, dataset: String?, parser primaryParser: RuleListParserOptions,
                                        options: BuildOptions, progress: Progress, files: inout [(name: String, bytes: [UInt8])],
                                        lists: inout [JSONValue], listNames: inout [String], identifiers: inout [String],
                                        counts: inout [String: Double]) throws {
        for ctl in built.clickToLoadLists {
            progress("compiling the click-to-load list \(ctl.ruleAction) (\(ctl.rules.count) rules)")
            let json = CanonicalRuleWriter.bytes(ctl.rules)
            let compiled: CompiledRuleList
            do {
                compiled = try RuleListCompiler.compile(json: json, options: .init(name: "\(options.name)-ctl-\(ctl.ruleAction)", dataset: dataset,
                                                                                   parser: primaryParser, budget: options.budget))
            } catch {
                throw BuildError(component: "rules", reason: "click-to-load list \(ctl.ruleAction): \(error)")
            }
            let rbc = RBCFile.bytes(compiled)
            let name = ReleaseFiles.clickToLoadRules(ctl.ruleAction)
            files.append((name, json))
            files.append((ReleaseFiles.clickToLoadRBC(ctl.ruleAction), rbc))
            files.append((ReleaseFiles.clickToLoadProvenance(ctl.ruleAction), RuleProvenance.listBytes(ctl.provenance)))
            listNames.append(name)
            identifiers.append(compiled.identifier)
            lists.append(.object(JSONObject([
                ("identifier", .string(compiled.identifier)),
                ("rules", .string(name)),
                ("rbc", .string(ReleaseFiles.clickToLoadRBC(ctl.ruleAction))),
                ("provenance", .string(ReleaseFiles.clickToLoadProvenance(ctl.ruleAction))),
                ("ruleCount", .number(Double(ctl.rules.count))),
                ("sha256", .string(Digest.hex(.sha256, json))),
                ("ruleAction", .string(ctl.ruleAction)),
                ("entity", .string(ctl.entity)),
                ("role", .string(ReleaseListRole.clickToLoad)),
            ])))
            counts["rbcBytes", default: 0] += Double(rbc.count)
            counts["clickToLoadRules", default: 0] += Double(ctl.rules.count)
        }
    }

    /// The surrogate bundle, when there is a surrogates file; returns how many surrogates it holds.
    static func buildSurrogates(_ inputs: BuildInputs, tds: TrackerDataSet, config: PrivacyConfig?, unprotected: UnprotectedSites?,
                                options: BuildOptions, cookiePopups: CookiePopupList? = nil, progress: Progress,
                                files: inout [(name: String, bytes: [UInt8])], warnings: inout [String]) throws -> Int {
        guard let s = inputs.surrogates else {
            if let n = cookiePopups?.scripted.count, n > 0 {
                warnings.append("cookie pop-ups: \(n) filter(s) need the script layer (surrogates.js), which this build has not (no --surrogates); not applied")
            }
            return 0
        }
        var bundleOptions = SurrogateBundleOptions(strict: options.strict, reportTrackers: options.reportTrackers)
        bundleOptions.cookiePopups = cookiePopups.map { CookiePopupScriptData(filters: $0.scripted, offSites: $0.offSites) }
        progress("building the surrogate bundle")
        do {
            let scripts = try SurrogatesFile.parse(bytes: s.bytes, source: s.record.source)
            let bundle = try SurrogateBundleBuilder.build(
                tds: tds, tdsSource: inputs.tds.record.source, scripts: scripts, surrogatesSource: s.record.source,
                config: config, unprotected: unprotected,
                options: bundleOptions)
            files.append((ReleaseFiles.surrogatesJS, bundle.bytes))
            warnings += bundle.warnings + bundle.errors
            return bundle.surrogateNames.count
        } catch {
            throw BuildError(component: "surrogates", reason: String(describing: error))
        }
    }

    /// One target's lists: the rules split at that engine's limit, each part checked against the engine and
    /// compiled with its parser.
    struct TargetListSet {
        var parts: [RuleListPart]
        var files: [(name: String, bytes: [UInt8])] = []
        var lists: [JSONValue] = []
        var identifiers: [String] = []
        var compiled: [CompiledRuleList] = []
        var counts: [String: Double] = [:]
        /// Rules left out because the target cannot express them.
        var issues: [String] = []
        /// The target's whole rule list before splitting (the builder's, re-encoded for the target).
        var rules: [ContentRule] = []
        var provenance: [RuleProvenance] = []
        /// Rules dropped because their own automaton was over the compile budget.
        var droppedRules = 0
    }

    /// The builder's rules re-encoded for `target` and split at min(--max-rules, the target's rule limit).
    static func targetParts(_ built: RuleBuildResult, target: EngineProfile, options: BuildOptions) throws -> TargetListSet {
        let adapted = TargetEncoding.adapt(RuleBuildResult(rules: built.rules, provenance: built.provenance), for: target)
        if options.strict, let issue = adapted.issues.first { throw BuildError(component: "rules", reason: "\(target.name): \(issue)") }
        do {
            let limit = min(options.maxRules, target.maximumRuleCount)
            var set = TargetListSet(parts: try RuleListSplitter.split(rules: adapted.rules, provenance: adapted.provenance, maxRules: limit))
            set.issues = adapted.issues.map { "conversion (\(target.name)): \($0)" }
            set.rules = adapted.rules
            set.provenance = adapted.provenance
            return set
        } catch {
            throw BuildError(component: "rules", reason: "\(target.name): " + String(describing: error))
        }
    }

    static func compileListSet(_ built: RuleBuildResult, target: EngineProfile, primary: Bool, dataset: String?,
                               options: BuildOptions, progress: Progress) throws -> TargetListSet {
        var set = try targetParts(built, target: target, options: options)
        // One bad rule must not take the release down: a rule whose own automaton is over the budget is
        // dropped (every offender of a list is found in one compilation) and the lists are built again.
        for attempt in 0... {
            do {
                return try compileParts(set, target: target, primary: primary, dataset: dataset, options: options, progress: progress)
            } catch let over as ListOverBudget where attempt <= set.parts.count {
                let part = set.parts[over.part - 1]
                set.issues += over.errors.exceeded.map { "rules: list \(over.part): dropped \($0) [from \(part.provenance[$0.rule])]" }
                let offending = Set(over.errors.rules.map { RuleAndProvenance(rule: part.rules[$0], provenance: part.provenance[$0]) })
                let kept = zip(set.rules, set.provenance).filter { !offending.contains(RuleAndProvenance(rule: $0.0, provenance: $0.1)) }
                guard !kept.isEmpty else {
                    throw BuildError(component: "rules", reason: "list \(over.part): every rule is over the automaton budget")
                }
                set.droppedRules += set.rules.count - kept.count
                (set.rules, set.provenance) = (kept.map(\.0), kept.map(\.1))
                do {
                    set.parts = try RuleListSplitter.split(rules: set.rules, provenance: set.provenance,
                                                           maxRules: min(options.maxRules, target.maximumRuleCount))
                } catch {
                    throw BuildError(component: "rules", reason: "\(target.name): " + String(describing: error))
                }
            } catch let over as ListOverBudget {
                throw BuildError(component: "rules", reason: "list \(over.part): rules still over the automaton budget after \(attempt) rounds of dropping: "
                                 + over.errors.exceeded.map { "\($0)" }.joined(separator: "; "))
            }
        }
        fatalError("unreachable: the retry loop returns or throws")
    }

    /// A list of the set whose rules have automata over the budget (rule-level, so they can be dropped).
    struct ListOverBudget: Error {
        var part: Int
        var errors: CompileBudgetErrors
    }

    /// Compiles every part of `set`; throws ListOverBudget when a rule's own automaton is over the budget and
    /// the build may drop it (never with --strict).
    static func compileParts(_ set: TargetListSet, target: EngineProfile, primary: Bool, dataset: String?,
                             options: BuildOptions, progress: Progress) throws -> TargetListSet {
        var set = set
        (set.files, set.lists, set.identifiers, set.compiled, set.counts) = ([], [], [], [], [:])
        let count = set.parts.count
        for (i, part) in set.parts.enumerated() {
            let n = i + 1
            let rulesName = primary ? ReleaseFiles.rules(part: n) : ReleaseFiles.rules(part: n, target: target.name)
            let rbcName = primary ? ReleaseFiles.rbc(part: n) : ReleaseFiles.rbc(part: n, target: target.name)
            progress("compiling \(rulesName) (\(n) of \(count), \(part.rules.count) rules, \(target.name))")
            let json = CanonicalRuleWriter.bytes(part.rules)
            let compiled: CompiledRuleList
            do {
                try target.checkGenerated(json, ruleCount: part.rules.count)
                let base = primary ? options.name : "\(options.name).\(target.name)"
                let name = count == 1 ? base : "\(base)-part\(n)"
                compiled = try RuleListCompiler.compile(json: json, options: .init(name: name, dataset: dataset,
                                                                                   parser: RuleListParserOptions(target: target), budget: options.budget))
            } catch let e as CompileBudgetErrors where e.isRuleLevel && !options.strict {
                throw ListOverBudget(part: n, errors: e)
            } catch {
                throw BuildError(component: "rules", reason: "\(rulesName) (\(target.name)): \(error)")
            }
            set.issues += webKitPainWarnings(json: json, part: part, n: n, target: target)
            let rbc = RBCFile.bytes(compiled)
            set.files.append((rulesName, json))
            set.files.append((rbcName, rbc))
            set.identifiers.append(compiled.identifier)
            set.compiled.append(compiled)
            set.lists.append(.object(JSONObject([
                ("identifier", .string(compiled.identifier)),
                ("rules", .string(rulesName)),
                ("rbc", .string(rbcName)),
                ("ruleCount", .number(Double(part.rules.count))),
                ("trackerUnits", .number(Double(part.units.count))),
                ("sha256", .string(Digest.hex(.sha256, json))),
                ("target", .string(target.name)),
                ("role", .string(ReleaseListRole.main)),
            ])))
            guard primary else { continue }
            set.counts["rbcBytes", default: 0] += Double(rbc.count)
            set.counts["urlMatcherBytes", default: 0] += Double(compiled.urlMatcher.statistics.bytes)
            set.counts["topURLMatcherBytes", default: 0] += Double(compiled.topURLMatcher.statistics.bytes)
            set.counts["frameURLMatcherBytes", default: 0] += Double(compiled.frameURLMatcher.statistics.bytes)
        }
        return set
    }

    /// What WebKit's own compiler would not finish in reasonable time or memory (the apps compile the list
    /// with it): reported, the list is kept.
    static func webKitPainWarnings(json: [UInt8], part: RuleListPart, n: Int, target: EngineProfile) -> [String] {
        guard let list = try? RuleListParser.parse(bytes: json, options: RuleListParserOptions(target: target)),
              let pain = try? RuleListCompiler.webKitPain(list) else { return [] }
        return pain.map { "rules: list \(n): \($0) [from \(part.provenance[$0.rule])]" }
    }

    private struct RuleAndProvenance: Hashable {
        var rule: ContentRule
        var provenance: RuleProvenance
    }

    /// WebKitGTK's own compiler must accept every list; the manifest records its version and timings.
    static func verifyWithWebKit(_ verifier: WebKitVerifier, files: [(name: String, bytes: [UInt8])], listNames: [String],
                                 progress: Progress) throws -> JSONValue {
        let webkit: WebKitVerifier.Loaded
        do { webkit = try verifier.load() } catch {
            throw BuildError(component: "rules", reason: "--verify-webkit: \(error)")
        }
        var results: [JSONValue] = []
        for name in listNames {
            guard let json = files.first(where: { $0.name == name })?.bytes else { continue }
            progress("verifying \(name) with WebKitGTK")
            let v: WebKitVerdict
            do { v = try webkit.verify(json) } catch {
                throw BuildError(component: "rules", reason: "--verify-webkit: \(name): \(error)")
            }
            guard v.accepted else {
                throw BuildError(component: "rules", reason: "WebKit \(webkit.version) rejects \(name): \(v.message ?? "unknown error")" + (v.detail.map { " (\($0))" } ?? ""))
            }
            results.append(["list": .string(name), "seconds": .number((v.seconds * 1000).rounded() / 1000),
                            "bytes": v.bytes.map { .number(Double($0)) } ?? .null])
        }
        return ["webkitVersion": .string(webkit.version), "accepted": .array(results)]
    }

    /// A split release is named by all of its lists.
    static func releaseIdentifier(_ ids: [String]) -> String {
        let first = ids[0]
        let digest = String(Digest.hex(.sha256, ids.joined(separator: "\n")).prefix(16))
        guard let parsed = RuleListIdentifier.parse(first) else { return first }
        let base = parsed.name.replacingOccurrences(of: "-part1", with: "")
        return base + (parsed.dataset.map { "@" + $0 } ?? "") + "_v\(parsed.formatVersion)_\(parsed.toolVersion)_" + digest
    }

    // MARK: fallbacks

    /// DuckDuckGo's ladder (spec §3.3): previous TDS, then drop the allowlist, the temp list, the user's sites.
    static func climbFallbackLadder(after failure: BuildError, inputs: BuildInputs, fallback: String, options: BuildOptions,
                                    progress: Progress) throws -> (BuildProducts, BuildInputs, [String]) {
        var notes = ["build failed: \(failure); trying fallbacks from \(fallback)"]
        var attempt = inputs
        var lastError = failure
        var steps: [(String, (inout BuildInputs) throws -> Void)] = []
        steps.append(("previous TDS from \(fallback)", { inputs in
            let path = fallback + "/" + ReleaseFiles.inputTDS
            let bytes = try FileIO.read(path)
            var record = InputRecord(source: path, etag: nil, lastModified: nil, sha256: Digest.hex(.sha256, bytes), bytes: bytes.count)
            record.fallback = "replaced: \(failure.component == "tds" ? failure.reason : "the build failed with the new TDS")"
            inputs.tds = (bytes, record)
        }))
        if inputs.config != nil {
            steps.append(("without the privacy config", { inputs in inputs.config = nil }))
        }
        if inputs.unprotected != nil {
            steps.append(("without the user's unprotected sites", { inputs in inputs.unprotected = nil }))
        }
        if inputs.surrogates != nil {
            steps.append(("without surrogates", { inputs in inputs.surrogates = nil }))
        }
        // Start at the rung that matches the broken component, as the apps do.
        let start: Int
        switch failure.component {
        case "config": start = steps.firstIndex { $0.0.hasPrefix("without the privacy config") } ?? 0
        case "unprotected": start = steps.firstIndex { $0.0.hasPrefix("without the user") } ?? 0
        case "surrogates": start = steps.firstIndex { $0.0.hasPrefix("without surrogates") } ?? 0
        default: start = 0
        }
        var droppedRecords: [String: InputRecord] = [:]
        for (label, step) in steps[start...] {
            let before = attempt
            do { try step(&attempt) } catch {
                notes.append("fallback \(label): \(error)")
                continue
            }
            for (key, record) in recordMap(before) where recordMap(attempt)[key] == nil {
                var r = record
                r.fallback = "dropped: \(lastError.reason)"
                droppedRecords[key] = r
            }
            progress("retrying \(label)")
            do {
                var products = try produce(attempt, options: options, progress: progress)
                for (key, record) in droppedRecords { products.manifest.inputs[key] = record }
                notes.append("fallback used: \(label)")
                return (products, attempt, notes)
            } catch let e as BuildError {
                notes.append("fallback \(label) failed: \(e)")
                lastError = e
            }
        }
        throw BuildError(component: failure.component, reason: "\(failure.reason); every fallback failed (\(notes.dropFirst().joined(separator: "; ")))")
    }
}
