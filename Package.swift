// swift-tools-version:5.9
// radarblock: tracker datasets -> WebKit content rule lists, bytecode, surrogates, diffs.
// Builds with the Swift toolchain plus Debian -dev libraries only (no package fetches).
// Every target's dependencies are exactly the package modules its sources import (scripts/check-deps.py, run by make test).
import PackageDescription

let package = Package(
    name: "radarblock",
    products: [
        .executable(name: "radarblock", targets: ["radarblock"]),
        .library(name: "RadarBlock", targets: [
            "StrictJSON", "FileIO", "Parallel", "Digest", "Domains", "ContentRules", "TrackerData", "TDSGenerator", "Provenance", "RuleBuilder",
            "RuleCompiler", "RuleEngine", "Surrogates", "RuleDiff", "Conversion", "Release", "ReleaseDiff", "ReleaseBuild", "Install", "AdblockSyntax",
            "FilterLists",
        ]),
    ],
    targets: [
        // C libraries from Debian (-dev packages), found with pkg-config.
        .systemLibrary(name: "CPSL", pkgConfig: "libpsl", providers: [.apt(["libpsl-dev", "publicsuffix"])]),
        .systemLibrary(name: "CIDN2", pkgConfig: "libidn2", providers: [.apt(["libidn2-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CICU", pkgConfig: "icu-uc", providers: [.apt(["libicu-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        .target(name: "CSystem"),
        .target(name: "CHTMLWalk", dependencies: ["CLibXML2"]),
        .target(name: "CHTTPFetch", dependencies: ["CCurl"]),
        .target(name: "StrictJSON"),
        .target(name: "FileIO", dependencies: ["CSystem"]),
        .target(name: "Parallel"),
        .target(name: "Digest", dependencies: ["CCrypto"]),
        .target(name: "Domains", dependencies: ["CPSL", "CIDN2"]),
        .target(name: "CWebKitIDNA", dependencies: ["CICU"]),
        .target(name: "ContentRules", dependencies: ["StrictJSON", "CWebKitIDNA"]),
        .target(name: "AdblockSyntax"),
        .target(name: "TrackerData", dependencies: ["FileIO", "Parallel", "StrictJSON", "Domains", "Digest", "AdblockSyntax"]),
        .target(name: "TDSGenerator", dependencies: ["FileIO", "TrackerData", "StrictJSON", "Domains"]),
        .target(name: "Provenance", dependencies: ["StrictJSON"]),
        .target(
            name: "RuleBuilder", dependencies: ["TrackerData", "ContentRules", "StrictJSON", "Domains", "Provenance"]),
        .target(
            name: "FilterLists",
            dependencies: [
                "AdblockSyntax", "Parallel", "ContentRules", "TrackerData", "RuleBuilder", "Provenance", "RuleCompiler",
            ]),
        .target(name: "RuleCompiler", dependencies: ["CSystem", "Parallel", "ContentRules", "StrictJSON", "Digest"]),
        .target(name: "RuleEngine", dependencies: ["CSystem", "FileIO", "Parallel", "RuleCompiler", "ContentRules", "StrictJSON", "Domains", "Provenance"]),
        .target(name: "Surrogates", dependencies: ["TrackerData", "StrictJSON", "Domains"], exclude: ["PageScript.js"]),
        .target(name: "RuleDiff", dependencies: ["FileIO", "Parallel", "Domains", "RuleEngine", "TrackerData", "ContentRules", "StrictJSON", "CHTMLWalk", "RuleCompiler", "Provenance", "AdblockSyntax", "FilterLists"]),
        .target(name: "WebKitBridge", dependencies: ["StrictJSON"]),
        .target(
            name: "Conversion", dependencies: ["ContentRules", "RuleBuilder", "TrackerData", "Provenance", "AdblockSyntax", "FilterLists"]),
        .target(name: "Release", dependencies: [
            "CSystem", "Conversion", "ContentRules", "Digest", "FileIO", "RuleBuilder", "RuleCompiler", "RuleDiff", "RuleEngine",
            "StrictJSON", "Surrogates", "TrackerData", "Provenance",
        ]),
        .target(name: "ReleaseDiff", dependencies: [
            "Release", "Conversion", "ContentRules", "Digest", "FileIO", "Parallel", "RuleBuilder", "RuleCompiler", "RuleDiff", "RuleEngine",
            "StrictJSON", "Surrogates", "TrackerData", "Provenance", "AdblockSyntax", "FilterLists",
        ]),
        .target(name: "ReleaseBuild", dependencies: [
            "Release", "ReleaseDiff", "Conversion", "CHTTPFetch", "ContentRules", "Digest", "FileIO", "AdblockSyntax", "FilterLists",
            "RuleBuilder", "RuleCompiler",
            "RuleDiff", "RuleEngine", "StrictJSON", "Surrogates", "TDSGenerator", "TrackerData", "Provenance",
        ]),
        .target(name: "Install", dependencies: ["Release", "WebKitBridge", "Digest", "FileIO", "RuleCompiler", "StrictJSON"]),
        .executableTarget(name: "radarblock", dependencies: [
            "Release", "ReleaseDiff", "ReleaseBuild", "Install", "Conversion", "WebKitBridge", "TrackerData", "TDSGenerator", "RuleBuilder", "RuleCompiler", "RuleEngine", "Surrogates",
            "RuleDiff", "ContentRules", "StrictJSON", "FileIO", "Provenance", "AdblockSyntax", "FilterLists", "Parallel",
        ]),

        .executableTarget(name: "radarblock-bench", dependencies: ["RuleEngine", "RuleCompiler", "ContentRules", "StrictJSON"]),

        // What several test targets share: the ../shared locator, a seeded generator.
        .target(name: "TestSupport", path: "Tests/TestSupport"),

        .testTarget(name: "StrictJSONTests", dependencies: ["StrictJSON", "TestSupport"]),
        .testTarget(name: "DomainsTests", dependencies: ["Domains"]),
        .testTarget(name: "DigestTests", dependencies: ["Digest"]),
        .testTarget(name: "FileIOTests", dependencies: ["FileIO", "TestSupport"]),
        .testTarget(name: "ParallelTests", dependencies: ["Parallel"]),
        .testTarget(
            name: "ContentRulesTests", dependencies: ["ContentRules", "StrictJSON", "TestSupport"],
            exclude: ["Fixtures"]),
        .testTarget(name: "TrackerDataTests", dependencies: ["TestSupport", "TrackerData", "StrictJSON", "FileIO"]),
        .testTarget(name: "TDSGeneratorTests", dependencies: ["TestSupport", "TDSGenerator", "TrackerData", "StrictJSON", "ReleaseBuild"]),
        .testTarget(name: "RuleBuilderTests", dependencies: ["TestSupport", "RuleBuilder", "TrackerData", "ContentRules", "StrictJSON", "Domains", "Provenance"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "RuleCompilerTests", dependencies: ["TestSupport", "RuleCompiler", "ContentRules", "StrictJSON"], exclude: ["Fixtures"]),
        .testTarget(name: "RuleEngineTests", dependencies: ["TestSupport", "RuleEngine", "RuleCompiler", "ContentRules", "StrictJSON"]),
        .testTarget(name: "SurrogatesTests", dependencies: ["TestSupport", "Surrogates", "TrackerData", "StrictJSON"]),
        .testTarget(
            name: "RuleDiffTests",
            dependencies: ["TestSupport", "RuleDiff", "RuleEngine", "StrictJSON", "TrackerData", "Provenance", "AdblockSyntax", "FilterLists"]),
        .testTarget(name: "ProvenanceTests", dependencies: ["Provenance", "StrictJSON"]),
        .testTarget(
            name: "FilterListsTests",
            dependencies: [
                "AdblockSyntax", "FilterLists", "ContentRules", "RuleBuilder", "RuleEngine", "TestSupport", "TrackerData",
            ]),
        .testTarget(name: "WebKitBridgeTests", dependencies: ["WebKitBridge"]),
        .testTarget(name: "ReleaseTests", dependencies: [
            "Release", "ContentRules", "RuleBuilder", "RuleCompiler", "RuleEngine", "StrictJSON", "Surrogates", "TestSupport", "TrackerData",
        ]),
        .testTarget(name: "ConversionTests", dependencies: ["AdblockSyntax", "Conversion", "ContentRules", "RuleBuilder", "TrackerData"]),
        .testTarget(name: "InstallTests", dependencies: ["Install", "StrictJSON", "TestSupport", "WebKitBridge"]),
        .testTarget(name: "ReleaseDiffTests", dependencies: [
            "Conversion", "Release", "ReleaseBuild", "ReleaseDiff", "RuleDiff", "RuleEngine", "TestSupport", "TrackerData",
            "AdblockSyntax", "FilterLists", "Provenance", "StrictJSON",
        ]),
        .testTarget(name: "ReleaseBuildTests", dependencies: [
            "ReleaseBuild", "Release", "ReleaseDiff", "StrictJSON", "Surrogates", "WebKitBridge", "ContentRules", "Digest", "RuleBuilder",
            "RuleCompiler", "RuleDiff", "RuleEngine", "TrackerData", "Domains", "TestSupport", "Provenance",
        ]),
    ]
)
