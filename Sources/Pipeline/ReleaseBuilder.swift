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
import RuleEngine
import StrictJSON
import Surrogates
import TrackerData
import WebKitBridge

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
    public var mode: RuleBuildMode = .faithful
    public var name = "tds"
    public var strict = false
    /// Compile every list with WebKitGTK too and fail the build if WebKit rejects one.
    public var verifyWebKit = false
    public var fetch = FetchOptions()

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
    public static let changesJSON = "changes.json"
    /// Copies of the inputs, so that a later build can fall back to them and a diff can compare datasets.
    public static let inputTDS = "input-tds.json"
    public static let inputConfig = "input-config.json"
    public static let inputSurrogates = "input-surrogates.txt"
    public static let inputUnprotected = "input-unprotected.txt"

    /// Part n (1-based) of a split list: rules.json, rules-2.json, ...
    public static func rules(part n: Int) -> String { n == 1 ? rules : "rules-\(n).json" }
    public static func rbc(part n: Int) -> String { n == 1 ? rbc : "rules-\(n).rbc" }
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
            progress("comparing with \(previous)")
            let lists = try zip(products.compiled, 1...).map { compiled, n in
                try LoadedRuleList(ReleaseLists.withSource(compiled, json: products.files.first { $0.name == ReleaseFiles.rules(part: n) }?.bytes ?? []))
            }
            let changes = try ReleaseChanges.compare(previousRelease: previous, newManifest: products.manifest, newTDS: products.tds,
                                                     newRules: products.rules, newProvenance: products.provenance, newLists: lists)
            products.files.append((ReleaseFiles.changesMarkdown, Array(changes.markdown.utf8)))
            products.files.append((ReleaseFiles.changesJSON, JSONWriter.bytes(changes.json, options: []) + [0x0A]))
        }
        products.files.append((ReleaseFiles.manifest, products.manifest.bytes()))
        progress("publishing \(options.out)")
        try ReleaseDirectory.publish(products.files, to: options.out)
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
        let now: [String: String] = recordMap(inputs).mapValues(\.sha256)
        let then = previous.inputs.mapValues(\.sha256)
        return now == then && previous.inputs.values.allSatisfy { $0.fallback == nil }
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
        /// Decodes one input; any failure (or, with --strict, any reported issue) is charged to `component`.
        func decode<T>(_ component: String, _ body: () throws -> (T, [DecodeIssue])) throws -> T {
            do {
                let (value, issues) = try body()
                if options.strict, let first = issues.first { throw BuildError(component: component, reason: first.description) }
                warnings += issues.map(\.description)
                return value
            } catch let e as BuildError {
                throw e
            } catch {
                throw BuildError(component: component, reason: String(describing: error))
            }
        }

        progress("reading the inputs")
        let tds = try decode("tds") {
            try TrackerDataSet.decode(bytes: inputs.tds.bytes, source: inputs.tds.record.source, strict: options.strict)
        }
        let config = try inputs.config.map { c in
            try decode("config") { try PrivacyConfig.decode(bytes: c.bytes, source: c.record.source, strict: options.strict) }
        }
        let unprotected = try inputs.unprotected.map { u in
            try decode("unprotected") { try UnprotectedSites.parse(bytes: u.bytes, source: u.record.source, strict: options.strict) }
        }

        progress("converting \(tds.trackers.count) trackers")
        let built = RuleBuilder.build(tds: tds, config: config, unprotectedSites: unprotected, mode: options.mode)
        if options.strict, let issue = built.issues.first { throw BuildError(component: "tds", reason: issue.description) }
        warnings += built.issues.map { "conversion: \($0)" }
        guard !built.rules.isEmpty else { throw BuildError(component: "tds", reason: "the conversion produced no rules") }

        let parts: [RuleListPart]
        do {
            parts = try RuleListSplitter.split(rules: built.rules, provenance: built.provenance, maxRules: options.maxRules)
        } catch {
            throw BuildError(component: "rules", reason: String(describing: error))
        }

        let dataset = inputs.tds.record.etag.flatMap(RuleListIdentifier.datasetVersion(fromETag:))
        var files: [(name: String, bytes: [UInt8])] = []
        var lists: [JSONValue] = []
        var identifiers: [String] = []
        var compiledLists: [CompiledRuleList] = []
        var counts: [String: Double] = [:]
        for (i, part) in parts.enumerated() {
            let n = i + 1
            progress("compiling list \(n) of \(parts.count) (\(part.rules.count) rules)")
            let json = CanonicalRuleWriter.bytes(part.rules)
            let compiled: CompiledRuleList
            do {
                let name = parts.count == 1 ? options.name : "\(options.name)-part\(n)"
                compiled = try RuleListCompiler.compile(json: json, options: .init(name: name, dataset: dataset))
            } catch {
                throw BuildError(component: "rules", reason: "list \(n): \(error)")
            }
            let rbc = RBCFile.bytes(compiled)
            files.append((ReleaseFiles.rules(part: n), json))
            files.append((ReleaseFiles.rbc(part: n), rbc))
            identifiers.append(compiled.identifier)
            compiledLists.append(compiled)
            lists.append(.object(JSONObject([
                ("identifier", .string(compiled.identifier)),
                ("rules", .string(ReleaseFiles.rules(part: n))),
                ("rbc", .string(ReleaseFiles.rbc(part: n))),
                ("ruleCount", .number(Double(part.rules.count))),
                ("trackerUnits", .number(Double(part.units.count))),
            ])))
            counts["rbcBytes", default: 0] += Double(rbc.count)
            counts["urlMatcherBytes", default: 0] += Double(compiled.urlMatcher.count)
            counts["topURLMatcherBytes", default: 0] += Double(compiled.topURLMatcher.count)
            counts["frameURLMatcherBytes", default: 0] += Double(compiled.frameURLMatcher.count)
        }
        files.append((ReleaseFiles.provenance, RuleProvenance.listBytes(built.provenance)))

        var verification: JSONValue? = nil
        if options.verifyWebKit {
            verification = try verifyWithWebKit(files: files, partCount: parts.count, progress: progress)
        }

        var surrogateCount = 0
        if let s = inputs.surrogates {
            progress("building the surrogate bundle")
            do {
                let scripts = try SurrogatesFile.parse(String(decoding: s.bytes, as: UTF8.self), source: s.record.source)
                let bundle = try SurrogateBundleBuilder.build(
                    tds: tds, tdsSource: inputs.tds.record.source, scripts: scripts, surrogatesSource: s.record.source,
                    config: config, unprotected: unprotected, options: SurrogateBundleOptions(strict: options.strict))
                files.append((ReleaseFiles.surrogatesJS, bundle.bytes))
                warnings += bundle.warnings
                surrogateCount = bundle.surrogateNames.count
            } catch {
                throw BuildError(component: "surrogates", reason: String(describing: error))
            }
        }

        files.append((ReleaseFiles.issues, Array(warnings.map { $0 + "\n" }.joined().utf8)))
        // Input copies make the release self-contained for fallbacks and diffs.
        files.append((ReleaseFiles.inputTDS, inputs.tds.bytes))
        if let c = inputs.config { files.append((ReleaseFiles.inputConfig, c.bytes)) }
        if let s = inputs.surrogates { files.append((ReleaseFiles.inputSurrogates, s.bytes)) }
        if let u = inputs.unprotected { files.append((ReleaseFiles.inputUnprotected, u.bytes)) }

        counts["trackers"] = Double(tds.trackers.count)
        counts["tdsRules"] = Double(tds.ruleCount)
        counts["rules"] = Double(built.rules.count)
        counts["lists"] = Double(parts.count)
        counts["surrogates"] = Double(surrogateCount)
        counts["conversionIssues"] = Double(built.issues.count)

        let manifest = Manifest(
            identifier: parts.count == 1 ? identifiers[0] : releaseIdentifier(identifiers),
            toolVersion: ToolVersion.current, rbcFormatVersion: Int(RBCFile.formatVersion), mode: options.mode.rawValue,
            inputs: recordMap(inputs), components: ComponentIdentifiers.compute(tds: inputs.tds.record, config: config, unprotected: unprotected),
            outputs: files.map { OutputRecord(name: $0.name, sha256: Digest.hex(.sha256, $0.bytes), bytes: $0.bytes.count) },
            counts: counts, lists: lists, webKitVerification: verification)
        return BuildProducts(files: files, manifest: manifest, warnings: warnings, tds: tds, rules: built.rules, provenance: built.provenance,
                             compiled: compiledLists)
    }

    /// WebKitGTK's own compiler must accept every list; the manifest records its version and timings.
    static func verifyWithWebKit(files: [(name: String, bytes: [UInt8])], partCount: Int, progress: Progress) throws -> JSONValue {
        let webkit: WebKitContentRuleCompiler
        do { webkit = try WebKitContentRuleCompiler() } catch {
            throw BuildError(component: "rules", reason: "--verify-webkit: \(error)")
        }
        var results: [JSONValue] = []
        for n in 1...partCount {
            let name = ReleaseFiles.rules(part: n)
            guard let json = files.first(where: { $0.name == name })?.bytes else { continue }
            progress("verifying \(name) with WebKitGTK")
            let v: WebKitVerification
            do { v = try webkit.verify(rulesJSON: json) } catch {
                throw BuildError(component: "rules", reason: "--verify-webkit: \(name): \(error)")
            }
            guard v.accepted else {
                throw BuildError(component: "rules", reason: "WebKit \(v.webkitVersion) rejects \(name): \(v.message ?? "unknown error")" + (v.detail.map { " (\($0))" } ?? ""))
            }
            results.append(["list": .string(name), "seconds": .number((v.seconds * 1000).rounded() / 1000),
                            "bytes": v.bytes.map { .number(Double($0)) } ?? .null])
        }
        return ["webkitVersion": .string(webkit.webkitVersion), "accepted": .array(results)]
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
