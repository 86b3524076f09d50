#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A token, certificate or key file that cannot be used: one line naming the file and the problem.
///
/// ```swift
/// do { _ = try ReplicationToken(contentsOfFile: "/etc/kvstore/token") } catch {
///     print(error)   // token file /etc/kvstore/token is accessible by others (mode 0644): chmod 600 it
/// }
/// ```
public struct CredentialError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public let path: String
    /// The problem, naming the file.
    public let description: String

    init(_ path: String, _ description: String) {
        self.path = path
        self.description = description
    }
}

/// Reading the files credentials come from.
enum CredentialFile {
    /// The contents of the secret file `path` (a token or a private key), refused — as ssh does —
    /// when its permissions let anyone but its owner read or write it.
    static func readSecret(_ path: String, kind: String) throws(CredentialError) -> [UInt8] {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CredentialError(path, "cannot read \(kind) \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw CredentialError(path, "\(kind) \(path) is not a regular file") }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw CredentialError(path, "\(kind) \(path) is accessible by others (mode \(String(format: "%04o", mode))): chmod 600 it")
        }
        return try read(path, kind: kind)
    }

    /// The contents of `path` (a certificate).
    static func read(_ path: String, kind: String) throws(CredentialError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = access(path, F_OK) == 0 ? "permission denied" : "no such file"
            throw CredentialError(path, "cannot read \(kind) \(path): \(reason)")
        }
        return Array(data)
    }
}
