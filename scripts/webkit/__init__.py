"""radarblock's real-WebKit harness.

Everything here drives the installed WebKitGTK (WebKit 6.0 API through PyGObject) on 127.0.0.1 only:
compiling rule lists with WebKitUserContentFilterStore, loading generated pages through a local
recording (MITM) proxy, DuckDuckGo's reference tests, and a differential test against `radarblock match`.
Entry point: scripts/webkit-check (see README.md in this folder).
"""
