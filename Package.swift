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
            "StrictJSON", "FileIO", "Parallel", "Digest", "Domains", "ContentRules", "TrackerData", "TDSGenerator", "RuleBuilder",
            "RuleCompiler", "RuleEngine", "Surrogates", "RuleDiff", "Pipeline", "FilterLists",
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
        .target(name: "TrackerData", dependencies: ["FileIO", "Parallel", "StrictJSON", "Domains", "Digest"]),
        .target(name: "TDSGenerator", dependencies: ["FileIO", "TrackerData", "StrictJSON", "Domains"]),
        .target(name: "RuleBuilder", dependencies: ["TrackerData", "ContentRules", "StrictJSON", "Domains"]),
        .target(name: "FilterLists", dependencies: ["Parallel", "ContentRules", "TrackerData", "RuleBuilder"]),
        .target(name: "RuleCompiler", dependencies: ["Parallel", "ContentRules", "StrictJSON", "Digest"]),
        .target(name: "RuleEngine", dependencies: ["CSystem", "FileIO", "Parallel", "RuleCompiler", "ContentRules", "StrictJSON", "Domains"]),
        .target(name: "Surrogates", dependencies: ["TrackerData", "StrictJSON", "Domains"], exclude: ["PageScript.js"]),
        .target(name: "RuleDiff", dependencies: ["FileIO", "Parallel", "Domains", "RuleEngine", "TrackerData", "ContentRules", "StrictJSON", "CHTMLWalk", "RuleCompiler"]),
        .target(name: "WebKitBridge"),
        .target(name: "Pipeline", dependencies: [
            "CSystem", "CHTTPFetch",
            "TrackerData", "TDSGenerator", "RuleBuilder", "RuleCompiler", "RuleEngine", "Surrogates", "RuleDiff",
            "ContentRules", "StrictJSON", "Domains", "Digest", "FileIO", "Parallel",
        ]),
        .executableTarget(name: "radarblock", dependencies: [
            "Pipeline", "WebKitBridge", "TrackerData", "TDSGenerator", "RuleBuilder", "RuleCompiler", "RuleEngine", "Surrogates",
            "RuleDiff", "ContentRules", "StrictJSON", "FileIO", "FilterLists",
        ]),

        .executableTarget(name: "radarblock-bench", dependencies: ["RuleEngine", "RuleCompiler", "ContentRules", "StrictJSON", "TDSGenerator", "TrackerData"]),

        // What several test targets share: the ../shared locator, a seeded generator.
        .target(name: "TestSupport", path: "Tests/TestSupport"),

        .testTarget(name: "StrictJSONTests", dependencies: ["StrictJSON", "TestSupport"]),
        .testTarget(name: "DomainsTests", dependencies: ["Domains"]),
        .testTarget(name: "DigestTests", dependencies: ["Digest"]),
        .testTarget(name: "FileIOTests", dependencies: ["FileIO", "TestSupport"]),
        .testTarget(name: "ParallelTests", dependencies: ["Parallel"]),
        .testTarget(name: "ContentRulesTests", dependencies: ["ContentRules", "StrictJSON", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "TrackerDataTests", dependencies: ["TestSupport", "TrackerData", "StrictJSON", "FileIO"]),
        .testTarget(name: "TDSGeneratorTests", dependencies: ["TestSupport", "TDSGenerator", "TrackerData", "StrictJSON", "Pipeline"]),
        .testTarget(name: "RuleBuilderTests", dependencies: ["TestSupport", "RuleBuilder", "TrackerData", "ContentRules", "StrictJSON", "Domains"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "RuleCompilerTests", dependencies: ["TestSupport", "RuleCompiler", "ContentRules", "StrictJSON"], exclude: ["Fixtures"]),
        .testTarget(name: "RuleEngineTests", dependencies: ["TestSupport", "RuleEngine", "RuleCompiler", "ContentRules", "StrictJSON"]),
        .testTarget(name: "SurrogatesTests", dependencies: ["TestSupport", "Surrogates", "TrackerData", "StrictJSON"]),
        .testTarget(name: "RuleDiffTests", dependencies: ["TestSupport", "RuleDiff", "RuleEngine", "StrictJSON", "TrackerData"]),
        .testTarget(name: "FilterListsTests", dependencies: ["FilterLists", "ContentRules", "RuleBuilder", "RuleEngine", "TestSupport"]),
        .testTarget(name: "WebKitBridgeTests", dependencies: ["WebKitBridge"]),
        .testTarget(name: "PipelineTests", dependencies: [
            "Pipeline", "StrictJSON", "Surrogates", "WebKitBridge", "ContentRules", "Digest", "RuleBuilder", "RuleCompiler", "RuleDiff",
            "RuleEngine", "TrackerData", "Domains", "TestSupport",
        ]),
    ]
)
