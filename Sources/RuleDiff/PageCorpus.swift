// Requests from saved HTML pages (`diff --pages DIR`): every subresource a page would load, with the
// type WebKit would give it, extracted with libxml2's HTML parser (lenient, like a browser, no network).
// A page's own URL comes from the "saved from url=" comment browsers write when saving a page, from a
// sidecar file NAME.html.url, or from <base href>; a page without a URL is an error naming the file.

import CHTMLWalk
import FileIO
import Foundation
import RuleEngine

public struct PageCorpusError: Error, CustomStringConvertible {
    public let description: String
}

public enum PageCorpus {
    public static func requests(fromDirectory dir: String) throws -> [MatchRequest] {
        let fm = FileManager.default
        guard let entries = try? fm.contentsOfDirectory(atPath: dir) else {
            throw PageCorpusError(description: "\(dir): cannot read the pages directory")
        }
        var out: [MatchRequest] = []
        for name in entries.sorted() where name.hasSuffix(".html") || name.hasSuffix(".htm") {
            let path = dir + "/" + name
            let bytes = try FileIO.read(path)
            let sidecar = try? FileIO.readString(path + ".url")
            out += try requests(
                html: bytes, path: path, pageURL: sidecar?.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return out
    }

    /// The subresource loads of one page, in document order (duplicates kept once).
    public static func requests(html: [UInt8], path: String, pageURL given: String? = nil) throws -> [MatchRequest] {
        guard !html.isEmpty else { return [] }
        let text = String(decoding: html.prefix(4096), as: UTF8.self)
        var pageURL = given ?? savedFromURL(text)
        let (found, base) = try elements(of: html, path: path)
        if pageURL == nil { pageURL = base }
        guard let page = pageURL, let pageBase = URL(string: page), pageBase.scheme != nil else {
            throw PageCorpusError(
                description:
                    "\(path): the page's URL is unknown (add a \"saved from url=\" comment, a \(path).url file, or "
                    + "<base href>)"
            )
        }
        let resolveBase = base.flatMap { URL(string: $0, relativeTo: pageBase) } ?? pageBase
        var seen = Set<String>()
        var out: [MatchRequest] = []
        for (raw, type) in found {
            let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("data:"), !trimmed.hasPrefix("javascript:"),
                let url = URL(string: trimmed, relativeTo: resolveBase)?.absoluteURL,
                let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
            else { continue }
            let key = type + " " + url.absoluteString
            guard seen.insert(key).inserted else { continue }
            // A frame's own document loads in the new child frame, whose URL is about:blank until then (WebKit).
            let frame = type == "child-document"
            out.append(
                MatchRequest(
                    url: url.absoluteString, topURL: page, frameURL: frame ? "about:blank" : nil, resourceType: type,
                    loadContext: frame ? "child-frame" : nil))
        }
        return out
    }

    /// The elements that load a subresource, as (raw URL, resource type), in document order, and the first
    /// `<base href>`.
    private static func elements(of html: [UInt8], path: String) throws -> (found: [(String, String)], base: String?) {
        final class Collector {
            var found: [(String, String)] = [] // (raw url, resource type)
            var base: String? = nil
        }
        let collector = Collector()
        let callback: rb_html_element_cb = { context, tag, src, href, data, rel, asAttr in
            let c = Unmanaged<Collector>.fromOpaque(context!).takeUnretainedValue()
            func s(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
            let tag = String(cString: tag!)
            switch tag {
            case "base": if c.base == nil { c.base = s(href) }
            case "script": if let v = s(src) { c.found.append((v, "script")) }
            case "img": if let v = s(src) { c.found.append((v, "image")) }
            case "iframe", "frame": if let v = s(src) { c.found.append((v, "child-document")) }
            case "video", "audio", "source", "track": if let v = s(src) { c.found.append((v, "media")) }
            case "embed", "object": if let v = s(src) ?? s(data) { c.found.append((v, "other")) }
            case "link":
                let relation = (s(rel) ?? "").lowercased()
                guard let h = s(href) else { return }
                if relation.split(separator: " ").contains("stylesheet") {
                    c.found.append((h, "style-sheet"))
                } else if relation.contains("preload") || relation.contains("prefetch") {
                    switch (s(asAttr) ?? "").lowercased() {
                    case "script": c.found.append((h, "script"))
                    case "style": c.found.append((h, "style-sheet"))
                    case "image": c.found.append((h, "image"))
                    case "font": c.found.append((h, "font"))
                    default: c.found.append((h, "other"))
                    }
                } else if relation.contains("icon") {
                    c.found.append((h, "other"))
                }
            default: break
            }
        }
        let status = html.withUnsafeBufferPointer { buf in
            buf.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buf.count) {
                rb_html_walk($0, Int32(buf.count), Unmanaged.passUnretained(collector).toOpaque(), callback)
            }
        }
        guard status == 0 else { throw PageCorpusError(description: "\(path): not parseable as HTML") }
        return (collector.found, collector.base)
    }

    /// `<!-- saved from url=(0023)https://example.com/ -->`, as browsers write it.
    static func savedFromURL(_ head: String) -> String? {
        guard let r = head.range(of: "saved from url=(") else { return nil }
        let rest = head[r.upperBound...]
        guard let close = rest.firstIndex(of: ")") else { return nil }
        let length = Int(rest[..<close]) ?? 0
        let after = rest[rest.index(after: close)...]
        let url = length > 0 ? String(after.prefix(length)) : String(after.prefix { !$0.isWhitespace })
        return url.isEmpty ? nil : url
    }
}
