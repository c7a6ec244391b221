// JSON paths name the place of a problem inside a dataset, e.g. `$.trackers["a.com"].rules[3].rule`,
// so that a lenient decoder can say exactly what it dropped and why.

public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }
    public private(set) var components: [Component] = []

    public init(_ components: [Component] = []) { self.components = components }

    public static let root = JSONPath()
    /// Longer keys are shown cut to this many bytes in descriptions.
    public static let keyShownBytes = 100

    public func appending(_ key: String) -> JSONPath { JSONPath(components + [.key(key)]) }
    public func appending(_ index: Int) -> JSONPath { JSONPath(components + [.index(index)]) }
    public static func / (path: JSONPath, key: String) -> JSONPath { path.appending(key) }
    public static func / (path: JSONPath, index: Int) -> JSONPath { path.appending(index) }

    public var description: String {
        var s = "$"
        for c in components {
            switch c {
            case .index(let i): s += "[\(i)]"
            case .key(let k):
                if !k.isEmpty, k.utf8.count <= JSONPath.keyShownBytes,
                    k.unicodeScalars.allSatisfy({
                        ($0.properties.isAlphabetic && $0.isASCII) || $0 == "_" || ("0"..."9").contains($0)
                    }),
                    !("0"..."9").contains(k.unicodeScalars.first!)
                {
                    s += ".\(k)"
                } else if k.utf8.count > JSONPath.keyShownBytes {
                    // A hostile key (a 200 MB "domain") must not be copied whole into every message.
                    let head = String(decoding: k.utf8.prefix(JSONPath.keyShownBytes), as: UTF8.self)
                    s += "[" + JSONWriter.string(.string(head)) + "…(\(k.utf8.count) bytes)]"
                } else {
                    s += "[" + JSONWriter.string(.string(k)) + "]"
                }
            }
        }
        return s
    }
}
