/// A host and port from the command line: `--listen HOST:PORT` for `serve`, `tcp://HOST:PORT`
/// for `replicate`. An IPv6 host is written in brackets (`[::1]:7070`); `serve` takes a port
/// alone (`7070` or `:7070`) as the loopback address.
///
/// ```swift
/// let address = try NetworkAddress(listening: "7070")      // 127.0.0.1:7070
/// let source = try NetworkAddress(url: "tcp://db1:7070")   // db1:7070
/// ```
struct NetworkAddress: Equatable, CustomStringConvertible {
    var host: String
    var port: Int

    /// `HOST:PORT`, `[IPv6]:PORT`, `:PORT` or `PORT` (loopback).
    init(listening text: String) throws {
        if let port = Int(text.hasPrefix(":") ? String(text.dropFirst()) : text) {
            self = try NetworkAddress(host: "127.0.0.1", port: port, from: text)
        } else {
            self = try NetworkAddress(hostAndPort: text)
        }
    }

    /// `tcp://HOST:PORT`.
    init(url text: String) throws {
        guard text.hasPrefix("tcp://") else { throw CommandError("'\(text)' is not a tcp://HOST:PORT address") }
        self = try NetworkAddress(hostAndPort: String(text.dropFirst("tcp://".count)))
    }

    private init(hostAndPort text: String) throws {
        let host: Substring
        let port: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw CommandError("'\(text)' has no port: write [HOST]:PORT") }
            port = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                throw CommandError("'\(text)' is not HOST:PORT (write an IPv6 host in brackets: [::1]:7070)")
            }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { throw CommandError("'\(text)' has no host") }
        guard let number = Int(port) else { throw CommandError("'\(text)' has no valid port") }
        self = try NetworkAddress(host: String(host), port: number, from: text)
    }

    /// `host` and `port` as they are.
    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    private init(host: String, port: Int, from text: String) throws {
        guard (0...65535).contains(port) else { throw CommandError("'\(text)': port \(port) is not between 0 and 65535") }
        self.host = host
        self.port = port
    }

    /// `HOST:PORT`, with an IPv6 host in brackets.
    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
