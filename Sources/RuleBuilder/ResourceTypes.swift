// TDS resource types (browser-extension webRequest names) -> WebKit resource-type bits, decided from how
// WebKit classifies loads (WebKit's Source/WebCore/loader/ResourceLoadInfo.cpp):
//
// | TDS type                | WebKit             | exact? |
// |-------------------------|--------------------|--------|
// | script                  | script             | yes (script and JSON loads) |
// | image, imageset         | image              | yes |
// | stylesheet, xslt        | style-sheet        | yes (CSS and XSL) |
// | font                    | font               | yes |
// | media                   | media              | yes (media and text tracks) |
// | xmlhttprequest          | fetch              | yes (XHR and fetch()) |
// | subdocument, sub_frame  | child-document     | yes |
// | main_frame              | top-document       | yes |
// | websocket               | websocket          | yes |
// | csp_report              | csp-report         | yes |
// | ping                    | ping               | no: WebKit types `<a ping>` as ping but navigator.sendBeacon as
// other |
// | beacon                  | other              | no: WebKit's "other" also covers ping and csp-report loads |
// | other                   | other              | no: WebKit's "other" also covers ping and csp-report loads |
// | object, object_subrequest | (none)           | no: WebKit types <object>/<embed> loads by their content |
// | anything else           | (none)             | unknown type |
//
// A type with no WebKit equivalent is dropped from its list (a request of that type cannot be recognised); when
// nothing is left the condition can never hold. Every inexact mapping is reported.

import ContentRules

enum TDSResourceTypes {
    enum Mapping {
        case exact(UInt32)
        case approximate(UInt32, String)
        case none(String)
    }

    static func map(_ type: String) -> Mapping {
        switch type {
        case "script": return .exact(ResourceTypeName.script)
        case "image", "imageset": return .exact(ResourceTypeName.image)
        case "stylesheet", "xslt": return .exact(ResourceTypeName.styleSheet)
        case "font": return .exact(ResourceTypeName.font)
        case "media": return .exact(ResourceTypeName.media)
        case "xmlhttprequest": return .exact(ResourceTypeName.fetch)
        case "subdocument", "sub_frame": return .exact(ResourceTypeName.childDocument)
        case "main_frame": return .exact(ResourceTypeName.topDocument)
        case "websocket": return .exact(ResourceTypeName.webSocket)
        case "csp_report": return .exact(ResourceTypeName.cspReport)
        case "ping":
            return .approximate(
                ResourceTypeName.ping,
                "WebKit types <a ping> loads as ping but navigator.sendBeacon loads as other, which \"ping\" does not "
                    + "cover here"
            )
        case "beacon":
            return .approximate(
                otherBits, "WebKit types beacons as other, and WebKit's \"other\" also covers ping and csp-report loads"
            )
        case "other":
            return .approximate(otherBits, "WebKit's \"other\" also covers ping and csp-report loads")
        case "object", "object_subrequest":
            return .none(
                "WebKit types <object>/<embed> loads by their content (document, image, media...), so \"\(type)\" "
                    + "cannot be recognised"
            )
        default:
            return .none("\"\(type)\" is not a resource type")
        }
    }

    /// The bits of WebKit's "other" name.
    static let otherBits = ResourceTypeName.flags(of: "other")!

    /// WebKit names for a bit set, in a fixed order. "other" stands for other|ping|csp-report.
    static func names(_ bits: UInt32) -> [String] {
        var out: [String] = []
        var rest = bits
        if rest & ResourceTypeName.other != 0 {
            rest &= ~otherBits
        }
        let ordered: [(String, UInt32)] = [
            ("top-document", ResourceTypeName.topDocument), ("child-document", ResourceTypeName.childDocument),
            ("image", ResourceTypeName.image), ("style-sheet", ResourceTypeName.styleSheet),
            ("script", ResourceTypeName.script),
            ("font", ResourceTypeName.font), ("svg-document", ResourceTypeName.svgDocument),
            ("media", ResourceTypeName.media),
            ("popup", ResourceTypeName.popup), ("ping", ResourceTypeName.ping), ("fetch", ResourceTypeName.fetch),
            ("websocket", ResourceTypeName.webSocket), ("csp-report", ResourceTypeName.cspReport),
        ]
        for (name, bit) in ordered where rest & bit != 0 { out.append(name) }
        if bits & ResourceTypeName.other != 0 { out.append("other") }
        return out
    }
}
