// A JSON value model that keeps what WebKit's and DuckDuckGo's parsers observe:
// numbers are doubles, duplicate keys resolve to the last value, and object keys keep
// first-appearance order so that canonical output is stable.

public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var numberValue: Double? { if case .number(let n) = self { return n } else { return nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o } else { return nil } }
    public var isNull: Bool { if case .null = self { return true } else { return false } }

    public subscript(key: String) -> JSONValue? { objectValue?[key] }
}

/// An ordered JSON object. Setting an existing key replaces its value in place (last wins, first position kept).
/// Keys compare as Strings do (canonically equivalent keys are one key), and two objects are equal when they
/// hold the same keys with equal values, in any order.
public struct JSONObject: Sendable, Hashable, Sequence {
    public private(set) var keys: [String] = []
    /// The values, parallel to `keys`.
    public private(set) var values: [JSONValue] = []
    /// Where each key is, once the object has more than `searchedCount` keys. Smaller objects, which are almost
    /// all of a TDS's or a rule list's, are searched in order: a dictionary of their own cost more to build
    /// than the search costs, and building them was most of the time of parsing a TDS.
    private var positions: [String: Int]? = nil
    private static let searchedCount = 8

    public init() {}
    public init(_ pairs: [(String, JSONValue)]) {
        for (k, v) in pairs { self[k] = v }
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        var i = 0
        while i < keys.count {
            if keys[i] == key { return i }
            i += 1
        }
        return nil
    }

    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { values[$0] } }
        set {
            if let v = newValue {
                if let p = position(of: key) {
                    values[p] = v
                    return
                }
                keys.append(key)
                values.append(v)
                if positions != nil {
                    positions![key] = keys.count - 1
                } else if keys.count > Self.searchedCount {
                    indexPositions()
                }
            } else if let p = position(of: key) {
                keys.remove(at: p)
                values.remove(at: p)
                if positions != nil { indexPositions() }
            }
        }
    }

    private mutating func indexPositions() {
        var index: [String: Int] = [:]
        index.reserveCapacity(keys.count)
        for (i, k) in keys.enumerated() { index[k] = i }
        positions = index
    }

    public func contains(_ key: String) -> Bool { position(of: key) != nil }

    public struct Iterator: IteratorProtocol {
        let keys: [String], values: [JSONValue]
        var i = 0
        public mutating func next() -> (key: String, value: JSONValue)? {
            guard i < keys.count else { return nil }
            defer { i += 1 }
            return (keys[i], values[i])
        }
    }

    public func makeIterator() -> Iterator { Iterator(keys: keys, values: values) }

    /// As a dictionary's: the same keys, with equal values.
    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.keys.count == b.keys.count else { return false }
        for (i, k) in a.keys.enumerated() {
            guard let v = b[k], v == a.values[i] else { return false }
        }
        return true
    }

    /// As a dictionary's: independent of the order of the keys, as equality is.
    public func hash(into h: inout Hasher) {
        var commutative = 0
        for (i, k) in keys.enumerated() {
            var e = h
            e.combine(k)
            e.combine(values[i])
            commutative ^= e.finalize()
        }
        h.combine(commutative)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral s: String) { self = .string(s) }
    public init(booleanLiteral b: Bool) { self = .bool(b) }
    public init(integerLiteral i: Int) { self = .number(Double(i)) }
    public init(floatLiteral d: Double) { self = .number(d) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
    public init(nilLiteral: ()) { self = .null }
}
