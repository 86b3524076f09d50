// swift-tools-version: 6.0
import PackageDescription

// Group commit measurements outside the test suite: 8 writers' small durable commits with group
// commit on and off, and a single-writer loop to count instructions with callgrind. Run in release:
//     swift run -c release GroupCommitBench writers 8 5 full on
//     valgrind --tool=callgrind .build/release/GroupCommitBench single 2000 noSync
let package = Package(
    name: "GroupCommitBench",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "kvstore", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "GroupCommitBench",
            dependencies: [.product(name: "KVStore", package: "kvstore")],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
