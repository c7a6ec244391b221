// surrogates.txt parser and the bundle builder: no crash; every bundle parses (the builder parses each body
// and the finished bundle with JavaScriptCore, so a body that does not parse is dropped, never a bundle that
// does not); and the bundle never carries a body's `</script` that would end the script it is embedded in.

import Surrogates
import TrackerData

private let tds: TrackerDataSet? = {
    let json =
        #"{"trackers":{"tracker.example":{"domain":"tracker.example","owner":{"name":"T","displayName":"T"},"#
        + #""default":"block","rules":[{"rule":"tracker\\.example\\/a\\.js","surrogate":"a.js"}]}},"#
        + #""entities":{"T":{"domains":["tracker.example"],"displayName":"T"}},"#
        + #""domains":{"tracker.example":"T"}}"#
    return try? TrackerDataSet.decode(bytes: Array(json.utf8), source: "seed-tds.json").0
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: bytes(data, size), as: UTF8.self)
    guard let scripts = try? SurrogatesFile.parse(text, source: "fuzz-surrogates.txt"), let tds else { return 0 }
    let bundle: SurrogateBundle
    do {
        bundle = try SurrogateBundleBuilder.build(tds: tds, scripts: scripts)
    } catch let e as SurrogateBundleError {
        if case .bundleDoesNotParse(let why) = e { invariant(false, "the bundle does not parse: \(why)") }
        return 0
    } catch let e as JavaScriptSyntaxError {
        invariant(false, "no JavaScript parse to check the bundle with: \(e)")
        return 0
    } catch {
        return 0
    }
    let js = String(decoding: bundle.bytes, as: UTF8.self)
    invariant(!js.lowercased().contains("</script"), "the bundle carries </script")
    return 0
}
