// The content gates of `build --previous` (`--max-tracker-removal`, `--max-newly-allowed`), beside the compile-cost
// gate: a release that drops a large share of the previous release's trackers or newly allows many corpus requests
// is far more often a broken or stale upstream file than a real change, and the apps would ship it silently. Also
// the one place that tells whether the new TDS is older than the previous release's.

import Foundation
import Release
import RuleDiff
import RuleEngine

/// The limits of the content gates; nil: that gate is off.
public struct ContentGateLimits: Sendable, Equatable {
    /// Refuse when more than this percentage of the previous release's trackers is gone.
    public var maxTrackerRemovalPercent: Double? = nil
    /// Refuse when more than this many requests of the derived corpus are allowed now and were blocked before.
    public var maxNewlyAllowed: Int? = nil

    public init(maxTrackerRemovalPercent: Double? = nil, maxNewlyAllowed: Int? = nil) {
        self.maxTrackerRemovalPercent = maxTrackerRemovalPercent
        self.maxNewlyAllowed = maxNewlyAllowed
    }

    public var isOff: Bool { maxTrackerRemovalPercent == nil && maxNewlyAllowed == nil }
}

/// What the content gates measure of a release against the previous one.
public struct ContentChange: Sendable, Equatable {
    public var previousTrackers: Int
    public var trackersRemoved: Int
    public var newlyAllowed: Int

    public var removedPercent: Double {
        previousTrackers == 0 ? 0 : Double(trackersRemoved) * 100 / Double(previousTrackers)
    }

    /// From the comparison `changes.md` is written from.
    init(_ report: DiffReport, previousTrackers: Int) throws {
        self.previousTrackers = previousTrackers
        trackersRemoved = report.dataset?.trackersRemoved.count ?? 0
        var allowed = 0
        try report.requests?.changed.forEachPage { page in
            allowed += page.changes.filter { $0.old.outcome != .allowed && $0.new.outcome == .allowed }.count
        }
        newlyAllowed = allowed
    }

    public init(previousTrackers: Int, trackersRemoved: Int, newlyAllowed: Int) {
        (self.previousTrackers, self.trackersRemoved, self.newlyAllowed) =
            (previousTrackers, trackersRemoved, newlyAllowed)
    }

    /// The gate's refusal (component `gate`), nil when the change is within `limits`. `olderTDS` is named in it.
    public func gate(_ limits: ContentGateLimits, previousRelease: String, olderTDS: String?) -> BuildError? {
        var over: [String] = []
        if let pct = limits.maxTrackerRemovalPercent, removedPercent > pct {
            over.append(
                "\(trackersRemoved) of the previous release's \(previousTrackers) trackers removed "
                    + "(\(Self.percent(removedPercent)), over --max-tracker-removal \(Self.percent(pct)))")
        }
        if let n = limits.maxNewlyAllowed, newlyAllowed > n {
            over.append(
                "\(newlyAllowed) corpus requests newly allowed (over --max-newly-allowed \(n))")
        }
        guard !over.isEmpty else { return nil }
        return BuildError(
            component: .gate,
            reason: over.joined(separator: "; ") + " against \(previousRelease)"
                + (olderTDS.map { "; \($0)" } ?? "") + "; nothing was published")
    }

    static func percent(_ v: Double) -> String {
        v == v.rounded() ? "\(Int(v))%" : String(format: "%.1f%%", v)
    }
}

enum TDSAge {
    /// "the new TDS ... is older than ..." when both TDS records carry an HTTP Last-Modified date and the new one is
    /// earlier. Files carry no date of their own (the TDS JSON has no version or date field): nil then.
    static func olderNote(new: InputRecord, previous: InputRecord?, previousRelease: String) -> String? {
        guard let newDate = new.lastModified.flatMap(httpDate), let old = previous?.lastModified,
            let oldDate = httpDate(old), newDate < oldDate
        else { return nil }
        return "the new TDS \(new.source) (Last-Modified \(new.lastModified!)) is older than the TDS of "
            + "\(previousRelease) (Last-Modified \(old))"
    }

    /// An HTTP date (RFC 9110's IMF-fixdate, which every server sends).
    static func httpDate(_ text: String) -> Date? {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return f.date(from: text)
    }
}
