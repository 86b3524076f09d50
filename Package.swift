// swift-tools-version: 6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "kvstore",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "KVStore", targets: ["KVStore"]),
        // Replication over TCP (SwiftNIO): JournalServer, JournalClient.
        .library(name: "KVStoreNetwork", targets: ["KVStoreNetwork"]),
        // Text templates filled from a record's key paths (`kvstore render`).
        .library(name: "KVStoreTemplates", targets: ["KVStoreTemplates"]),
        // The Swift layer over LMDB (the fuzz package's page-damage target checks pages with it).
        .library(name: "LMDB", targets: ["LMDB"]),
        .executable(name: "kvstore", targets: ["kvstore"]),
        // Sync through a PostgreSQL hub (postgres-nio): apps that do not sync never link it.
        .library(name: "KVStoreSync", targets: ["KVStoreSync"]),
        // A throwaway PostgreSQL server (initdb + pg_ctl): for the tests and the benchmark
        // harness, not for apps.
        .library(name: "PostgreSQLFixture", targets: ["PostgreSQLFixture"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),  // studio only
        .package(url: "https://github.com/x-sheep/swift-property-based", exact: "2.0.1"),  // tests only
        // `swift package generate-documentation` (DocC catalogs in Sources/*/*.docc).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
        ),
        .target(name: "LMDB", dependencies: ["CLMDB"], swiftSettings: strict),
        .target(name: "KVStore", dependencies: ["LMDB"], swiftSettings: strict),
        .target(name: "KVStoreTemplates", dependencies: ["KVStore"], swiftSettings: strict),
        // Replication over TCP: apps that embed KVStore do not pull SwiftNIO.
        .target(
            name: "KVStoreNetwork",
            dependencies: [
                "KVStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "KVStoreSync",
            dependencies: [
                "KVStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict
        ),
        // The browser inspector (`kvstore studio`): apps that embed KVStore never link Hummingbird.
        .target(
            name: "KVStoreStudio",
            dependencies: [
                "KVStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "kvstore",
            dependencies: [
                "KVStore",
                "KVStoreNetwork",
                "KVStoreTemplates",
                "KVStoreSync",
                "KVStoreStudio",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/kvstore",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        .target(name: "PostgreSQLFixture", path: "Tests/PostgreSQLFixture", swiftSettings: strict),
        .target(name: "TestSupport", dependencies: ["PostgreSQLFixture"], path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(
            name: "LMDBTests", dependencies: ["LMDB", "TestSupport"], swiftSettings: strict,
            // The sync-failure tests' fdatasync replaces libc's for liblmdb (dynamic symbol).
            linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic-symbol=fdatasync"])]),
        .testTarget(
            name: "KVStoreTests",
            dependencies: ["KVStore", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: strict),
        .testTarget(name: "KVStoreTemplatesTests", dependencies: ["KVStoreTemplates", "KVStore", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "KVStoreCLITests", dependencies: ["kvstore", "KVStore", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "KVStoreStudioTests", dependencies: ["KVStoreStudio", "KVStore", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "KVStoreNetworkTests", dependencies: ["KVStoreNetwork", "KVStore", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "KVStoreSyncTests", dependencies: ["KVStoreSync", "KVStore", "TestSupport", "kvstore"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
