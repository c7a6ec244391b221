// The manifest's `webkitVerification` (written by `build --verify-webkit`): WebKit's version and, list by list,
// what its own compiler took, with its one encoder and decoder.

import StrictJSON

/// What WebKitGTK's compiler said of a release's JSON lists: every one accepted (a rejection fails the build).
public struct ReleaseWebKitVerification: Sendable, Equatable {
    /// One accepted list: its file, WebKit's compile time, and the size WebKit compiled it to when it says.
    public struct Accepted: Sendable, Equatable {
        public var list: String
        public var seconds: Double
        public var bytes: Int?

        public init(list: String, seconds: Double, bytes: Int?) {
            self.list = list
            self.seconds = seconds
            self.bytes = bytes
        }
    }

    public var webkitVersion: String
    public var accepted: [Accepted]

    public init(webkitVersion: String, accepted: [Accepted]) {
        self.webkitVersion = webkitVersion
        self.accepted = accepted
    }

    public var jsonValue: JSONValue {
        [
            "webkitVersion": .string(webkitVersion),
            "accepted": .array(
                accepted.map {
                    [
                        "list": .string($0.list), "seconds": .number(WebKitCompileCost.rounded($0.seconds)),
                        "bytes": $0.bytes.map { .number(Double($0)) } ?? .null,
                    ]
                }),
        ]
    }

    public init?(json: JSONValue?) {
        guard let o = json?.objectValue, let version = o["webkitVersion"]?.stringValue,
            let entries = o["accepted"]?.arrayValue
        else { return nil }
        var accepted: [Accepted] = []
        for entry in entries {
            guard let list = entry["list"]?.stringValue, let seconds = entry["seconds"]?.numberValue else {
                return nil
            }
            let bytes: Int?
            switch entry["bytes"] {
            case .none, .some(.null): bytes = nil
            case .some(let value):
                guard let n = value.numberValue else { return nil }
                bytes = Int(n)
            }
            accepted.append(Accepted(list: list, seconds: seconds, bytes: bytes))
        }
        self.init(webkitVersion: version, accepted: accepted)
    }
}
