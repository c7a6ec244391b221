// What WebKit pays to compile a release (`build --previous` with WebKitGTK installed) and the nightly gate on it
// (`--max-compile-regression PCT`). Apps compile the lists on the device, where a slow or memory-hungry compile
// means pages loading before the rules are ready or the extension being killed, so a release that costs much
// more than the previous one is refused before it is published. The meter is injected (the CLI builds it from
// WebKitBridge, WebKitEngine.costMeter) so that Pipeline does not link WebKitGTK's loader.

import FileIO
import Foundation
import StrictJSON

/// WebKit's cost for one rule list, or for a release (the sum over its lists; memory: the largest list's).
public struct WebKitCompileCost: Sendable, Equatable {
    /// Wall time of WebKit's compile, from the store's save call to its callback (process start-up excluded).
    public var seconds: Double
    /// CPU time of that compile: what the gate compares, as wall time on a shared machine varies with its load.
    public var cpuSeconds: Double
    /// Peak RSS of the compile above a one-rule list compiled the same way, KiB.
    public var memoryKB: Int
    /// Size of the file WebKit wrote into its store.
    public var bytes: Int

    public init(seconds: Double, cpuSeconds: Double, memoryKB: Int, bytes: Int) {
        self.seconds = seconds
        self.cpuSeconds = cpuSeconds
        self.memoryKB = memoryKB
        self.bytes = bytes
    }

    /// A release's cost: WebKit compiles its lists one after the other.
    static func total(_ costs: [WebKitCompileCost]) -> WebKitCompileCost {
        WebKitCompileCost(
            seconds: costs.map(\.seconds).reduce(0, +), cpuSeconds: costs.map(\.cpuSeconds).reduce(0, +),
            memoryKB: costs.map(\.memoryKB).max() ?? 0, bytes: costs.map(\.bytes).reduce(0, +))
    }

    var jsonFields: [(String, JSONValue)] {
        [
            ("seconds", .number(Self.rounded(seconds))), ("cpuSeconds", .number(Self.rounded(cpuSeconds))),
            ("memoryKB", .number(Double(memoryKB))), ("bytes", .number(Double(bytes))),
        ]
    }

    init?(json: JSONValue?) {
        guard let o = json?.objectValue, let s = o["seconds"]?.numberValue, let cpu = o["cpuSeconds"]?.numberValue,
            let mem = o["memoryKB"]?.numberValue, let bytes = o["bytes"]?.numberValue
        else { return nil }
        self.init(seconds: s, cpuSeconds: cpu, memoryKB: Int(mem), bytes: Int(bytes))
    }

    static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}

/// WebKit's compiler as the cost measurement needs it. `load` is called only when a build measures (a build
/// without --previous never loads WebKit); it throws when WebKitGTK is not installed.
public struct WebKitCostMeter: Sendable {
    public struct Loaded {
        public var version: String
        /// The cost of one rules JSON; throws when WebKit rejects the list or cannot be run.
        public var measure: ([UInt8]) throws -> WebKitCompileCost

        public init(version: String, measure: @escaping ([UInt8]) throws -> WebKitCompileCost) {
            self.version = version
            self.measure = measure
        }
    }

    public var load: @Sendable () throws -> Loaded

    public init(load: @escaping @Sendable () throws -> Loaded) { self.load = load }
}

/// The manifest's `webkitCompileCost`: WebKit's version, each list's cost and the release's total.
public struct ReleaseCompileCost: Sendable, Equatable {
    public var webkitVersion: String
    public var lists: [(name: String, cost: WebKitCompileCost)]
    public var total: WebKitCompileCost { .total(lists.map(\.cost)) }

    public init(webkitVersion: String, lists: [(name: String, cost: WebKitCompileCost)]) {
        self.webkitVersion = webkitVersion
        self.lists = lists
    }

    public static func == (a: ReleaseCompileCost, b: ReleaseCompileCost) -> Bool {
        a.webkitVersion == b.webkitVersion && a.lists.map(\.name) == b.lists.map(\.name)
            && a.lists.map(\.cost) == b.lists.map(\.cost)
    }

    public var jsonValue: JSONValue {
        .object(
            JSONObject(
                [("webkitVersion", .string(webkitVersion))] + total.jsonFields + [
                    (
                        "lists",
                        .array(lists.map { .object(JSONObject([("list", .string($0.name))] + $0.cost.jsonFields)) })
                    )
                ]))
    }

    public init?(json: JSONValue?) {
        guard let o = json?.objectValue, let version = o["webkitVersion"]?.stringValue,
            let entries = o["lists"]?.arrayValue
        else { return nil }
        var lists: [(name: String, cost: WebKitCompileCost)] = []
        for entry in entries {
            guard let name = entry["list"]?.stringValue, let cost = WebKitCompileCost(json: entry) else { return nil }
            lists.append((name, cost))
        }
        self.init(webkitVersion: version, lists: lists)
    }

    /// List by list, the cheaper of two measurements of the same lists, figure by figure.
    func cheaper(_ other: ReleaseCompileCost) -> ReleaseCompileCost {
        ReleaseCompileCost(
            webkitVersion: webkitVersion,
            lists: zip(lists, other.lists).map { a, b in
                (
                    a.name,
                    WebKitCompileCost(
                        seconds: min(a.cost.seconds, b.cost.seconds),
                        cpuSeconds: min(a.cost.cpuSeconds, b.cost.cpuSeconds),
                        memoryKB: min(a.cost.memoryKB, b.cost.memoryKB), bytes: a.cost.bytes)
                )
            })
    }

    /// Measures every list named in `lists` (name -> rules JSON), in order; `release` names them in messages.
    static func measure(
        _ meter: WebKitCostMeter.Loaded, lists: [(name: String, json: [UInt8])], release: String,
        progress: (String) -> Void
    ) throws -> ReleaseCompileCost {
        var out: [(name: String, cost: WebKitCompileCost)] = []
        for (name, json) in lists {
            progress("measuring WebKit's compile cost of \(release) \(name)")
            do { out.append((name, try meter.measure(json))) } catch {
                throw BuildError(component: .rules, reason: "WebKit compile cost of \(release) \(name): \(error)")
            }
        }
        return ReleaseCompileCost(webkitVersion: meter.version, lists: out)
    }
}

/// The previous release's cost and the new one's, and what `--max-compile-regression` says of them.
public struct CompileCostChange: Sendable, Equatable {
    public var previous: WebKitCompileCost
    public var new: WebKitCompileCost
    /// True when the previous cost was measured by this build (the previous manifest recorded none, or for
    /// another WebKit version), not read from its manifest.
    public var previousMeasuredNow: Bool

    public init(previous: WebKitCompileCost, new: WebKitCompileCost, previousMeasuredNow: Bool) {
        self.previous = previous
        self.new = new
        self.previousMeasuredNow = previousMeasuredNow
    }

    /// new / previous - 1, in percent (0 when the previous figure is 0).
    static func percent(_ new: Double, _ old: Double) -> Double { old > 0 ? (new / old - 1) * 100 : 0 }

    public var cpuPercent: Double { Self.percent(new.cpuSeconds, previous.cpuSeconds) }
    public var memoryPercent: Double { Self.percent(Double(new.memoryKB), Double(previous.memoryKB)) }
    public var bytesPercent: Double { Self.percent(Double(new.bytes), Double(previous.bytes)) }

    /// Rises below these are measurement noise whatever their percentage (docs/compile-cost.md: a small list's
    /// figures vary by a third from run to run), so a small list cannot fail the gate.
    public static let noiseCPUSeconds = 0.05
    public static let noiseMemoryKB = 4096

    /// What is more than `maxPercent` above the previous release: CPU time and peak memory (size is reported,
    /// not gated: it follows the rules, and WebKit maps the file rather than reading it).
    public func regressions(maxPercent: Double) -> [String] {
        var out: [String] = []
        if cpuPercent > maxPercent, new.cpuSeconds - previous.cpuSeconds > Self.noiseCPUSeconds {
            out.append(
                String(
                    format: "compile time %.3f s -> %.3f s CPU (%+.0f%%)", previous.cpuSeconds, new.cpuSeconds,
                    cpuPercent))
        }
        if memoryPercent > maxPercent, new.memoryKB - previous.memoryKB > Self.noiseMemoryKB {
            out.append(
                String(
                    format: "peak memory %.1f MiB -> %.1f MiB (%+.0f%%)", Double(previous.memoryKB) / 1024,
                    Double(new.memoryKB) / 1024, memoryPercent))
        }
        return out
    }

    /// The build's error when the new release costs more than `maxPercent` above the previous one.
    public func gate(maxPercent: Double, previousRelease: String) -> BuildError? {
        let over = regressions(maxPercent: maxPercent)
        guard !over.isEmpty else { return nil }
        return BuildError(
            component: .rules,
            reason: "WebKit compile cost regression over --max-compile-regression "
                + "\(Self.format(maxPercent))%: " + over.joined(separator: ", ")
                + " against \(previousRelease); nothing was published")
    }

    static func format(_ percent: Double) -> String {
        percent == percent.rounded() ? String(Int(percent)) : String(percent)
    }

    /// The verdict's line of changes.md.
    public var summaryLine: String {
        String(
            format: "%.3f s -> %.3f s CPU (%+.1f%%), peak memory %.1f MiB -> %.1f MiB (%+.1f%%)", previous.cpuSeconds,
            new.cpuSeconds,
            cpuPercent, Double(previous.memoryKB) / 1024, Double(new.memoryKB) / 1024, memoryPercent)
    }

    /// The table of changes.md, after its verdict.
    public var markdown: String {
        func row(_ what: String, _ old: String, _ new: String, _ pct: Double) -> String {
            "| \(what) | \(old) | \(new) | \(String(format: "%+.1f%%", pct)) |\n"
        }
        var s = "\n### WebKit compile cost\n\n"
        s += "| | previous | new | change |\n|---|---|---|---|\n"
        s += row(
            "compile time (CPU)", String(format: "%.3f s", previous.cpuSeconds),
            String(format: "%.3f s", new.cpuSeconds), cpuPercent)
        s += row(
            "compile time (wall)", String(format: "%.3f s", previous.seconds), String(format: "%.3f s", new.seconds),
            Self.percent(new.seconds, previous.seconds))
        s += row(
            "peak memory", String(format: "%.1f MiB", Double(previous.memoryKB) / 1024),
            String(format: "%.1f MiB", Double(new.memoryKB) / 1024), memoryPercent)
        s += row("compiled size", "\(previous.bytes) bytes", "\(new.bytes) bytes", bytesPercent)
        if previousMeasuredNow {
            s += "\nThe previous release recorded no cost for this WebKit: its lists were compiled by this build.\n"
        }
        return s
    }

    public var jsonValue: JSONValue {
        .object(
            JSONObject([
                ("previous", .object(JSONObject(previous.jsonFields))), ("new", .object(JSONObject(new.jsonFields))),
                ("cpuPercent", .number(WebKitCompileCost.rounded(cpuPercent))),
                ("memoryPercent", .number(WebKitCompileCost.rounded(memoryPercent))),
                ("bytesPercent", .number(WebKitCompileCost.rounded(bytesPercent))),
                ("previousMeasuredNow", .bool(previousMeasuredNow)),
            ]))
    }
}

extension ReleaseBuilder {
    /// The lists WebKit compiles for an app of this release: the primary target's and the click-to-load ones,
    /// read as every release reader reads them (a manifest names files beside it, never a path elsewhere).
    static func costedLists(_ manifest: Manifest, files: ReleaseFileSource) throws -> [(name: String, json: [UInt8])] {
        try manifest.lists(for: nil).compactMap { entry in
            guard let name = entry.rules else { return nil }
            try ReleaseLists.checkPlainName(name, list: manifest.lists.firstIndex(of: entry) ?? 0, files: files)
            return (name, try files.read(name))
        }
    }

    /// Measures the new release and finds the previous one's cost (recorded, or measured now), then applies
    /// --max-compile-regression; nil when WebKitGTK cannot be loaded and no gate was asked for (a build without
    /// WebKit still builds). A release over the limit is measured once more and judged by the cheaper of its two
    /// measurements: a busy machine only ever slows a compile, so one slow run must not fail the night.
    static func measureCompileCost(
        _ products: BuildProducts, previous: String, previousManifest: Manifest?,
        options: BuildOptions, progress: Progress
    ) throws -> (ReleaseCompileCost, CompileCostChange)? {
        guard let meter = options.webKitCostMeter else { return nil }
        let loaded: WebKitCostMeter.Loaded
        do { loaded = try meter.load() } catch {
            guard options.maxCompileRegression == nil else {
                throw BuildError(
                    component: .rules, reason: "--max-compile-regression needs WebKitGTK's compiler: \(error)")
            }
            return nil
        }
        let newLists = try costedLists(products.manifest, files: .products(products.files))
        var new = try ReleaseCompileCost.measure(
            loaded, lists: newLists, release: "the new release's", progress: progress)
        guard
            var change = try previousCost(
                loaded, previous: previous, previousManifest: previousManifest, progress: progress
            )
            .map({ CompileCostChange(previous: $0.cost, new: new.total, previousMeasuredNow: $0.measuredNow) })
        else { return nil }
        guard let limit = options.maxCompileRegression else { return (new, change) }
        if change.gate(maxPercent: limit, previousRelease: previous) != nil {
            progress("over --max-compile-regression: measuring the new release once more")
            let again = try ReleaseCompileCost.measure(
                loaded, lists: newLists, release: "the new release's", progress: progress)
            new = new.cheaper(again)
            change.new = new.total
        }
        if let failure = change.gate(maxPercent: limit, previousRelease: previous) { throw failure }
        return (new, change)
    }

    /// The previous release's total: from its manifest when recorded for this WebKit version, else its lists
    /// compiled now.
    static func previousCost(
        _ loaded: WebKitCostMeter.Loaded, previous: String, previousManifest: Manifest?,
        progress: Progress
    ) throws -> (cost: WebKitCompileCost, measuredNow: Bool)? {
        if let recorded = ReleaseCompileCost(json: previousManifest?.webKitCompileCost),
            recorded.webkitVersion == loaded.version
        {
            return (recorded.total, false)
        }
        guard let previousManifest else { return nil }
        let lists: [(name: String, json: [UInt8])]
        do { lists = try costedLists(previousManifest, files: .directory(previous)) } catch {
            throw BuildError(component: .previous, reason: "\(error)")
        }
        let old = try ReleaseCompileCost.measure(
            loaded, lists: lists, release: "the previous release's", progress: progress)
        return (old.total, true)
    }
}
