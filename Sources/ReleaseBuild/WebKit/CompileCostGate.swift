// What WebKit pays to compile a release (`build --previous` with WebKitGTK installed) and the nightly gate on it
// (`--max-compile-regression PCT`). Apps compile the lists on the device, where a slow or memory-hungry compile
// means pages loading before the rules are ready or the extension being killed, so a release that costs much
// more than the previous one is refused before it is published. The meter is injected (the CLI builds it from
// WebKitBridge, WebKitEngine.costMeter) so that ReleaseBuild does not link WebKitGTK's loader.

import FileIO
import Foundation
import Release
import StrictJSON

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

extension ReleaseCompileCost {
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

extension CompileCostChange {
    /// The build's error when the new release costs more than `maxPercent` above the previous one.
    public func gate(maxPercent: Double, previousRelease: String) -> BuildError? {
        let over = regressions(maxPercent: maxPercent)
        guard !over.isEmpty else { return nil }
        return BuildError(
            component: .gate,
            reason: "WebKit compile cost regression over --max-compile-regression "
                + "\(Self.format(maxPercent))%: " + over.joined(separator: ", ")
                + " against \(previousRelease); nothing was published")
    }
}

/// `build --previous`: WebKit's compile cost of the new release and of the previous one, and the gate on them.
enum CompileCostGate {
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
    static func measure(
        _ products: BuildProducts, previous: String, previousManifest: Manifest?,
        options: BuildOptions, progress: ReleaseBuilder.Progress
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
        progress: ReleaseBuilder.Progress
    ) throws -> (cost: WebKitCompileCost, measuredNow: Bool)? {
        if let recorded = previousManifest?.webKitCompileCost,
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
