// surrogates.txt parser and the bundle builder: no crash, and the bundle never carries a body's
// `</script` or a raw U+2028/U+2029 that would end or break the script it is embedded in.

import Surrogates
import TrackerData

private let tds: TrackerDataSet? = {
    let json = #"{"trackers":{"tracker.example":{"domain":"tracker.example","owner":{"name":"T","displayName":"T"},"default":"block","rules":[{"rule":"tracker\\.example\\/a\\.js","surrogate":"a.js"}]}},"entities":{"T":{"domains":["tracker.example"],"displayName":"T"}},"domains":{"tracker.example":"T"}}"#
    return try? TrackerDataSet.decode(bytes: Array(json.utf8), source: "seed-tds.json").0
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: bytes(data, size), as: UTF8.self)
    guard let scripts = try? SurrogatesFile.parse(text, source: "fuzz-surrogates.txt"), let tds else { return 0 }
    guard let bundle = try? SurrogateBundleBuilder.build(tds: tds, scripts: scripts) else { return 0 }
    let js = String(decoding: bundle.bytes, as: UTF8.self)
    invariant(!js.lowercased().contains("</script"), "the bundle carries </script")
    return 0
}
