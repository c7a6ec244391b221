// `radarblock build`: the nightly job. Inputs (files or URLs) -> TDS -> WebKit rules (split when over the
// limit) -> compiled .rbc lists -> surrogate bundle -> manifest (+ changes against the previous release),
// published atomically. Every stage is a pure function of the inputs, so two builds from the same inputs
// are byte-identical. A failure names the component that broke; with a fallback release, the build
// follows DuckDuckGo's ladder (previous TDS, then drop the allowlist, the temp list, the user's sites) and
// records what it did in the manifest. The stages have homes of their own: BuildInputs (fetch, decode), Conversion
// (convert), TargetListSet (target lists), SideLists (click-to-load, attribution, cookie pop-up lists),
// CompileCostGate and ReleaseChanges (--previous), FallbackStep (the ladder), ReleaseDirectory (publish); this
// file runs them in order and writes the bundle and the manifest.

import ContentRules
import Conversion
import Digest
import FileIO
import AdblockSyntax
import FilterLists
import Foundation
import Release
import ReleaseDiff
import Provenance
import RuleBuilder
import RuleCompiler
import RuleDiff
import StrictJSON
import Surrogates
import TrackerData

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
        var options = options
        var previousWarnings: [String] = []
        let previousManifest = PreviousRelease.check(&options.previous, warnings: &previousWarnings)
        progress("fetching inputs")
        var inputs = try BuildInputs.fetch(options)

        if options.ifChanged, let prev = previousManifest, inputs.isUnchanged(options: options, previous: prev) {
            return .unchanged(identifier: prev.identifier)
        }

        var fallbackNotes: [String] = []
        var products: BuildProducts
        do {
            products = try produce(inputs, options: options, progress: progress)
        } catch let failure as BuildError {
            guard let fallback = options.fallback else { throw failure }
            (products, inputs, fallbackNotes) = try FallbackStep.climb(
                after: failure, inputs: inputs, fallback: fallback,
                options: options, progress: progress)
        }
        products.warnings = previousWarnings + products.warnings + fallbackNotes

        if let previous = options.previous {
            try compare(
                &products, tds: inputs.tds.record, previous: previous, previousManifest: previousManifest,
                options: options, progress: progress)
        }
        products.files.append((ReleaseFiles.manifest, products.manifest.bytes()))
        progress("publishing \(options.out)")
        try ReleaseDirectory.publish(
            products.files, to: options.out, releaseName: products.manifest.identifier, force: options.force)
        return .built(products.manifest, warnings: products.warnings)
    }

    /// `--previous`: WebKit's compile cost and its gate, the changes files and the content gates, all before
    /// anything is published (a gate throws).
    static func compare(
        _ products: inout BuildProducts, tds: InputRecord, previous: String, previousManifest: Manifest?,
        options: BuildOptions, progress: Progress
    ) throws {
        // Over --max-compile-regression this throws. Without a gate the cost is information only, and a list
        // WebKit cannot compile is --verify-webkit's business: warn.
        var costs: (ReleaseCompileCost, CompileCostChange)? = nil
        do {
            costs = try CompileCostGate.measure(
                products, previous: previous, previousManifest: previousManifest,
                options: options, progress: progress)
        } catch  where options.maxCompileRegression == nil {
            products.warnings.append("WebKit compile cost not measured: \(error)")
        }
        products.manifest.webKitCompileCost = costs?.0
        progress("comparing with \(previous)")
        // The new release as a later diff reads it, from the files about to be published.
        let lists = try ReleaseLists.lists(of: products.manifest, files: .products(products.files))
        let changes = try ReleaseChanges.compare(
            previousRelease: previous, newManifest: products.manifest, newTDS: products.tds,
            newRules: products.rules, newProvenance: products.provenance, newLists: lists,
            newFiles: .products(products.files))
        let older = TDSAge.olderNote(new: tds, previous: previousManifest?.inputs[.tds], previousRelease: previous)
        if let older { products.warnings.append("tds: \(older)") }
        if !options.contentGates.isOff {
            let change = try ContentChange(
                changes.report, previousTrackers: Int(previousManifest?.counts[.trackers] ?? 0))
            if let refusal = change.gate(options.contentGates, previousRelease: previous, olderTDS: older) {
                throw refusal
            }
        }
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

    // MARK: the pure build

    static func produce(_ inputs: BuildInputs, options: BuildOptions, progress: Progress) throws -> BuildProducts {
        var warnings: [String] = []
        let decoded = try inputs.decode(options: options, warnings: &warnings, progress: progress)
        let conversion = try convert(
            decoded, filterLists: inputs.filterLists.map(\.list), options: options, warnings: &warnings,
            progress: progress)
        let (built, optimization) = (conversion.result, conversion.optimization)
        let dataset = inputs.tds.record.etag.flatMap(RuleListIdentifier.datasetVersion(fromETag:))
        var out = ReleaseListOutputs()
        let primary = try TargetListSet.compileTargets(
            built, dataset: dataset, options: options, progress: progress, into: &out, warnings: &warnings)
        try SideLists.compile(
            conversion, dataset: dataset, options: options, progress: progress, into: &out, warnings: &warnings)

        var verification: ReleaseWebKitVerification? = nil
        if let verifier = options.webKitVerifier {
            verification = try verifyWithWebKit(
                verifier, files: out.files, listNames: out.listNames, progress: progress)
        }
        let surrogateCount = try buildSurrogates(
            inputs, tds: decoded.tds, config: decoded.config, unprotected: decoded.unprotected, options: options,
            cookiePopups: conversion.cookiePopups, progress: progress, files: &out.files, warnings: &warnings)
        out.files.append((ReleaseFiles.issues, Array(warnings.map { MessageText.bounded($0) + "\n" }.joined().utf8)))
        out.files += inputs.copies

        var counts = out.counts
        counts[.trackers] = Double(decoded.tds.trackers.count)
        counts[.tdsRules] = Double(decoded.tds.ruleCount)
        counts[.rules] = Double(primary.rules.count)
        counts[.lists] = Double(primary.parts.count)
        counts[.surrogates] = Double(surrogateCount)
        counts[.conversionIssues] = Double(built.issues.count)
        counts[.clickToLoadLists] = Double(built.clickToLoadLists.count)
        if options.optimize { counts[.optimizedAwayRules] = Double(optimization.rulesIn - optimization.rulesOut) }
        if primary.droppedRules > 0 { counts[.rulesOverAutomatonBudget] = Double(primary.droppedRules) }

        var manifest = Manifest(
            identifier: releaseIdentifier(of: out, targets: options.targets.count),
            toolVersion: ToolVersion.current, rbcFormatVersion: Int(RBCFile.formatVersion), mode: options.mode,
            inputs: inputs.records,
            components: ComponentIdentifiers.compute(
                tds: inputs.tds.record, config: decoded.config, unprotected: decoded.unprotected),
            outputs: out.files.map {
                OutputRecord(name: $0.name, sha256: Digest.hex(.sha256, $0.bytes), bytes: $0.bytes.count)
            },
            counts: counts, flags: inputs.flags(options), lists: out.lists, webKitVerification: verification,
            targets: options.targets.map(\.name))
        manifest.filterLists = inputs.filterListRecords
        return BuildProducts(
            files: out.files, manifest: manifest, warnings: warnings, tds: decoded.tds, rules: primary.rules,
            provenance: primary.provenance, compiled: primary.compiled)
    }

    /// The builder's rules, optimized unless `--no-optimize`; with --strict any conversion issue fails the TDS.
    static func convert(
        _ decoded: ConversionInputs, filterLists: [FilterList] = [], options: BuildOptions, warnings: inout [String],
        progress: Progress
    ) throws -> Conversion {
        progress("converting \(decoded.tds.trackers.count) trackers")
        // The TDS decoder's issues are warned about by decodeInputs, not counted as conversion issues.
        let conversion = Conversion.convert(
            tds: decoded.tds, config: decoded.config, unprotected: decoded.unprotected,
            options: ConversionOptions(
                mode: options.mode, sameEntity: options.sameEntity, optimize: options.optimize,
                splitAttribution: true, cookiePopups: options.targets[0],
                filterLists: filterLists.isEmpty ? nil : (filterLists, options.targets[0])))
        let built = conversion.result
        if options.strict, let issue = built.issues.first {
            throw BuildError(component: .tds, reason: issue.description)
        }
        warnings += built.issues.map { "conversion: \($0)" }
        // The filter lists' issues are tens of thousands (EasyList's cosmetic filters): a file of their own.
        for lists in conversion.filterLists where !lists.issueLines.isEmpty {
            let count = lists.issueLines.count
            warnings.append(
                "filter lists: \(count) filter(s) not converted, each in "
                    + ReleaseFiles.filterListIssues(lists.layer))
        }
        guard !built.rules.isEmpty else {
            throw BuildError(component: .tds, reason: "the conversion produced no rules")
        }
        return conversion
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
                    "cookie pop-ups: \(n) filter(s) need the script layer (\(ReleaseFiles.surrogatesJS)), "
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
    ) throws -> ReleaseWebKitVerification {
        let webkit: WebKitVerifier.Loaded
        do { webkit = try verifier.load() } catch {
            throw BuildError(component: .rules, reason: "--verify-webkit: \(error)")
        }
        var results: [ReleaseWebKitVerification.Accepted] = []
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
            results.append(.init(list: name, seconds: v.seconds, bytes: v.bytes))
        }
        return ReleaseWebKitVerification(webkitVersion: webkit.version, accepted: results)
    }

    /// A release is named by every main list of every target and its filter lists' lists: a one-list release by
    /// its list, a split or multi-target one by a digest of them all (a second target is another list, so another
    /// release).
    static func releaseIdentifier(of out: ReleaseListOutputs, targets: Int) -> String {
        guard targets > 1 else {
            return out.identifiers.count == 1 ? out.identifiers[0] : releaseIdentifier(out.identifiers)
        }
        return releaseIdentifier(
            out.lists.filter { $0.role == .main || $0.role == .filterLists }.map(\.identifier))
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
