// What the page-side matcher needs of ad-click attribution (docs/ad-click-attribution.md): the allowlist's
// [tracker, conversion host] pairs of the trackers the bundle carries with their rules. While the app names an
// active attribution's vendor, the bundle decides those hosts as the attributed list does.

import StrictJSON
import TrackerData

extension PageData {
    /// nil when the feature is off, contentBlocking is off or no entry names a carried tracker.
    static func adClickAttributionJSON(_ config: PrivacyConfig?, tds: TrackerDataSet, carried: Set<String>)
        -> JSONValue?
    {
        guard let config, config.contentBlockingEnabled, config.adClickAttribution.enabled else { return nil }
        let pairs = config.adClickAttribution.allowlist.filter {
            carried.contains($0.blocklistEntry) && tds.trackers[$0.blocklistEntry] != nil
        }
        return pairs.isEmpty ? nil : .array(pairs.map { [.string($0.blocklistEntry), .string($0.host)] })
    }
}
