// swift-tools-version: 6.0
import PackageDescription

// The benchmark harness: kvstore against raw LMDB (its C API) on the same bytes and against GRDB
// (SQLite) on the same records. A nested package
// so that the main package's build and tests stay free of it. Run in release:
//     swift run -c release Benchmarks [--quick] [--json]
let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "kvstore", path: "../.."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // LMDB's C API for the raw-LMDB engine: a system library of the harness's own, as the
        // main package exports no C module.
        .systemLibrary(
            name: "CRawLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
        ),
        .executableTarget(
            name: "Benchmarks",
            dependencies: [
                .product(name: "KVStore", package: "kvstore"),
                // The sync figures: the engine, and a throwaway PostgreSQL hub as the tests start theirs.
                .product(name: "KVStoreSync", package: "kvstore"),
                .product(name: "PostgreSQLFixture", package: "kvstore"),
                "CRawLMDB",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
