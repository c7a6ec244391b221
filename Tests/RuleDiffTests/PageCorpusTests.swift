// Saved pages as a request corpus (`diff --pages`): subresources with their types, the page URL, lenient HTML.

import Foundation
import RuleDiff
import XCTest

final class PageCorpusTests: XCTestCase {
    func testExtractsSubresourcesWithTheirTypes() throws {
        let html = """
            <html><head><base href="https://cdn.example/assets/">
            <script src="a.js"></script><link rel="stylesheet" href="s.css">\
            <link rel="preload" as="font" href="f.woff2">
            <link rel="icon" href="/favicon.ico"></head>
            <body><img src="i.png"><iframe src="https://frame.example/f.html"></iframe><video src="v.mp4"></video>
            <img src="data:image/png;base64,AAAA"><script src="javascript:void 0"></script>\
            <img src="i.png"></body></html>
            """
        let requests = try PageCorpus.requests(
            html: Array(html.utf8), path: "page.html", pageURL: "https://site.example/page")
        XCTAssertEqual(
            requests.map { "\($0.resourceType) \($0.url)" },
            [
                "script https://cdn.example/assets/a.js",
                "style-sheet https://cdn.example/assets/s.css",
                "font https://cdn.example/assets/f.woff2",
                "other https://cdn.example/favicon.ico",
                "image https://cdn.example/assets/i.png",
                "child-document https://frame.example/f.html",
                "media https://cdn.example/assets/v.mp4",
            ])
        XCTAssertTrue(requests.allSatisfy { $0.topURL == "https://site.example/page" })
        // A frame's own document loads in the new frame, as WebKit makes it; the rest from the page.
        XCTAssertEqual(
            requests.map { "\($0.frameURL ?? "-") \($0.loadContext ?? "-")" },
            ["- -", "- -", "- -", "- -", "- -", "about:blank child-frame", "- -"])
    }

    func testAPageWithoutAURLIsAnErrorNamingTheFile() {
        XCTAssertThrowsError(try PageCorpus.requests(html: Array("<script src=a.js></script>".utf8), path: "lost.html"))
        { error in
            XCTAssertTrue(String(describing: error).contains("lost.html"))
        }
    }

    func testBrokenHTMLIsParsedLeniently() throws {
        let html = "<!-- saved from url=(0020)https://site.example -->\n<div><script src='x.js'><img src=y.gif"
        let requests = try PageCorpus.requests(html: Array(html.utf8), path: "p.html")
        XCTAssertEqual(requests.map(\.url), ["https://site.example/x.js"])
    }
}
