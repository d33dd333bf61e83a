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
        .systemLibrary(name: "CTLS", providers: [.apt(["libssl-dev"])]),
        // libvips' and GLib's declarations for the CVips bridge. pkg-config gives only GLib's include
        // paths (`pkg-config vips` adds -pthread, which SwiftPM refuses with a warning); the module
        // map links GLib and GObject, never libvips, which CVips loads when the first photo arrives.
        .systemLibrary(
            name: "CLibVips",
            pkgConfig: "gobject-2.0",
            providers: [.apt(["libvips-dev"])]
        ),
        .target(name: "CVips", dependencies: ["CLibVips"]),
        .target(name: "Basics", swiftSettings: strictSettings),
        .target(name: "Logging", dependencies: ["Basics"], swiftSettings: strictSettings),
        .systemLibrary(name: "CLinuxEvents"),
        .target(name: "HTTPServer", dependencies: ["Basics", "CLinuxEvents", "Logging"], swiftSettings: strictSettings),
        .target(name: "Templates", dependencies: ["Basics"], swiftSettings: strictSettings),
        .target(name: "Store", dependencies: ["Basics", "Logging"], swiftSettings: strictSettings),
        .target(name: "StoreSQLite", dependencies: ["Basics", "Store", "CSQLite", "Logging"], swiftSettings: strictSettings),
        .target(name: "StorePostgres", dependencies: ["Basics", "Store", "CPostgres", "Logging"], swiftSettings: strictSettings),
        .target(
            name: "StoreBackend",
            dependencies: ["Basics", "Store", "StoreSQLite", "StorePostgres", "Logging"],
            swiftSettings: strictSettings
        ),
        .target(name: "Images", dependencies: ["CVips"], swiftSettings: strictSettings),
        .target(name: "Mail", dependencies: ["Basics", "Logging", "CTLS"], swiftSettings: strictSettings),
        .target(
            name: "App",
            dependencies: ["Basics", "HTTPServer", "Templates", "Store", "Logging", "CCrypt", "Images", "Mail"],
            swiftSettings: strictSettings
        ),
        // The composition root's parts that need a backend: App stays free of libpq.
        .target(
            name: "Composition",
            dependencies: ["Basics", "App", "HTTPServer", "Templates", "Store", "StoreBackend", "StorePostgres", "Logging", "Mail"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "quotebook",
            dependencies: ["Basics", "App", "Composition", "HTTPServer", "Templates", "Store", "StoreBackend", "Logging"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "ServerBenchmark",
            dependencies: ["HTTPServer", "Templates", "Logging"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "StoreBenchmark",
            dependencies: ["Store", "StoreSQLite", "Logging"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "ScaleBenchmark",
            dependencies: ["Store", "StoreSQLite", "Logging", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "TemplatesBenchmark",
            dependencies: ["Templates"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "TestSupport",
            dependencies: [
                "Basics", "App", "Composition", "HTTPServer", "Templates", "Store", "StoreSQLite", "StorePostgres", "StoreBackend", "Logging",
                "Mail",
            ],
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
            dependencies: ["Basics", "Store", "StoreSQLite", "StorePostgres", "StoreBackend", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "MailTests", dependencies: ["Mail"], swiftSettings: strictSettings),
        .testTarget(
            name: "ImagesTests",
            dependencies: ["Images", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AppTests",
            dependencies: [
                "Basics", "App", "Composition", "Images", "Store", "StoreSQLite", "StorePostgres", "StoreBackend", "Templates", "HTTPServer",
                "TestSupport",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "App", "Store", "StoreSQLite", "StorePostgres", "StoreBackend", "Templates", "HTTPServer", "TestSupport", "quotebook", "Mail",
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
