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
import Provenance
import RuleBuilder
import RuleCompiler
import RuleDiff
import StrictJSON
import Surrogates
import TrackerData

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
            (products, inputs, fallbackNotes) = try climbFallbackLadder(
                after: failure, inputs: inputs, fallback: fallback,
                options: options, progress: progress)
        }
        products.warnings += fallbackNotes

        if let previous = options.previous {
            // Before anything is published: over --max-compile-regression this throws. Without a gate the cost
            // is information only, and a list WebKit cannot compile is --verify-webkit's business: warn.
            var costs: (ReleaseCompileCost, CompileCostChange)? = nil
            do {
                costs = try measureCompileCost(
                    products, previous: previous, previousManifest: previousManifest,
                    options: options, progress: progress)
            } catch  where options.maxCompileRegression == nil {
                products.warnings.append("WebKit compile cost not measured: \(error)")
            }
            products.manifest.webKitCompileCost = costs?.0.jsonValue
            progress("comparing with \(previous)")
            // The new release as a later diff reads it, from the files about to be published.
            let lists = try ReleaseLists.lists(of: products.manifest, files: .products(products.files))
            let changes = try ReleaseChanges.compare(
                previousRelease: previous, newManifest: products.manifest, newTDS: products.tds,
                newRules: products.rules, newProvenance: products.provenance, newLists: lists,
                newFiles: .products(products.files))
            var json = try changes.json()
            if let change = costs?.1, case .object(var o) = json {
                o["webkitCompileCost"] = change.jsonValue
                json = .object(o)
            }
            products.files.append(
                (ReleaseFiles.changesMarkdown, Array(try changes.markdown(compileCost: costs?.1).utf8)))
            products.files.append((ReleaseFiles.changesHTML, Array(try changes.html(compileCost: costs?.1).utf8)))
            products.files.append((ReleaseFiles.changesJSON, JSONWriter.bytes(json, options: []) + [0x0A]))
        }
        products.files.append((ReleaseFiles.manifest, products.manifest.bytes()))
        progress("publishing \(options.out)")
        try ReleaseDirectory.publish(
            products.files, to: options.out, releaseName: products.manifest.identifier, force: options.force)
        return .built(products.manifest, warnings: products.warnings)
    }

    // MARK: inputs

    static func fetchInputs(_ options: BuildOptions) throws -> BuildInputs {
        func fetch(_ source: String, component: BuildComponent) throws -> ([UInt8], InputRecord) {
            do {
                let f = try InputFetcher.fetch(source, options: options.fetch)
                return (f.bytes, InputRecord(f))
            } catch {
                throw BuildError(component: component, reason: String(describing: error))
            }
        }
        let tds: ([UInt8], InputRecord)
        if let generated = options.generatedTDS {
            tds = (
                generated.bytes,
                InputRecord(
                    source: generated.source, etag: nil, lastModified: nil,
                    sha256: Digest.hex(.sha256, generated.bytes), bytes: generated.bytes.count)
            )
        } else if let source = options.tds {
            tds = try fetch(source, component: .tds)
        } else {
            throw BuildError(component: .tds, reason: "no TDS given (--tds FILE|URL or --radar DIR)")
        }
        return BuildInputs(
            tds: tds,
            config: try options.config.map { try fetch($0, component: .config) },
            surrogates: try options.surrogates.map { try fetch($0, component: .surrogates) },
            unprotected: try options.unprotected.map { try fetch($0, component: .unprotected) })
    }

    static func loadManifest(release: String) throws -> Manifest {
        let path = release + "/" + ReleaseFiles.manifest
        do {
            return try Manifest.parse(try FileIO.read(path))
        } catch {
            throw BuildError(component: .previous, reason: "\(path): \(error)")
        }
    }

    /// Unchanged = same input bytes, same tool, same options that shape the output.
    static func isUnchanged(_ inputs: BuildInputs, options: BuildOptions, previous: Manifest) -> Bool {
        guard previous.toolVersion == ToolVersion.current, previous.mode == options.mode.rawValue else { return false }
        // A manifest from before targets existed was built for the default profile.
        guard
            (previous.targets.isEmpty ? [EngineProfile.default.name] : previous.targets) == options.targets.map(\.name)
        else { return false }
        for (flag, on) in optionFlags(inputs, options) {
            guard (previous.counts[flag] ?? 0) == (on ? 1 : 0) else { return false }
        }
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
        let (built, optimization) = try convert(decoded, options: options, warnings: &warnings, progress: progress)
        let dataset = inputs.tds.record.etag.flatMap(RuleListIdentifier.datasetVersion(fromETag:))
        var out = ReleaseListOutputs()
        let primary = try compileTargets(
            built, dataset: dataset, options: options, progress: progress, into: &out, warnings: &warnings)
        let cookiePopups = try compileSideLists(
            built, decoded, dataset: dataset, options: options, progress: progress, into: &out, warnings: &warnings)

        var verification: JSONValue? = nil
        if let verifier = options.webKitVerifier {
            verification = try verifyWithWebKit(
                verifier, files: out.files, listNames: out.listNames, progress: progress)
        }
        let surrogateCount = try buildSurrogates(
            inputs, tds: decoded.tds, config: decoded.config, unprotected: decoded.unprotected, options: options,
            cookiePopups: cookiePopups, progress: progress, files: &out.files, warnings: &warnings)
        out.files.append((ReleaseFiles.issues, Array(warnings.map { MessageText.bounded($0) + "\n" }.joined().utf8)))
        out.files += inputCopies(inputs)

        var counts = out.counts
        counts[.trackers] = Double(decoded.tds.trackers.count)
        counts[.tdsRules] = Double(decoded.tds.ruleCount)
        counts[.rules] = Double(primary.rules.count)
        counts[.lists] = Double(primary.parts.count)
        counts[.surrogates] = Double(surrogateCount)
        counts[.conversionIssues] = Double(built.issues.count)
        counts[.clickToLoadLists] = Double(built.clickToLoadLists.count)
        counts.merge(optionCounts(inputs, options: options, optimization: optimization)) { $1 }
        if primary.droppedRules > 0 { counts[.rulesOverAutomatonBudget] = Double(primary.droppedRules) }

        let manifest = Manifest(
            identifier: out.identifiers.count == 1 ? out.identifiers[0] : releaseIdentifier(out.identifiers),
            toolVersion: ToolVersion.current, rbcFormatVersion: Int(RBCFile.formatVersion), mode: options.mode.rawValue,
            inputs: recordMap(inputs),
            components: ComponentIdentifiers.compute(
                tds: inputs.tds.record, config: decoded.config, unprotected: decoded.unprotected),
            outputs: out.files.map {
                OutputRecord(name: $0.name, sha256: Digest.hex(.sha256, $0.bytes), bytes: $0.bytes.count)
            },
            counts: counts, lists: out.lists, webKitVerification: verification, targets: options.targets.map(\.name))
        return BuildProducts(
            files: out.files, manifest: manifest, warnings: warnings, tds: decoded.tds, rules: primary.rules,
            provenance: primary.provenance, compiled: primary.compiled)
    }

    /// The builder's rules, optimized unless `--no-optimize`; with --strict any conversion issue fails the TDS.
    static func convert(
        _ decoded: ConversionInputs, options: BuildOptions, warnings: inout [String], progress: Progress
    ) throws -> (RuleBuildResult, OptimizationReport) {
        progress("converting \(decoded.tds.trackers.count) trackers")
        let (built, optimization) = RuleListOptimizer.optimize(
            RuleBuilder.build(
                tds: decoded.tds, config: decoded.config, unprotectedSites: decoded.unprotected, mode: options.mode,
                sameEntity: options.sameEntity, splitAttribution: true),
            if: options.optimize)
        if options.strict, let issue = built.issues.first {
            throw BuildError(component: .tds, reason: issue.description)
        }
        warnings += built.issues.map { "conversion: \($0)" }
        guard !built.rules.isEmpty else {
            throw BuildError(component: .tds, reason: "the conversion produced no rules")
        }
        return (built, optimization)
    }

    /// Every target's lists, the primary one's first (rules.json, ...) with its provenance; returns the primary set.
    static func compileTargets(
        _ built: RuleBuildResult, dataset: String?, options: BuildOptions, progress: Progress,
        into out: inout ReleaseListOutputs, warnings: inout [String]
    ) throws -> TargetListSet {
        var primary: TargetListSet? = nil
        for (t, target) in options.targets.enumerated() {
            let set = try compileListSet(
                built, target: target, primary: t == 0, dataset: dataset, options: options, progress: progress)
            out.files += set.files
            out.lists += set.lists
            warnings += set.issues
            for (k, v) in set.counts { out.counts[k, default: 0] += v }
            if t == 0 { primary = set }
        }
        guard let primary else { throw BuildError(component: .rules, reason: "no --target") }
        out.identifiers = primary.identifiers
        out.files.append((ReleaseFiles.provenance, RuleProvenance.listBytes(primary.provenance)))
        out.listNames = (1...primary.parts.count).map(ReleaseFiles.rules(part:))
        return primary
    }

    /// The click-to-load, attribution and cookie pop-up lists, in that order; returns the cookie pop-up list,
    /// whose script layer goes into the surrogate bundle.
    static func compileSideLists(
        _ built: RuleBuildResult, _ decoded: ConversionInputs, dataset: String?, options: BuildOptions,
        progress: Progress, into out: inout ReleaseListOutputs, warnings: inout [String]
    ) throws -> CookiePopupList? {
        let primaryParser = RuleListParserOptions(target: options.targets[0])
        try compileClickToLoadLists(
            built, dataset: dataset, parser: primaryParser, options: options, progress: progress, into: &out)
        try compileAttributionList(built, dataset: dataset, options: options, progress: progress, into: &out)
        let cookiePopups = try cookiePopupList(
            tds: decoded.tds, config: decoded.config, unprotected: decoded.unprotected, options: options,
            warnings: &warnings)
        try compileCookiePopupList(
            cookiePopups, dataset: dataset, parser: primaryParser, options: options, progress: progress, into: &out)
        return cookiePopups
    }

    /// Input copies make the release self-contained for fallbacks and diffs.
    static func inputCopies(_ inputs: BuildInputs) -> [(name: String, bytes: [UInt8])] {
        var files = [(name: ReleaseFiles.inputTDS, bytes: inputs.tds.bytes)]
        if let c = inputs.config { files.append((ReleaseFiles.inputConfig, c.bytes)) }
        if let s = inputs.surrogates { files.append((ReleaseFiles.inputSurrogates, s.bytes)) }
        if let u = inputs.unprotected { files.append((ReleaseFiles.inputUnprotected, u.bytes)) }
        return files
    }

    /// The counts that record an option (read back by `--if-changed`): 1, or absent when the option is off, so
    /// that a build without it writes the manifest it wrote before the option existed.
    static func optionFlags(_ inputs: BuildInputs, _ options: BuildOptions) -> [(ManifestCount, Bool)] {
        [
            (.trackerReport, reportsTrackers(inputs, options)), (.optimized, options.optimize),
            (.perTrackerExemptions, options.sameEntity == .perTracker),
        ]
    }

    static func optionCounts(
        _ inputs: BuildInputs, options: BuildOptions, optimization: OptimizationReport
    ) -> [ManifestCount: Double] {
        var counts: [ManifestCount: Double] = [:]
        for (flag, on) in optionFlags(inputs, options) where on { counts[flag] = 1 }
        if options.optimize { counts[.optimizedAwayRules] = Double(optimization.rulesIn - optimization.rulesOut) }
        return counts
    }

    /// Decodes the TDS, config and unprotected sites; a failure, or with --strict any issue, is charged to its input.
    static func decodeInputs(_ inputs: BuildInputs, options: BuildOptions, warnings: inout [String], progress: Progress)
        throws -> ConversionInputs
    {
        progress("reading the inputs")
        let decoded: ConversionInputs
        do {
            decoded = try ConversionInputs.decode(
                tds: .init(bytes: inputs.tds.bytes, name: inputs.tds.record.source),
                config: inputs.config.map { .init(bytes: $0.bytes, name: $0.record.source) },
                unprotected: inputs.unprotected.map { .init(bytes: $0.bytes, name: $0.record.source) },
                strict: options.strict)
        } catch let e as ConversionInputs.Failure {
            throw BuildError(component: BuildComponent(e.component), reason: String(describing: e.underlying))
        }
        // With --strict, any reported issue is charged to its input.
        let charged: [(BuildComponent, [DecodeIssue])] = [
            (.tds, decoded.tdsIssues), (.config, decoded.configIssues), (.unprotected, decoded.unprotectedIssues),
        ]
        for (component, issues) in charged {
            if options.strict, let first = issues.first {
                throw BuildError(component: component, reason: first.description)
            }
            warnings += issues.map(\.description)
        }
        return decoded
    }

    /// The surrogate bundle, when there is a surrogates file; returns how many surrogates it holds.
    static func buildSurrogates(
        _ inputs: BuildInputs, tds: TrackerDataSet, config: PrivacyConfig?, unprotected: UnprotectedSites?,
        options: BuildOptions, cookiePopups: CookiePopupList? = nil, progress: Progress,
        files: inout [(name: String, bytes: [UInt8])], warnings: inout [String]
    ) throws -> Int {
        guard let s = inputs.surrogates else {
            if let n = cookiePopups?.scripted.count, n > 0 {
                warnings.append(
                    "cookie pop-ups: \(n) filter(s) need the script layer (surrogates.js), "
                        + "which this build has not (no --surrogates); not applied"
                )
            }
            return 0
        }
        var bundleOptions = SurrogateBundleOptions(strict: options.strict, reportTrackers: options.reportTrackers)
        bundleOptions.cookiePopups = cookiePopups.map {
            CookiePopupScriptData(filters: $0.scripted, offSites: $0.offSites)
        }
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
            throw BuildError(component: .surrogates, reason: String(describing: error))
        }
    }

    /// WebKitGTK's own compiler must accept every list; the manifest records its version and timings.
    static func verifyWithWebKit(
        _ verifier: WebKitVerifier, files: [(name: String, bytes: [UInt8])], listNames: [String],
        progress: Progress
    ) throws -> JSONValue {
        let webkit: WebKitVerifier.Loaded
        do { webkit = try verifier.load() } catch {
            throw BuildError(component: .rules, reason: "--verify-webkit: \(error)")
        }
        var results: [JSONValue] = []
        for name in listNames {
            guard let json = files.first(where: { $0.name == name })?.bytes else { continue }
            progress("verifying \(name) with WebKitGTK")
            let v: WebKitVerdict
            do { v = try webkit.verify(json) } catch {
                throw BuildError(component: .rules, reason: "--verify-webkit: \(name): \(error)")
            }
            guard v.accepted else {
                throw BuildError(
                    component: .rules,
                    reason: "WebKit \(webkit.version) rejects \(name): \(v.message ?? "unknown error")"
                        + (v.detail.map { " (\($0))" } ?? ""))
            }
            results.append([
                "list": .string(name), "seconds": .number((v.seconds * 1000).rounded() / 1000),
                "bytes": v.bytes.map { .number(Double($0)) } ?? .null,
            ])
        }
        return ["webkitVersion": .string(webkit.version), "accepted": .array(results)]
    }

    /// A split release is named by all of its lists.
    static func releaseIdentifier(_ ids: [String]) -> String {
        let first = ids[0]
        let digest = String(Digest.hex(.sha256, ids.joined(separator: "\n")).prefix(16))
        guard let parsed = RuleListIdentifier.parse(first) else { return first }
        let base = parsed.name.replacingOccurrences(of: "-part1", with: "")
        return base + (parsed.dataset.map { "@" + $0 } ?? "") + "_v\(parsed.formatVersion)_\(parsed.toolVersion)_"
            + digest
    }
}
