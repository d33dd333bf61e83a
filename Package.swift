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
        // libvips for photos. pkg-config gives only GLib's include paths: `pkg-config vips` adds
        // -pthread, which SwiftPM refuses with a warning. The module map links vips and GLib.
        .systemLibrary(
            name: "CVips",
            pkgConfig: "gobject-2.0",
            providers: [.apt(["libvips-dev"])]
        ),
        .target(name: "Logging", swiftSettings: strictSettings),
        .systemLibrary(name: "CLinuxEvents"),
        .systemLibrary(name: "CByteSearch"),
        .target(name: "HTTPServer", dependencies: ["CLinuxEvents", "Logging"], swiftSettings: strictSettings),
        .target(name: "Templates", swiftSettings: strictSettings),
        .target(name: "Store", dependencies: ["CSQLite", "CPostgres", "CByteSearch", "Logging"], swiftSettings: strictSettings),
        .target(name: "Images", dependencies: ["CVips"], swiftSettings: strictSettings),
        .target(
            name: "App",
            dependencies: ["HTTPServer", "Templates", "Store", "Logging", "CCrypt"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "quotebook",
            dependencies: ["App", "HTTPServer", "Templates", "Store", "Logging"],
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
            dependencies: ["App", "HTTPServer", "Templates", "Store", "Logging"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "HTTPServerTests",
            dependencies: ["HTTPServer", "Logging", "TestSupport"],
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
            dependencies: ["Store", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ImagesTests",
            dependencies: ["Images", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AppTests",
            dependencies: ["App", "Store", "Templates", "HTTPServer", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["App", "Store", "Templates", "HTTPServer", "TestSupport", "quotebook"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
