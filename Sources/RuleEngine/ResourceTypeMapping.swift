import ContentRules

/// Resource type names accepted in requests, and the single WebKit ResourceType bit each becomes.
/// WebKit classifies every load as exactly one type (ResourceLoadInfo.cpp `toResourceType` and the
/// separately issued checks for pings, CSP reports, WebSockets and popups). There is no "object" or
/// "object_subrequest": WebKit types <object>/<embed> loads by what they load (document, image, media...),
/// as the TDS conversion also decides (RuleBuilder's TDSResourceTypes), so a request names that type instead.
public enum ResourceTypeMapping {
    /// (request name, WebKit type name it maps to, why). "document" is resolved by load context.
    public static let table: [(name: String, webKit: String, note: String)] = [
        ("top-document", "top-document", "main-frame document"),
        ("child-document", "child-document", "document in a frame"),
        ("image", "image", ""),
        ("style-sheet", "style-sheet", ""),
        ("script", "script", ""),
        ("font", "font", ""),
        ("svg-document", "svg-document", "SVG document resource"),
        ("media", "media", "audio, video, text tracks"),
        ("popup", "popup", "window.open"),
        ("ping", "ping", "<a ping>, hyperlink auditing"),
        ("fetch", "fetch", "fetch(), XMLHttpRequest"),
        ("websocket", "websocket", "WebSocket handshake"),
        ("csp-report", "csp-report", "CSP/COOP violation report"),
        ("other", "other", "everything else"),
        ("document", "top-document|child-document", "top-document in the top frame, else child-document"),
        ("main_frame", "top-document", ""),
        ("sub_frame", "child-document", ""),
        ("subdocument", "child-document", ""),
        ("stylesheet", "style-sheet", ""),
        ("xslt", "style-sheet", "XSL style sheets load as style sheets"),
        ("xmlhttprequest", "fetch", "raw loads by XHR/fetch are Fetch"),
        ("imageset", "image", ""),
        ("beacon", "other", "navigator.sendBeacon is a Beacon resource: Other"),
        ("csp_report", "csp-report", ""),
        ("manifest", "other", "application manifests"),
        ("icon", "other", "favicons"),
        ("eventsource", "other", "raw loads not issued by XHR/fetch"),
    ]

    /// WebKit's single ResourceType bits by name (a trigger's "other" also covers ping and csp-report; a load's does
    /// not).
    static let webKitTypes: [String: UInt32] = [
        "top-document": ResourceTypeName.topDocument, "child-document": ResourceTypeName.childDocument,
        "image": ResourceTypeName.image, "style-sheet": ResourceTypeName.styleSheet, "script": ResourceTypeName.script,
        "font": ResourceTypeName.font, "svg-document": ResourceTypeName.svgDocument, "media": ResourceTypeName.media,
        "popup": ResourceTypeName.popup, "ping": ResourceTypeName.ping, "fetch": ResourceTypeName.fetch,
        "websocket": ResourceTypeName.webSocket, "csp-report": ResourceTypeName.cspReport,
        "other": ResourceTypeName.other,
    ]

    /// The WebKit ResourceType bit for a request's type name; "document" needs the load context.
    public static func resourceType(_ name: String, mainFrameContext: Bool) -> UInt32? {
        var name = name
        return name.withUTF8 { resourceType(utf8: $0, mainFrameContext: mainFrameContext) }
    }

    /// As `resourceType(_:mainFrameContext:)`, for the name's UTF-8 bytes (a request line's, read in place).
    /// Bytes compare as String's `==` does here: every name is ASCII without K, `;` or `` ` ``, the only ASCII
    /// characters that another character is canonically equivalent to.
    public static func resourceType(utf8 name: UnsafeBufferPointer<UInt8>, mainFrameContext: Bool) -> UInt32? {
        unresolvedTypeBit(utf8: name).map { resolve($0, mainFrameContext: mainFrameContext) }
    }

    /// The bit of a known name, 0 for "document" (whose bit the load context decides).
    static func unresolvedTypeBit(utf8 name: UnsafeBufferPointer<UInt8>) -> UInt32? {
        guard let key = PackedName(name) else { return nil }
        for (packed, bits) in packedBits where packed == key { return bits }
        return nil
    }

    /// The bit of an `unresolvedTypeBit` answer in a load context.
    static func resolve(_ typeBit: UInt32, mainFrameContext: Bool) -> UInt32 {
        typeBit != 0 ? typeBit : (mainFrameContext ? ResourceTypeName.topDocument : ResourceTypeName.childDocument)
    }

    /// The table's names packed, with their bits (0: "document"), the most common first.
    private static let packedBits: [(PackedName, UInt32)] = {
        let first = ["script", "image", "xmlhttprequest", "fetch", "style-sheet", "stylesheet"]
        let rows = table.sorted {
            (first.firstIndex(of: $0.name) ?? first.count) < (first.firstIndex(of: $1.name) ?? first.count)
        }
        return rows.map { (PackedName($0.name)!, $0.webKit.contains("|") ? 0 : webKitTypes[$0.webKit]!) }
    }()

    /// The help text's table.
    public static var helpTable: String {
        var s = ""
        for (name, webKit, note) in table {
            let left = "  " + name + String(repeating: " ", count: max(1, 18 - name.count))
            s += left + "-> " + webKit + (note.isEmpty ? "" : "  (" + note + ")") + "\n"
        }
        return s
    }
}
