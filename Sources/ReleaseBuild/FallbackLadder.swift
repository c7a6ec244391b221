// `build --fallback RELEASE`: when the build fails, DuckDuckGo's ladder: the previous TDS, then without the
// privacy config, the user's unprotected sites, the surrogates; the manifest records what was replaced or dropped.

import Digest
import FileIO
import Release

/// The rungs of the ladder, in the order they are tried.
enum FallbackStep: Int, CaseIterable, Comparable {
    case previousTDS
    case withoutConfig
    case withoutUnprotected
    case withoutSurrogates

    static func < (a: FallbackStep, b: FallbackStep) -> Bool { a.rawValue < b.rawValue }

    /// The rung that matches a broken input, as the apps do; a failure of anything else starts at the bottom.
    static func start(after failure: BuildComponent) -> FallbackStep {
        switch failure {
        case .config: return .withoutConfig
        case .unprotected: return .withoutUnprotected
        case .surrogates: return .withoutSurrogates
        case .tds, .rules, .previous, .gate, .filterList: return .previousTDS
        }
    }

    /// What `build` prints and the manifest's notes say of the rung.
    func label(fallback: String) -> String {
        switch self {
        case .previousTDS: return "previous TDS from \(fallback)"
        case .withoutConfig: return "without the privacy config"
        case .withoutUnprotected: return "without the user's unprotected sites"
        case .withoutSurrogates: return "without surrogates"
        }
    }

    /// A rung that drops an input is on the ladder only when the build has that input.
    func applies(to inputs: BuildInputs) -> Bool {
        switch self {
        case .previousTDS: return true
        case .withoutConfig: return inputs.config != nil
        case .withoutUnprotected: return inputs.unprotected != nil
        case .withoutSurrogates: return inputs.surrogates != nil
        }
    }

    func apply(to inputs: inout BuildInputs, after failure: BuildError, fallback: String) throws {
        switch self {
        case .previousTDS:
            let path = fallback + "/" + ReleaseFiles.inputTDS
            let bytes = try FileIO.read(path)
            var record = InputRecord(
                source: path, etag: nil, lastModified: nil, sha256: Digest.hex(.sha256, bytes), bytes: bytes.count)
            let why = failure.component == .tds ? failure.reason : "the build failed with the new TDS"
            record.fallback = "replaced: \(why)"
            inputs.tds = (bytes, record)
        case .withoutConfig: inputs.config = nil
        case .withoutUnprotected: inputs.unprotected = nil
        case .withoutSurrogates: inputs.surrogates = nil
        }
    }

    /// The rungs tried after `failure`: those that apply, from the one matching the broken input (or from the
    /// bottom when that one does not apply).
    static func ladder(after failure: BuildComponent, inputs: BuildInputs) -> [FallbackStep] {
        let steps = allCases.filter { $0.applies(to: inputs) }
        let first = start(after: failure)
        return steps.contains(first) ? steps.filter { $0 >= first } : steps
    }
}

extension FallbackStep {
    /// The build again after `failure`, each step of the ladder in turn, until one builds; returns its products,
    /// the inputs it used and what it tried.
    static func climb(
        after failure: BuildError, inputs: BuildInputs, fallback: String, options: BuildOptions,
        progress: ReleaseBuilder.Progress
    ) throws -> (BuildProducts, BuildInputs, [String]) {
        var notes = ["build failed: \(failure); trying fallbacks from \(fallback)"]
        var attempt = inputs
        var lastError = failure
        var droppedRecords: [ReleaseInput: InputRecord] = [:]
        for step in FallbackStep.ladder(after: failure.component, inputs: inputs) {
            let label = step.label(fallback: fallback)
            let before = attempt
            do { try step.apply(to: &attempt, after: failure, fallback: fallback) } catch {
                notes.append("fallback \(label): \(error)")
                continue
            }
            for (key, record) in before.records where attempt.records[key] == nil {
                var r = record
                r.fallback = "dropped: \(lastError.reason)"
                droppedRecords[key] = r
            }
            progress("retrying \(label)")
            do {
                var products = try ReleaseBuilder.produce(attempt, options: options, progress: progress)
                for (key, record) in droppedRecords { products.manifest.inputs[key] = record }
                notes.append("fallback used: \(label)")
                return (products, attempt, notes)
            } catch let e as BuildError {
                notes.append("fallback \(label) failed: \(e)")
                lastError = e
            }
        }
        let tried = notes.dropFirst().joined(separator: "; ")
        throw BuildError(component: failure.component, reason: "\(failure.reason); every fallback failed (\(tried))")
    }
}
