// swift-tools-version:5.9
// radarblock: tracker datasets -> WebKit content rule lists, bytecode, surrogates, diffs.
// Builds with the Swift toolchain plus Debian -dev libraries only (no package fetches).
import PackageDescription

let package = Package(
    name: "radarblock",
    products: [
        .executable(name: "radarblock", targets: ["radarblock"]),
        .library(name: "RadarBlock", targets: [
            "StrictJSON", "FileIO", "Digest", "Domains", "ContentRules", "TrackerData", "TdsGenerator", "RuleBuilder",
            "RuleCompiler", "RuleEngine", "Surrogates", "RuleDiff", "Pipeline",
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
        .target(name: "FileIO"),
        .target(name: "Digest", dependencies: ["CCrypto"]),
        .target(name: "Domains", dependencies: ["CPSL", "CIDN2"]),
        .target(name: "CWebKitIDNA", dependencies: ["CICU"]),
        .target(name: "ContentRules", dependencies: ["StrictJSON", "CWebKitIDNA"]),
        .target(name: "TrackerData", dependencies: ["FileIO", "StrictJSON", "Domains", "Digest"]),
        .target(name: "TdsGenerator", dependencies: ["FileIO", "TrackerData", "ContentRules", "StrictJSON", "Domains"]),
        .target(name: "RuleBuilder", dependencies: ["FileIO", "TrackerData", "ContentRules", "StrictJSON", "Domains"]),
        .target(name: "RuleCompiler", dependencies: ["FileIO", "ContentRules", "StrictJSON", "Digest"]),
        .target(name: "RuleEngine", dependencies: ["FileIO", "RuleCompiler", "ContentRules", "StrictJSON", "Domains", "CWebKitIDNA"]),
        .target(name: "Surrogates", dependencies: ["FileIO", "TrackerData", "StrictJSON", "Domains"]),
        .target(name: "RuleDiff", dependencies: ["FileIO", "Domains", "RuleEngine", "RuleBuilder", "TrackerData", "ContentRules", "StrictJSON", "CHTMLWalk"]),
        .target(name: "WebKitBridge", dependencies: ["FileIO"]),
        .target(name: "Pipeline", dependencies: [
            "CSystem", "CHTTPFetch", "WebKitBridge",
            "TrackerData", "TdsGenerator", "RuleBuilder", "RuleCompiler", "RuleEngine", "Surrogates", "RuleDiff",
            "ContentRules", "StrictJSON", "Domains", "Digest", "FileIO",
        ]),
        .executableTarget(name: "radarblock", dependencies: [
            "Pipeline", "WebKitBridge", "TrackerData", "TdsGenerator", "RuleBuilder", "RuleCompiler", "RuleEngine", "Surrogates",
            "RuleDiff", "ContentRules", "StrictJSON", "Domains", "Digest", "FileIO",
        ]),

        .executableTarget(name: "radarblock-bench", dependencies: ["RuleEngine", "RuleCompiler", "ContentRules", "StrictJSON"]),

        .testTarget(name: "StrictJSONTests", dependencies: ["StrictJSON"]),
        .testTarget(name: "DomainsTests", dependencies: ["Domains"]),
        .testTarget(name: "DigestTests", dependencies: ["Digest"]),
        .testTarget(name: "FileIOTests", dependencies: ["FileIO"]),
        .testTarget(name: "ContentRulesTests", dependencies: ["ContentRules", "StrictJSON"], exclude: ["Fixtures"]),
        .testTarget(name: "TrackerDataTests", dependencies: ["TrackerData", "StrictJSON"]),
        .testTarget(name: "TdsGeneratorTests", dependencies: ["TdsGenerator", "TrackerData", "StrictJSON"]),
        .testTarget(name: "RuleBuilderTests", dependencies: ["RuleBuilder", "TrackerData", "ContentRules", "StrictJSON", "Domains"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "RuleCompilerTests", dependencies: ["RuleCompiler", "ContentRules", "StrictJSON"], exclude: ["Fixtures"]),
        .testTarget(name: "RuleEngineTests", dependencies: ["RuleEngine", "RuleCompiler", "ContentRules", "StrictJSON"]),
        .testTarget(name: "SurrogatesTests", dependencies: ["Surrogates", "TrackerData", "StrictJSON"]),
        .testTarget(name: "RuleDiffTests", dependencies: ["RuleDiff", "RuleEngine", "TrackerData", "StrictJSON"]),
        .testTarget(name: "WebKitBridgeTests", dependencies: ["WebKitBridge"]),
        .testTarget(name: "PipelineTests", dependencies: ["Pipeline", "StrictJSON", "Surrogates", "WebKitBridge"]),
    ]
)
