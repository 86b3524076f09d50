// swift-tools-version: 6.0
import PackageDescription

// libFuzzer targets for kvstore's decoders and parsers: a nested package, so that the main
// package's build and CI never build them. Build and run them with `Tools/Scripts/fuzz` (Linux):
//     swift build -c release -Xswiftc -sanitize=fuzzer,address --scratch-path .build-fuzz
// Each executable is one fuzz target. SwiftPM links an executable with `main` aliased to
// `<Module>_main`; each target defines that function (``runFuzzer``), which hands over to libFuzzer's
// driver, and exports `LLVMFuzzerTestOneInput`. Sources are parsed as a library (no top-level code).
let asLibrary: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .unsafeFlags(["-parse-as-library"]),
]

// Each target with the products it needs besides KVStore.
let targets: [(name: String, products: [String])] = [
    ("FuzzValueDecoder", []),
    ("FuzzRecordDecoder", []),
    ("FuzzTypedJSON", []),
    ("FuzzJournalStream", []),
    ("FuzzJournalEntry", []),
    ("FuzzKindDeclaration", []),
    ("FuzzKeyPath", []),
    ("FuzzTemplate", ["KVStoreTemplates"]),
    ("FuzzProtocolFrames", ["KVStoreNetwork"]),
    ("FuzzPageDamage", ["LMDB"]),
]

let package = Package(
    name: "Fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "kvstore", path: "../.."),
    ],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "KVStore", package: "kvstore")],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ] + targets.map { target in
        .executableTarget(
            name: target.name,
            dependencies: ["FuzzSupport", .product(name: "KVStore", package: "kvstore")]
                + target.products.map { .product(name: $0, package: "kvstore") },
            swiftSettings: asLibrary
        )
    },
    swiftLanguageModes: [.v6]
)
