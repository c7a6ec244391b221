// The page's lookup tables: PageData's trackers, CNAME aliases, entities and display names laid out as two
// strings that the page searches and decodes one line at a time (PageScript.js, createTables). A JavaScript
// string literal costs the page almost nothing to load, so start-up no longer grows with the TDS: nothing is
// indexed before the first request, and a request reads only the lines of its host's suffixes.
//
// The three tables are then compressed in blocks (PageBlocks).
//
// hosts: one line per host (tracker, alias or both), sorted by the key's UTF-16 code units (JavaScript's `<`,
// for a binary search), each ended by "|":
//     key;flags;owner;category;site;cname;rule;rule...
//   flags:    "" (an alias only), "s" (a shadow tracker, `{}`), else "b"/"i"/"n" (default block, ignore, none),
//             then "p" when the tracker is a public suffix.
//   owner:    "" or the entity's offset in `entities` (base 36, UTF-16 units); "*" before it: a shape bound to
//             this host.
//   category: "" or the index in `categories` (base 36).   site / cname: "" or "=" + the host.
//   rule:     "~" + the rest of a rule that starts with the key with its dots escaped (most TDS rules), "=" + a
//             rule with nothing else, or the JSON array [rule, surrogate, action, options, exceptions].
// entities: "|"-ended lines at the offsets the hosts name: name;display;domain;domain...
//   display:  "" (the name) or "=" + the display name.
//   A shape is the entity of exactly one tracker whose host is one of its domains, written with "$" for that
//   host, so that entities that differ only by it (1,803 "Leven Labs, Inc. DBA Admiral (host)") are one line.
// entityRefs: [name, offset] for the click-to-load entities, which the page looks up by name.
// allowlist: the tracker allowlist's {regex, domains} entries as lines (allowlistLines), read at the first request.
// A line may stop before its last empty fields.
//
// Every dataset string is escaped (% | ; $ ` # become %XX, \ becomes `: regexes are full of backslashes, which cost
// two bytes in a JSON string), so a separator or placeholder never comes from the data;
// the strings are then JSON data written with .scriptSafe, as the rest of DATA. Identity is by exact bytes: two
// spellings of é are two hosts, as they are for the page.

import StrictJSON
import TrackerData

enum PageTable {
    /// The page's DATA: PageData's tree with its trackers, cnames, entities and displayNames replaced by the tables.
    static func layout(_ tree: JSONObject) -> JSONObject {
        let trackers = pairs(tree["trackers"])
        let categories = distinctSorted(trackers.compactMap { $0.value["category"]?.stringValue })
        let entities = EntityLines(tree: tree, trackers: trackers)
        var page = tree
        for key in ["trackers", "cnames", "entities", "displayNames"] { page[key] = nil }
        page["hosts"] = PageBlocks.keyed(
            hostLines(
                trackers: trackers, aliases: pairs(tree["cnames"]),
                entities: entities, categories: categories))
        page["entities"] = PageBlocks.offset(entities.text)
        page["categories"] = .array(categories.map { .string($0) })
        page["entityRefs"] = .array(entities.named.map { [.string($0.name), .string(base36($0.offset))] })
        if let allowlist = tree["allowlist"]?.arrayValue {
            page["allowlist"] = .string(PageBlocks.deflate(allowlistLines(allowlist)))
        }
        return page
    }

    /// [key, value] pairs as PageData writes dataset-keyed maps.
    static func pairs(_ value: JSONValue?) -> [(key: String, value: JSONValue)] {
        (value?.arrayValue ?? []).compactMap { p in
            guard let a = p.arrayValue, a.count == 2, let k = a[0].stringValue else { return nil }
            return (k, a[1])
        }
    }

    static func hostLines(
        trackers: [(key: String, value: JSONValue)], aliases: [(key: String, value: JSONValue)],
        entities: EntityLines, categories: [String]
    ) -> [(key: String, line: String)] {
        var byKey: [[UInt8]: (key: String, tracker: JSONObject?, target: String?)] = [:]
        for t in trackers {
            byKey[Array(t.key.utf8), default: (t.key, nil, nil)].tracker = t.value.objectValue ?? JSONObject()
        }
        for a in aliases { byKey[Array(a.key.utf8), default: (a.key, nil, nil)].target = a.value.stringValue }
        let categoryIndex = Dictionary(
            categories.enumerated().map { (Array($1.utf8), $0) }, uniquingKeysWith: { a, _ in a })
        var out: [(key: String, line: String)] = []
        for entry in byKey.values.sorted(by: { $0.key.utf16.lexicographicallyPrecedes($1.key.utf16) }) {
            var fields = [escape(entry.key)]
            if let t = entry.tracker {
                fields += trackerFields(t, key: entry.key, entities: entities, categoryIndex: categoryIndex)
            } else {
                fields += ["", "", "", ""]
            }
            fields.insert(entry.target.map { "=" + escape($0) } ?? "", at: 5)
            if let rules = entry.tracker?["rules"]?.arrayValue {
                fields += rules.map { ruleField($0, key: entry.key) }
            }
            // The page reads a missing field as empty.
            while fields.count > 2, fields.last == "" { fields.removeLast() }
            out.append((entry.key, fields.joined(separator: ";") + "|"))
        }
        return out
    }

    /// The allowlist entries ({regex, domains?}) as lines: "~" + the regex after the TDS conventions' subdomain
    /// prefix (all of them in practice) or "=" + the regex, then, when the entry has sites, ";=" and one field each.
    static func allowlistLines(_ entries: [JSONValue]) -> String {
        let prefix = Array(TDSConventions.subdomainPrefix.utf16)
        var out = ""
        for e in entries {
            let units = Array((e["regex"]?.stringValue ?? "").utf16)
            var fields = [
                units.starts(with: prefix)
                    ? "~" + escape(String(decoding: units[prefix.count...], as: UTF16.self))
                    : "=" + escape(String(decoding: units, as: UTF16.self))
            ]
            if let domains = e["domains"]?.arrayValue {
                fields += ["="] + domains.compactMap(\.stringValue).map { escape($0) }
            }
            out += fields.joined(separator: ";") + "|"
        }
        return out
    }

    /// flags, owner, category, site (the fields after the key and before cname).
    static func trackerFields(_ t: JSONObject, key: String, entities: EntityLines, categoryIndex: [[UInt8]: Int])
        -> [String]
    {
        guard t["rules"] != nil else { return ["s", "", "", ""] }
        var flags = t["default"]?.stringValue.map { String($0.prefix(1)) } ?? "n"
        if t["publicSuffix"]?.boolValue == true { flags += "p" }
        let owner = t["owner"]?.stringValue.flatMap { entities.ref(owner: $0, host: key) } ?? ""
        let category = t["category"]?.stringValue.flatMap { categoryIndex[Array($0.utf8)] }.map(base36) ?? ""
        let site = t["site"]?.stringValue.map { "=" + escape($0) } ?? ""
        return [flags, owner, category, site]
    }

    static func ruleField(_ rule: JSONValue, key: String) -> String {
        let text = rule["rule"]?.stringValue ?? ""
        guard rule.objectValue?.count == 1 else {
            let parts: [JSONValue] =
                [.string(text)] + ["surrogate", "action", "options", "exceptions"].map { rule[$0] ?? .null }
            return escape(JSONWriter.string(.array(parts), options: [.sortedKeys]))
        }
        var prefix: [UInt16] = []
        for u in key.utf16 { prefix += u == UInt16(UInt8(ascii: ".")) ? [UInt16(UInt8(ascii: "\\")), u] : [u] }
        let units = Array(text.utf16)
        if units.starts(with: prefix) { return "~" + escape(String(decoding: units[prefix.count...], as: UTF16.self)) }
        return "=" + escape(text)
    }

    /// `text` with % | ; $ ` # written as %XX and \\ as ` (the page's `unesc`).
    static func escape(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            switch s {
            case "%": out.append(contentsOf: "%25".unicodeScalars)
            case "|": out.append(contentsOf: "%7C".unicodeScalars)
            case ";": out.append(contentsOf: "%3B".unicodeScalars)
            case "$": out.append(contentsOf: "%24".unicodeScalars)
            case "`": out.append(contentsOf: "%60".unicodeScalars)
            case "#": out.append(contentsOf: "%23".unicodeScalars) // PageBlocks' copy marker
            // A backslash costs two bytes in the JSON string and regexes are full of them.
            case "\\": out.append("`")
            default: out.append(s)
            }
        }
        return String(out)
    }

    /// `text` escaped, with "$" for each occurrence of `host` (UTF-16 units, as the page's split/join).
    static func escape(_ text: String, binding host: String?) -> String {
        guard let host, !host.isEmpty else { return escape(text) }
        let units = Array(text.utf16), needle = Array(host.utf16)
        var pieces: [String] = [], start = 0, i = 0
        while i + needle.count <= units.count {
            if units[i..<(i + needle.count)].elementsEqual(needle) {
                pieces.append(String(decoding: units[start..<i], as: UTF16.self))
                i += needle.count
                start = i
            } else {
                i += 1
            }
        }
        pieces.append(String(decoding: units[start...], as: UTF16.self))
        return pieces.map(escape).joined(separator: "$")
    }

    static func base36(_ n: Int) -> String { String(n, radix: 36) }

    static func distinctSorted(_ strings: [String]) -> [String] {
        var seen: Set<[UInt8]> = []
        return strings.filter { seen.insert(Array($0.utf8)).inserted }.sorted(by: byteOrder)
    }
}

/// The entities text and where each entity is in it.
struct EntityLines {
    var text = ""
    /// Owner name (bytes) -> offset of its line and whether the line is a shape bound to the owner's one tracker.
    private var lines: [[UInt8]: (offset: Int, boundTo: String?)] = [:]
    var named: [(name: String, offset: Int)] = []

    init(tree: JSONObject, trackers: [(key: String, value: JSONValue)]) {
        var owned: [[UInt8]: [String]] = [:]
        for t in trackers {
            if let owner = t.value["owner"]?.stringValue { owned[Array(owner.utf8), default: []].append(t.key) }
        }
        let clickToLoad = Set(
            (tree["clickToLoad"]?["supported"]?.arrayValue ?? [])
                .compactMap { $0.arrayValue?.last?.stringValue.map { Array($0.utf8) } })
        let display = Dictionary(
            PageTable.pairs(tree["displayNames"]).compactMap { p in p.value.stringValue.map { (Array(p.key.utf8), $0) }
            },
            uniquingKeysWith: { a, _ in a })
        // Lines first, then laid out most used first: the shape 1,803 trackers name is at offset 0 ("*0").
        var lineOf: [(name: String, line: String, boundTo: String?)] = []
        var uses: [[UInt8]: Int] = [:]
        for (name, value) in PageTable.pairs(tree["entities"]) {
            let nameBytes = Array(name.utf8)
            let domains = (value.arrayValue ?? []).compactMap(\.stringValue)
            var host: String? = nil
            if let mine = owned[nameBytes], mine.count == 1, !clickToLoad.contains(nameBytes),
                domains.contains(where: { sameBytes($0, mine[0]) })
            {
                host = mine[0]
            }
            var fields = [PageTable.escape(name, binding: host)]
            if let shown = display[nameBytes], !sameBytes(shown, name) {
                fields.append("=" + PageTable.escape(shown, binding: host))
            } else {
                fields.append("")
            }
            fields += domains.map { PageTable.escape($0, binding: host) }
            let line = fields.joined(separator: ";")
            lineOf.append((name, line, host))
            uses[Array(line.utf8), default: 0] += max(owned[nameBytes]?.count ?? 0, 1)
        }
        var offsets: [[UInt8]: Int] = [:]
        let byUse = lineOf.map(\.line).enumerated().sorted { a, b in
            let (ua, ub) = (uses[Array(a.element.utf8)]!, uses[Array(b.element.utf8)]!)
            return ua != ub ? ua > ub : a.offset < b.offset
        }
        for (_, line) in byUse where offsets[Array(line.utf8)] == nil {
            offsets[Array(line.utf8)] = text.utf16.count
            text += line + "|"
        }
        for e in lineOf {
            let offset = offsets[Array(e.line.utf8)]!
            lines[Array(e.name.utf8)] = (offset, e.boundTo)
            if clickToLoad.contains(Array(e.name.utf8)) { named.append((e.name, offset)) }
        }
    }

    /// The owner field of a tracker line.
    func ref(owner: String, host: String) -> String? {
        guard let line = lines[Array(owner.utf8)] else { return nil }
        return (line.boundTo != nil ? "*" : "") + PageTable.base36(line.offset)
    }
}
