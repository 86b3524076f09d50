import Foundation

/// The parts of a `postgres://` URL. Errors name the part that is wrong, never the URL as given
/// (it may hold a password).
struct HubURL {
    let user: String
    let password: String?
    let host: String
    let port: Int
    let database: String
    let query: Substring

    init(_ text: String) throws(SyncError) {
        guard let rest = ["postgres://", "postgresql://"].lazy.compactMap({ text.hasPrefix($0) ? text.dropFirst($0.count) : nil }).first else {
            throw Self.problem("the hub URL must start with postgres:// (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE)")
        }
        let (beforeQuery, query) = Self.split(rest, at: "?")
        self.query = query ?? ""
        let (authority, path) = Self.split(beforeQuery, at: "/")
        guard let at = authority.lastIndex(of: "@") else {
            throw Self.problem("the hub URL names no user (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE)")
        }
        let (userText, passwordText) = Self.split(authority[..<at], at: ":")
        user = try Self.decode(userText, "the user")
        guard !user.isEmpty else { throw Self.problem("the hub URL names no user (postgres://USER@HOST/DATABASE)") }
        password = try passwordText.map { (text) throws(SyncError) in try Self.decode(text, "the password") }
        (host, port) = try Self.hostAndPort(authority[authority.index(after: at)...])
        database = try Self.decode(path ?? "", "the database")
        guard !database.isEmpty else { throw Self.problem("the hub URL names no database (postgres://USER@HOST/DATABASE)") }
    }

    /// The characters a URL's user and database keep as they are.
    private static let unreserved = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))

    /// `postgres://USER@HOST:PORT/DATABASE`, the user and database percent-encoded as needed.
    static func redacted(user: String, host: String, port: Int, database: String) -> String {
        func encode(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text }
        let hostText = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(encode(user))@\(hostText):\(port)/\(encode(database))"
    }

    static func problem(_ message: String) -> SyncError { SyncError(.configuration, hub: "", message) }

    private static func split(_ text: Substring, at separator: Character) -> (Substring, Substring?) {
        guard let index = text.firstIndex(of: separator) else { return (text, nil) }
        return (text[..<index], text[text.index(after: index)...])
    }

    private static func decode(_ text: Substring, _ part: String) throws(SyncError) -> String {
        guard let decoded = String(text).removingPercentEncoding else {
            throw problem("\(part) in the hub URL has an invalid %-escape")
        }
        return decoded
    }

    private static func hostAndPort(_ text: Substring) throws(SyncError) -> (String, Int) {
        var host = text
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw problem("the hub URL's IPv6 address lacks its ']'") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw problem("the hub URL has text after its IPv6 address: '\(after)'") }
                portText = after.dropFirst()
            }
        } else {
            (host, portText) = split(text, at: ":")
        }
        guard !host.isEmpty else { throw problem("the hub URL names no host (postgres://USER@HOST/DATABASE)") }
        guard let portText else { return (String(host), 5432) }
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw problem("the hub URL's port '\(portText)' is not a number from 1 to 65535")
        }
        return (String(host), port)
    }
}

extension HubURL {
    /// The URL's `?name=value&…` options.
    struct Options {
        var schema = HubConfiguration.defaultSchema
        var tls = HubConfiguration.TLSMode.disable
        var rootCertificateFile: String?
        var connectTimeout = Duration.seconds(10)
        var requestTimeout = HubConfiguration.defaultRequestTimeout

        init(_ query: Substring) throws(SyncError) {
            for pair in query.split(separator: "&") {
                let (name, value) = HubURL.split(pair, at: "=")
                let text = try HubURL.decode(value ?? "", "option \(name)")
                switch name {
                case "sslmode":
                    guard let mode = HubConfiguration.TLSMode(rawValue: text) else {
                        let modes = HubConfiguration.TLSMode.allCases.map(\.rawValue).joined(separator: ", ")
                        throw HubURL.problem("unknown sslmode '\(text)' in the hub URL (one of \(modes))")
                    }
                    tls = mode
                case "schema":
                    try Self.checkSchema(text)
                    schema = text
                case "sslrootcert":
                    rootCertificateFile = text
                case "connect_timeout":
                    connectTimeout = try Self.seconds(text, option: name)
                case "request_timeout":
                    requestTimeout = try Self.seconds(text, option: name)
                default:
                    throw HubURL.problem("unknown option '\(name)' in the hub URL (sslmode, schema, sslrootcert, connect_timeout, request_timeout)")
                }
            }
        }

        private static func seconds(_ text: String, option: Substring) throws(SyncError) -> Duration {
            guard let seconds = Int(text), seconds > 0 else {
                throw HubURL.problem("\(option) '\(text)' in the hub URL is not a whole number of seconds above 0")
            }
            return .seconds(seconds)
        }

        /// Lowercase, so that it is the same name quoted or not.
        private static func checkSchema(_ name: String) throws(SyncError) {
            let bytes = Array(name.utf8)
            let valid = (1...63).contains(bytes.count) && bytes.enumerated().allSatisfy { offset, byte in
                (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || (offset > 0 && byte >= 0x30 && byte <= 0x39)
            }
            guard valid else {
                throw HubURL.problem("schema '\(name)' in the hub URL must be 1 to 63 lowercase letters, digits and '_', starting with a letter or '_'")
            }
        }
    }
}
