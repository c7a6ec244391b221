// The attributed variant of a release's ad-click attribution list (docs/ad-click-attribution.md) for a vendor
// site, made on demand from the release and the TDS `build` wrote beside the list (`radarblock attribution`,
// `match --attributed-vendor`, and `AdClickAttributionRelease.attributed` for a Swift app). The variant is a pure
// function of the release and the vendor: same bytes, same identifier.

import ContentRules
import Conversion
import FileIO
import Provenance
import RuleBuilder
import RuleCompiler
import RuleEngine
import TrackerData

/// The attributed variant of a release's attribution list for one vendor site.
public struct AttributedList: Sendable {
    /// The vendor as the list names it: normalised, without a leading "www.".
    public var vendor: String
    public var rules: [ContentRule]
    public var provenance: [RuleProvenance]
    /// The rule-list JSON (what an app compiles with WebKit) and its compiled form.
    public var json: [UInt8]
    public var compiled: CompiledRuleList
    public var identifier: String { compiled.identifier }
    public var rbc: [UInt8] { RBCFile.bytes(compiled) }
}

public struct AttributionError: Error, CustomStringConvertible {
    public let description: String
}

public enum AdClickAttributionRelease {
    /// `vendor` as the attributed rule names it: a host name (lowercase, punycode) without a leading "www.".
    public static func vendorSite(_ raw: String) throws -> String {
        switch DomainCheck.normalize(raw) {
        case .failure(let p): throw AttributionError(description: "--vendor: \(p.message)")
        case .success(let host):
            let site = host.hasPrefix("www.") ? String(host.dropFirst(4)) : host
            guard site.contains(".") || site == "localhost" else {
                throw AttributionError(description: "--vendor: \(site) is not a site")
            }
            return site
        }
    }

    /// The attributed variant of the release in `dir` for `vendor` (see `vendorSite`).
    public static func attributed(release dir: String, vendor: String) throws -> AttributedList {
        let files = ReleaseFileSource.directory(dir)
        let manifest: Manifest
        do { manifest = try Manifest.parse(try files.read(ReleaseFiles.manifest)) } catch let e as FileError {
            throw e
        } catch {
            throw FileError(path: files.path(ReleaseFiles.manifest), reason: String(describing: error))
        }
        guard let entry = ManifestList.adClickAttribution(of: manifest) else {
            throw AttributionError(
                description:
                    "\(dir): the release has no ad-click attribution list "
                    + "(the config's adClickAttribution feature is off or names no tracker)"
            )
        }
        let site = try vendorSite(vendor)
        let tds = try decode(files, ReleaseFiles.attributionTDS) { try TrackerDataSet.decode(bytes: $0, source: $1).0 }
        let config = try decode(files, ReleaseFiles.inputConfig) { try PrivacyConfig.decode(bytes: $0, source: $1).0 }
        let unprotected =
            files.exists(ReleaseFiles.inputUnprotected)
            ? try decode(files, ReleaseFiles.inputUnprotected) { try UnprotectedSites.parse(bytes: $0, source: $1).0 }
            : nil
        let target = manifest.targets.first.flatMap(EngineProfile.named) ?? .default
        let built = Conversion.attributed(
            tds: tds, config: config, unprotected: unprotected, vendor: site,
            options: ConversionOptions(mode: manifest.mode, optimize: manifest.flags.optimized, target: target)
        ).result
        let json = CanonicalRuleWriter.bytes(built.rules)
        let name = RuleListIdentifier.parse(entry.identifier)
        let compiled = try RuleListCompiler.compile(
            json: json,
            options: .init(
                name: attributedName(name?.name), dataset: name?.dataset,
                parser: RuleListParserOptions(target: target)))
        return AttributedList(
            vendor: site, rules: built.rules, provenance: built.provenance, json: json, compiled: compiled)
    }

    /// `tds-attribution` -> `tds-attributed`.
    static func attributedName(_ listName: String?) -> String {
        let base = listName ?? "tds-attribution"
        return (base.hasSuffix("-attribution") ? String(base.dropLast("-attribution".count)) : base) + "-attributed"
    }

    private static func decode<T>(_ files: ReleaseFileSource, _ name: String, _ body: ([UInt8], String) throws -> T)
        throws -> T
    {
        let bytes = try files.read(name)
        do { return try body(bytes, files.path(name)) } catch {
            throw FileError(path: files.path(name), reason: String(describing: error))
        }
    }
}

extension AdClickAttributionRelease {
    /// The release's lists (`ReleaseLists.load`) as a tab with an active attribution for `vendor` has them:
    /// the attribution list replaced by its attributed variant.
    public static func lists(release dir: String, target: String? = nil, vendor: String) throws -> [ReleaseList] {
        let lists = try ReleaseLists.load(dir, target: target).1
        guard let i = lists.firstIndex(where: { $0.entry.role == .adClickAttribution }) else {
            throw AttributionError(
                description:
                    "\(dir): the release has no ad-click attribution list "
                    + "(the config's adClickAttribution feature is off or names no tracker)"
            )
        }
        let attributed = try attributed(release: dir, vendor: vendor)
        var out = lists
        out[i].name = ReleaseFiles.attributionRules + " (attributed for \(attributed.vendor))"
        out[i].list = try LoadedRuleList(ReleaseLists.withSource(attributed.compiled, json: attributed.json))
        out[i].json = attributed.json
        out[i].provenance = attributed.provenance
        return out
    }
}
