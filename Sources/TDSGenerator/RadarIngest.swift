// The generator's view of a Tracker Radar tree. A full tree (24k+ domain files per region, each with example
// sites, response hashes, API counts and first-party cookie tables) does not fit in memory with every field
// kept, so RadarLoader strips each record down to the fields the generator reads as soon as its file is
// decoded: memory holds one raw file per core plus the compact records.

import TrackerData

public enum RadarIngest {
    public struct Options: Sendable {
        /// A tracker-radar checkout (with `domains/`, usually `entities/`) or a domains directory.
        public var directory: String
        /// Overrides `<directory>/entities`.
        public var entitiesDirectory: String?
        /// Region subdirectories to read (nil = all).
        public var regions: Set<String>?
        /// Throw on the first malformed file (in path order) instead of reporting and skipping it.
        public var strict: Bool

        public init(
            directory: String, entitiesDirectory: String? = nil, regions: Set<String>? = nil, strict: Bool = false
        ) {
            self.directory = directory
            self.entitiesDirectory = entitiesDirectory
            self.regions = regions
            self.strict = strict
        }
    }

    /// Loads and compacts a radar tree: RadarLoader with `compact` as its per-file transform.
    public static func load(_ options: Options) throws -> RadarData {
        try RadarLoader.load(
            directory: options.directory, entitiesDirectory: options.entitiesDirectory,
            regions: options.regions, strict: options.strict, transform: compact)
    }

    /// Drops what the generator never reads (example sites, hashes, API tables, first-party cookie tables,
    /// subdomain lists, name servers, initiators, performance).
    public static func compact(_ d: RadarDomain) -> RadarDomain {
        var c = d
        c.subdomains = []
        c.nameservers = []
        c.topInitiators = nil
        c.performance = RadarPerformance()
        c.source = []
        c.breaking = nil
        c.surrogates = nil
        c.resources = d.resources.map { r in
            RadarResource(
                rule: r.rule, type: r.type, cookies: r.cookies, fingerprinting: r.fingerprinting,
                sites: r.sites, prevalence: r.prevalence)
        }
        return c
    }
}
