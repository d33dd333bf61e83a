// swift-tools-version: 6.1
import PackageDescription

/// Every target compiles in Swift 6 language mode with these upcoming features on, so
/// imports are explicit and existentials are spelled `any`.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "quotebook",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "quotebook", targets: ["quotebook"])
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CPostgres",
            providers: [.apt(["libpq-dev"])]
        ),
        .systemLibrary(
            name: "CCrypt",
            providers: [.apt(["libcrypt-dev"])]
        ),
        .target(name: "Basics", swiftSettings: strictSettings),
        .target(name: "Logging", swiftSettings: strictSettings),
        .systemLibrary(name: "CLinuxEvents"),
        .systemLibrary(name: "CByteSearch"),
        .target(name: "HTTPServer", dependencies: ["Basics", "CLinuxEvents", "Logging"], swiftSettings: strictSettings),
        .target(name: "Templates", dependencies: ["Basics"], swiftSettings: strictSettings),
        .target(name: "Store", dependencies: ["Basics", "CSQLite", "CPostgres", "CByteSearch", "Logging"], swiftSettings: strictSettings),
        .target(
            name: "App",
            dependencies: ["Basics", "HTTPServer", "Templates", "Store", "Logging", "CCrypt"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "quotebook",
            dependencies: ["Basics", "App", "HTTPServer", "Templates", "Store", "Logging"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "ServerBenchmark",
            dependencies: ["HTTPServer", "Templates", "Logging"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "StoreBenchmark",
            dependencies: ["Store", "Logging"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "ScaleBenchmark",
            dependencies: ["Store", "Logging"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "TemplatesBenchmark",
            dependencies: ["Templates"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "TestSupport",
            dependencies: ["Basics", "App", "HTTPServer", "Templates", "Store", "Logging"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BasicsTests",
            dependencies: ["Basics", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "HTTPServerTests",
            dependencies: ["Basics", "HTTPServer", "Logging", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TemplatesTests",
            dependencies: ["Templates", "TestSupport"],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StoreTests",
            dependencies: ["Basics", "Store", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AppTests",
            dependencies: ["Basics", "App", "Store", "Templates", "HTTPServer", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["Basics", "App", "Store", "Templates", "HTTPServer", "TestSupport", "quotebook"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
