#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension Secret {
    /// The password from the URL, else the file, else the environment; nil when none gives one.
    /// - Throws: ``SyncError`` when both the URL and a file give one, or the file cannot be used.
    static func choose(url: String?, file: String?, environment: String?, hub: String) throws(SyncError) -> Secret? {
        switch (url, file) {
        case (.some, .some):
            throw SyncError(.configuration, hub: hub, "the password is given twice, in the hub URL and in a password file: give it once")
        case (let url?, nil):
            return Secret(value: url)
        case (nil, let file?):
            return Secret(value: try readFile(file, hub: hub))
        case (nil, nil):
            return environment.map { Secret(value: $0) }
        }
    }

    /// The first line of `path`, which must be a regular file only its owner may read or write.
    private static func readFile(_ path: String, hub: String) throws(SyncError) -> String {
        func problem(_ message: String) -> SyncError { SyncError(.configuration, hub: hub, "password file \(path) \(message)") }
        var info = stat()
        guard stat(path, &info) == 0 else { throw problem("cannot be read: \(String(cString: strerror(errno)))") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw problem("is not a regular file") }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw problem("is accessible by others (mode \(String(format: "%04o", mode))): chmod 600 it")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw problem("cannot be read: permission denied") }
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let password = line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
        guard !password.isEmpty else { throw problem("is empty: its first line is the password") }
        return password
    }
}
