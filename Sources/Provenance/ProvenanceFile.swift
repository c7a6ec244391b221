// A provenance file (a JSON array parallel to a list's rules, one object per line) written and read: the one
// decoder of `RuleProvenance.jsonValue`'s schema. Reading is strict: an unknown field, a field of the wrong type,
// an unknown source or role is an error naming the file, the entry and the field.

import StrictJSON

/// A provenance file that cannot be read.
public struct ProvenanceError: Error, Equatable, CustomStringConvertible {
    public let file: String
    /// The entry (its index in the array), nil for the file as a whole.
    public let entry: Int?
    /// The entry's field, nil for the entry as a whole.
    public let field: String?
    public let reason: String

    public init(file: String, entry: Int?, field: String?, reason: String) {
        self.file = file
        self.entry = entry
        self.field = field
        self.reason = reason
    }

    public var description: String {
        var s = file + ": "
        if let entry { s += "entry \(entry)" + (field.map { ", field \"\($0)\"" } ?? "") + ": " }
        return s + reason
    }
}

extension RuleProvenance {
    /// A provenance file: a JSON array parallel to the rules, one object per line.
    public static func listBytes(_ provenance: [RuleProvenance]) -> [UInt8] { listBytes(provenance[...]) }

    /// The entries of a share of a list (`JSONWriter.joinedLinesArrays` joins the shares into its file).
    public static func listBytes(_ provenance: ArraySlice<RuleProvenance>) -> [UInt8] {
        JSONWriter.linesArray(provenance) { $0.jsonValue }
    }

    /// The entries of a provenance file's bytes; `file` names it in errors.
    public static func decodeList(_ bytes: [UInt8], file: String) throws -> [RuleProvenance] {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch let e as JSONParseError {
            throw ProvenanceError(file: file, entry: nil, field: nil, reason: "invalid JSON at \(e)")
        }
        guard case .array(let entries) = value else {
            throw ProvenanceError(
                file: file, entry: nil, field: nil,
                reason: "provenance must be a JSON array (one entry per rule), not \(value.typeName)")
        }
        return try entries.enumerated().map { i, entry in
            do {
                return try RuleProvenance(json: entry)
            } catch let e as EntryError {
                throw ProvenanceError(file: file, entry: i, field: e.field, reason: e.reason)
            }
        }
    }

    /// One entry as `jsonValue` writes it.
    init(json: JSONValue) throws {
        guard case .object(let o) = json else { throw EntryError(nil, "an object, not \(json.typeName)") }
        let fields = EntryFields(object: o)
        if let unknown = o.keys.first(where: { Field(rawValue: $0) == nil }) {
            let known = Field.allCases.map(\.rawValue).joined(separator: ", ")
            throw EntryError(unknown, "unknown field (known: \(known))")
        }
        guard let sourceText = try fields.string(.source) else { throw EntryError(.source, "missing") }
        guard let source = Source(rawValue: sourceText) else {
            let known = Source.allCases.map(\.rawValue).joined(separator: ", ")
            throw EntryError(.source, "unknown source \"\(sourceText)\" (known: \(known))")
        }
        self.init(
            source: source, tracker: try fields.string(.tracker), part: try o[.rule].map(TrackerPart.init),
            cnameAlias: try fields.string(.cname), allowlistIndex: try fields.count(.index),
            allowlistRule: try fields.string(.allowlistRule), entity: try fields.string(.entity),
            filterLines: try fields.counts(.lines), list: try fields.string(.list), filter: try fields.string(.filter))
        if let text = try fields.string(.role) { (role, form) = try Self.role(text) }
        guard try fields.string(.name) == requestBlocklistName else {
            throw EntryError(
                .name,
                requestBlocklistName.map { "must be \"\($0)\" (from the source, tracker and index)" }
                    ?? "only a requestBlocklist entry with a tracker and an index has one")
        }
    }

    /// A role as written: the role, then the url-filter form's name ("block host"), or the form's name alone.
    static func role(_ text: String) throws -> (Role?, RecordedFilterForm?) {
        if let role = Role(text: text) { return (role, nil) }
        if let kind = FilterForm.Kind(rawValue: text) { return (nil, RecordedFilterForm(kind: kind)) }
        if let space = text.lastIndex(of: " "), let role = Role(text: String(text[..<space])),
            let kind = FilterForm.Kind(rawValue: String(text[text.index(after: space)...]))
        {
            return (role, RecordedFilterForm(kind: kind))
        }
        throw EntryError(.role, "unknown role \"\(text)\"")
    }
}

extension RuleProvenance.TrackerPart {
    /// A rule's index, or the name `jsonValue` gives a part that is not a rule.
    init(json: JSONValue) throws {
        if case .number(let n) = json {
            guard let i = EntryFields.count(n) else {
                throw EntryError(.rule, "\(JSONWriter.string(json)) is not a rule index")
            }
            self = .rule(i)
            return
        }
        let named: [Self] = [.default, .entity, .popup]
        guard let part = named.first(where: { $0.jsonValue == json }) else {
            let names = named.map { JSONWriter.string($0.jsonValue) }.joined(separator: ", ")
            throw EntryError(.rule, "must be a rule index or one of \(names), not \(JSONWriter.string(json))")
        }
        self = part
    }
}

/// What is wrong with one entry, before the file is known.
struct EntryError: Error {
    let field: String?
    let reason: String

    init(_ field: String?, _ reason: String) {
        self.field = field
        self.reason = reason
    }

    init(_ field: RuleProvenance.Field, _ reason: String) { self.init(field.rawValue, reason) }
}

/// An entry's members, each of its one type.
struct EntryFields {
    let object: JSONObject

    func string(_ key: RuleProvenance.Field) throws -> String? {
        guard let v = object[key] else { return nil }
        guard case .string(let s) = v else { throw EntryError(key, "must be a string, not \(v.typeName)") }
        return s
    }

    func count(_ key: RuleProvenance.Field) throws -> Int? {
        guard let v = object[key] else { return nil }
        guard case .number(let n) = v, let i = Self.count(n) else {
            throw EntryError(key, "must be a whole number >= 0, not \(JSONWriter.string(v))")
        }
        return i
    }

    func counts(_ key: RuleProvenance.Field) throws -> [Int]? {
        guard let v = object[key] else { return nil }
        guard case .array(let items) = v else { throw EntryError(key, "must be an array, not \(v.typeName)") }
        return try items.map {
            guard case .number(let n) = $0, let i = Self.count(n) else {
                throw EntryError(key, "must hold whole numbers >= 0, not \(JSONWriter.string($0))")
            }
            return i
        }
    }

    /// `n` as an index or count: whole, not negative, exact in a Double.
    static func count(_ n: Double) -> Int? {
        n >= 0 && n < 9_007_199_254_740_992 && n.rounded() == n ? Int(n) : nil
    }
}
