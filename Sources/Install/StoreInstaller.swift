// `radarblock install`: the client side of a release, for WebKitGTK/WPE integrators. It does what GNOME Web's
// filters manager and DuckDuckGo's LastCompiledRulesStore do by hand: look a list up by identifier before
// compiling, keep the last good lists when a new one fails, skip unchanged lists, delete stale identifiers.
//
// The store is a WebKitUserContentFilterStore directory: WebKit keeps one file per list,
// `ContentRuleList-<encoded identifier>`, and finds a list by that name alone (WebKit's
// Source/WebKit/UIProcess/API/APIContentRuleListStore.cpp). Beside those files radarblock keeps
// `radarblock-install.json`, the releases installed into the store (one entry per release directory path, so
// `PUBLISH_DIR/current` replaced every night stays one entry).

import Digest
import FileIO
import Foundation
import Release
import RuleCompiler
import StrictJSON
import WebKitBridge

/// One list of an installed release.
public struct StoreListRecord: Sendable, Equatable {
    public var identifier: String
    /// The rule-list file in the release (e.g. "rules.json", "ctl-youtube.json").
    public var rules: String
    public var sha256: String
    /// The manifest's extra fields of click-to-load lists (ruleAction, entity), kept so apps can find them.
    public var ruleAction: String?
    public var entity: String?
    /// The manifest's role of a list an app swaps at run time ("ad-click-attribution") or may leave out per site
    /// ("cpm": the cookie pop-up list), kept for the same reason.
    public var role: String? = nil
    /// WebKit's compiled file size and the compile time, from the install that compiled the list.
    public var webkitBytes: Int
    public var compileSeconds: Double

    var jsonValue: JSONValue {
        var o = JSONObject()
        o["identifier"] = .string(identifier)
        o["rules"] = .string(rules)
        o["sha256"] = .string(sha256)
        if let ruleAction { o["ruleAction"] = .string(ruleAction) }
        if let entity { o["entity"] = .string(entity) }
        if let role { o["role"] = .string(role) }
        o["webkitBytes"] = .number(Double(webkitBytes))
        o["compileSeconds"] = .number((compileSeconds * 1000).rounded() / 1000)
        return .object(o)
    }

    init?(json: JSONValue) {
        guard let id = json["identifier"]?.stringValue, let rules = json["rules"]?.stringValue else { return nil }
        self.init(
            identifier: id, rules: rules, sha256: json["sha256"]?.stringValue ?? "",
            ruleAction: json["ruleAction"]?.stringValue, entity: json["entity"]?.stringValue,
            webkitBytes: Int(json["webkitBytes"]?.numberValue ?? 0),
            compileSeconds: json["compileSeconds"]?.numberValue ?? 0)
        role = json["role"]?.stringValue
    }

    init(
        identifier: String, rules: String, sha256: String, ruleAction: String?, entity: String?, webkitBytes: Int,
        compileSeconds: Double
    ) {
        self.identifier = identifier
        self.rules = rules
        self.sha256 = sha256
        self.ruleAction = ruleAction
        self.entity = entity
        self.webkitBytes = webkitBytes
        self.compileSeconds = compileSeconds
    }
}

public struct StoreReleaseRecord: Sendable, Equatable {
    /// Absolute path of the release directory as given (symlinks not resolved: `current` stays one entry).
    public var path: String
    /// The manifest's identifier.
    public var identifier: String
    /// The target whose lists were installed (`install --target`; nil: a release with no targets recorded).
    public var target: String? = nil
    public var lists: [StoreListRecord]
}

/// `radarblock-install.json`: what is installed in a store.
public struct StoreState: Sendable, Equatable {
    public static let fileName = "radarblock-install.json"
    public static let formatVersion = 1
    public var releases: [StoreReleaseRecord] = []

    public init(releases: [StoreReleaseRecord] = []) { self.releases = releases }

    /// Every identifier some installed release needs.
    public var identifiers: Set<String> { Set(releases.flatMap { $0.lists.map(\.identifier) }) }

    public func bytes() -> [UInt8] {
        let releasesJSON: [JSONValue] = releases.sorted { $0.path < $1.path }.map { r in
            var o = JSONObject()
            o["path"] = .string(r.path)
            o["identifier"] = .string(r.identifier)
            if let target = r.target { o["target"] = .string(target) }
            o["lists"] = .array(r.lists.map(\.jsonValue))
            return .object(o)
        }
        var out = JSONWriter.bytes([
            "stateVersion": .number(Double(Self.formatVersion)), "releases": .array(releasesJSON),
        ])
        out.append(0x0A)
        return out
    }

    public static func parse(_ bytes: [UInt8], path: String) throws -> StoreState {
        let v: JSONValue
        do { v = try JSONParser.parse(bytes) } catch { throw StoreInstallError("\(path): not JSON: \(error)") }
        guard v["stateVersion"]?.numberValue == Double(formatVersion), let releases = v["releases"]?.arrayValue else {
            throw StoreInstallError(
                "\(path): not a radarblock install state (stateVersion \(formatVersion) with releases expected)")
        }
        return StoreState(
            releases: try releases.enumerated().map { i, r in
                guard let p = r["path"]?.stringValue, let id = r["identifier"]?.stringValue,
                    let lists = r["lists"]?.arrayValue
                else {
                    throw StoreInstallError("\(path): releases[\(i)]: path, identifier and lists expected")
                }
                return StoreReleaseRecord(
                    path: p, identifier: id, target: r["target"]?.stringValue,
                    lists: try lists.enumerated().map { j, l in
                        guard let list = StoreListRecord(json: l) else {
                            throw StoreInstallError(
                                "\(path): releases[\(i)].lists[\(j)]: identifier and rules expected")
                        }
                        return list
                    })
            })
    }

    /// The state of `store` (empty when nothing was installed yet).
    public static func load(store: String) throws -> StoreState {
        let path = store + "/" + fileName
        guard FileManager.default.fileExists(atPath: path) else { return StoreState() }
        return try parse(try FileIO.read(path), path: path)
    }
}

public struct StoreInstallError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A list of a release that WebKit did not compile.
public struct StoreListFailure: Sendable, Equatable {
    public var index: Int
    public var identifier: String
    public var rules: String
    public var message: String
}

public struct StoreInstallReport: Sendable {
    public var release: StoreReleaseRecord?
    public var compiled: [StoreListRecord] = []
    /// Lists whose identifier was already in the store (not recompiled).
    public var alreadyInStore: [StoreListRecord] = []
    public var failed: [StoreListFailure] = []
    /// What the store still serves for this release path when a list failed (the previous good release).
    public var kept: StoreReleaseRecord?
    public var pruned: [String] = []
    public var state = StoreState()
}

/// Compiles one rule list into a store directory: (rules JSON, identifier, store) -> (WebKit file bytes, seconds).
public typealias StoreCompile = ([UInt8], String, String) throws -> (bytes: Int, seconds: Double)

/// What the installer needs of WebKit's store: its compiler, injected so that a compile loads WebKitGTK only when
/// a list needs one (the radarblock CLI builds it from WebKitBridge, WebKitEngine.store) and unit tests can pass a
/// stand-in. The file names are WebKitBridge's WebKitFileName.
public struct WebKitStore {
    public var compile: StoreCompile
    /// WebKitGTK's version ("2.50.6"): the target a release of several is installed for by default.
    public var version: () throws -> String

    public init(
        compile: @escaping StoreCompile,
        version: @escaping () throws -> String = { throw StoreInstallError("WebKitGTK's version is not known") }
    ) {
        self.compile = compile
        self.version = version
    }
}

public enum StoreInstaller {
    /// Installs the lists of one target of the release at `releaseDir` into `store` (`target`, or by default the
    /// one for this WebKitGTK when the release has several); with `prune`, then removes every list no installed
    /// release needs. The state changes only when every list of the release is in the store.
    public static func install(
        release releaseDir: String, store: String, prune: Bool, target: String? = nil, webKit: WebKitStore
    ) throws -> StoreInstallReport {
        let path = absolute(releaseDir)
        // Before touching the store: a bad release changes nothing.
        let (identifier, chosen, lists) = try readRelease(path, target: target, webKitVersion: webKit.version)
        let store = try prepare(store)
        let lock = try StoreLock(store: store)
        defer { lock.release() }
        var state = try StoreState.load(store: store)
        var report = StoreInstallReport()
        var installed: [StoreListRecord] = []
        for (i, list) in lists.enumerated() {
            if let existing = inStore(list, store: store, state: state) {
                report.alreadyInStore.append(existing)
                installed.append(existing)
                continue
            }
            do {
                let result = try webKit.compile(try FileIO.read(path + "/" + list.rules), list.identifier, store)
                var record = list
                record.webkitBytes = result.bytes
                record.compileSeconds = result.seconds
                report.compiled.append(record)
                installed.append(record)
            } catch {
                report.failed.append(
                    StoreListFailure(
                        index: i, identifier: list.identifier, rules: list.rules, message: String(describing: error)))
            }
        }
        if report.failed.isEmpty {
            let record = StoreReleaseRecord(path: path, identifier: identifier, target: chosen, lists: installed)
            state.releases.removeAll { $0.path == path }
            state.releases.append(record)
            report.release = record
            try FileIO.write(state.bytes(), to: store + "/" + StoreState.fileName)
        } else {
            report.kept = state.releases.first { $0.path == path }
        }
        if prune { report.pruned = try removeUnused(store: store, state: state) }
        report.state = state
        return report
    }

    /// `install --prune` without a release: removes every list no installed release needs.
    public static func prune(store: String) throws -> [String] {
        let store = try prepare(store)
        let lock = try StoreLock(store: store)
        defer { lock.release() }
        return try removeUnused(store: store, state: try StoreState.load(store: store))
    }

    /// The identifiers of the lists in `store` (decoded from WebKit's file names).
    public static func storedIdentifiers(store: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: store)) ?? []
        return names.compactMap(WebKitFileName.decode).sorted()
    }

    // MARK: - Steps

    static func prepare(_ store: String) throws -> String {
        guard !store.isEmpty else { throw StoreInstallError("--store needs a directory") }
        let path = absolute(store)
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
            guard isDir.boolValue else {
                throw StoreInstallError(
                    "\(store): exists and is not a directory (a WebKit filter store is a directory)")
            }
        } else {
            do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
                throw StoreInstallError("\(store): cannot create the store directory: \(error.localizedDescription)")
            }
        }
        return path
    }

    static func absolute(_ path: String) -> String {
        let p = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: p).standardized.path
    }

    /// The manifest's `lists` array, those of the chosen target: the one place that says which lists a release
    /// holds, in which order.
    static func readRelease(_ dir: String, target asked: String?, webKitVersion: () throws -> String) throws
        -> (identifier: String, target: String?, lists: [StoreListRecord])
    {
        let manifestPath = dir + "/" + ReleaseFiles.manifest
        guard FileManager.default.fileExists(atPath: manifestPath) else {
            throw StoreInstallError("\(dir): not a radarblock release (no \(ReleaseFiles.manifest))")
        }
        let manifest: Manifest
        do { manifest = try Manifest.parse(try FileIO.read(manifestPath)) } catch {
            throw StoreInstallError("\(manifestPath): \(error)")
        }
        guard !manifest.lists.isEmpty else {
            throw StoreInstallError("\(manifestPath): lists: the release has no rule lists")
        }
        let target = try chooseTarget(manifest, asked: asked, manifestPath: manifestPath, webKitVersion: webKitVersion)
        var seen: Set<String> = []
        let wanted = manifest.lists(for: target)
        let lists = try manifest.lists.enumerated().filter { wanted.contains($0.element) }.map {
            i, entry -> StoreListRecord in
            let at = "\(manifestPath): lists[\(i)]"
            let id = entry.identifier
            guard isUsableIdentifier(id) else {
                throw StoreInstallError(
                    "\(at).identifier: a non-empty identifier of at most 200 printable characters expected")
            }
            guard seen.insert(id).inserted else { throw StoreInstallError("\(at).identifier: \(id) appears twice") }
            guard let rules = entry.rules, isPlainFileName(rules) else {
                throw StoreInstallError("\(at).rules: the name of a rule-list file inside the release expected")
            }
            let bytes = try FileIO.read(dir + "/" + rules)
            let sha = Digest.hex(.sha256, bytes)
            if let expected = manifest.outputs.first(where: { $0.name == rules })?.sha256, expected != sha {
                throw StoreInstallError(
                    "\(dir)/\(rules): sha256 \(sha) differs from the manifest's \(expected) (outputs.\(rules)): "
                        + "the release is damaged"
                )
            }
            var record = StoreListRecord(
                identifier: id, rules: rules, sha256: sha, ruleAction: entry.ruleAction,
                entity: entry.entity, webkitBytes: 0, compileSeconds: 0)
            record.role = entry.role?.rawValue
            return record
        }
        return (manifest.identifier, target, lists)
    }

    /// The target asked for, which the release must have; by default the only one, or of several the
    /// WebKitGTK profile of the running WebKitGTK (webkitgtk-MAJOR.MINOR, as ContentRules' profiles are named).
    static func chooseTarget(
        _ manifest: Manifest, asked: String?, manifestPath: String, webKitVersion: () throws -> String
    ) throws -> String? {
        let built = manifest.targets.isEmpty ? "no target recorded" : manifest.targets.joined(separator: ", ")
        if let asked {
            guard manifest.targets.contains(asked) else {
                throw StoreInstallError("--target \(asked): \(manifestPath): targets: the release has \(built)")
            }
            return asked
        }
        guard manifest.targets.count > 1 else { return manifest.targets.first }
        let version: String
        do { version = try webKitVersion() } catch {
            throw StoreInstallError(
                "\(manifestPath): the release has several targets (\(built)) and \(error): choose one with --target")
        }
        let profile = "webkitgtk-" + version.split(separator: ".").prefix(2).joined(separator: ".")
        guard manifest.targets.contains(profile) else {
            throw StoreInstallError(
                "\(manifestPath): the release has several targets (\(built)), none for this WebKitGTK \(version) "
                    + "(\(profile)): choose one with --target")
        }
        return profile
    }

    static func isUsableIdentifier(_ id: String) -> Bool {
        !id.isEmpty && id.unicodeScalars.count <= 200
            && id.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F }
    }

    static func isPlainFileName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\0")
    }

    /// The list as already installed, when WebKit's file for its identifier exists (the identifier names the
    /// content, so the same identifier is the same compiled list).
    static func inStore(_ list: StoreListRecord, store: String, state: StoreState)
        -> StoreListRecord?
    {
        var st = stat()
        let file = store + "/" + WebKitFileName.encode(list.identifier)
        guard stat(file, &st) == 0, st.st_size > 0 else { return nil }
        let previous = state.releases.lazy.flatMap(\.lists).first { $0.identifier == list.identifier }
        var record = list
        record.webkitBytes = Int(st.st_size)
        record.compileSeconds = previous?.compileSeconds ?? 0
        return record
    }

    /// Removes WebKit's file of every radarblock identifier no installed release needs; returns the identifiers
    /// removed. Lists under identifiers of other shapes belong to someone else sharing the store and stay.
    static func removeUnused(store: String, state: StoreState) throws -> [String] {
        let wanted = state.identifiers
        var removed: [String] = []
        for id in storedIdentifiers(store: store) where !wanted.contains(id) && RuleListIdentifier.parse(id) != nil {
            let file = store + "/" + WebKitFileName.encode(id)
            guard unlink(file) == 0 else {
                throw StoreInstallError("\(file): cannot remove: \(String(cString: strerror(errno)))")
            }
            removed.append(id)
        }
        return removed
    }
}

/// One install at a time per store: an exclusive flock on `<store>/.radarblock-install.lock`.
struct StoreLock {
    private let fd: Int32

    init(store: String) throws {
        let path = store + "/.radarblock-install.lock"
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StoreInstallError("\(path): cannot open: \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw StoreInstallError("\(store): another radarblock install is using this store")
        }
    }

    func release() { close(fd) }
}
