#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// libFuzzer's callback: the input's bytes; returns 0.
public typealias FuzzInputCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: FuzzInputCallback
) -> CInt

/// A fuzz target's `main`: with `--write-seeds DIR` writes `seeds` there (one file per seed, named
/// by its index) and exits; otherwise runs libFuzzer's driver with the command line (corpus
/// directories, `-max_total_time=N`, …) and `callback`.
public func runFuzzer(
    _ argc: CInt,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
    seeds: () throws -> [[UInt8]],
    callback: FuzzInputCallback
) -> CInt {
    if argc == 3, let flag = argv[1], String(cString: flag) == "--write-seeds", let dir = argv[2] {
        do {
            let directory = URL(fileURLWithPath: String(cString: dir))
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (index, seed) in try seeds().enumerated() {
                try Data(seed).write(to: directory.appendingPathComponent(String(format: "seed-%03d", index)))
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("writing seeds failed: \(error)\n".utf8))
            return 1
        }
    }
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, callback)
}

/// The input as an array (inputs are small).
public func inputBytes(_ data: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let data, count > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: count))
}
