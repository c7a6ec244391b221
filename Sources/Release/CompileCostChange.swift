// What `build --previous` says of WebKit's compile cost: the previous release's and the new one's, as changes.md,
// changes.html and changes.json report them.

import Foundation
import StrictJSON

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
    public static func percent(_ new: Double, _ old: Double) -> Double { old > 0 ? (new / old - 1) * 100 : 0 }

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

    public static func format(_ percent: Double) -> String {
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
