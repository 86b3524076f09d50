import Foundation

/// Runs an installed program (such as LMDB's `mdb_stat`) and collects its standard output.
///
/// - Returns: nil when the program is not installed (tests then skip that check), else its exit
///   status and standard output.
public func runExternalTool(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String)? {
    guard FileManager.default.isExecutableFile(atPath: path) else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = Pipe()
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, text)
}
