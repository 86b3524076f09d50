import Foundation

/// The package's root directory (where `Package.swift`, `README.md` and `.build*` are), found
/// from this file's own place, so that a test reading the README or a source file finds it from
/// whatever folder the test is in.
public let packageRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()   // TestSupport
    .deletingLastPathComponent()   // Tests
    .deletingLastPathComponent()
