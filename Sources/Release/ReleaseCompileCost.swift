// The WebKit compile cost a manifest records (`webkitCompileCost`, written by `build --previous`): each list's
// figures and the release's total, with their one encoder and decoder.

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
    public static func total(_ costs: [WebKitCompileCost]) -> WebKitCompileCost {
        WebKitCompileCost(
            seconds: costs.map(\.seconds).reduce(0, +), cpuSeconds: costs.map(\.cpuSeconds).reduce(0, +),
            memoryKB: costs.map(\.memoryKB).max() ?? 0, bytes: costs.map(\.bytes).reduce(0, +))
    }

    public var jsonFields: [(String, JSONValue)] {
        [
            ("seconds", .number(Self.rounded(seconds))), ("cpuSeconds", .number(Self.rounded(cpuSeconds))),
            ("memoryKB", .number(Double(memoryKB))), ("bytes", .number(Double(bytes))),
        ]
    }

    public init?(json: JSONValue?) {
        guard let o = json?.objectValue, let s = o["seconds"]?.numberValue, let cpu = o["cpuSeconds"]?.numberValue,
            let mem = o["memoryKB"]?.numberValue, let bytes = o["bytes"]?.numberValue
        else { return nil }
        self.init(seconds: s, cpuSeconds: cpu, memoryKB: Int(mem), bytes: Int(bytes))
    }

    public static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
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
    public func cheaper(_ other: ReleaseCompileCost) -> ReleaseCompileCost {
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
}
