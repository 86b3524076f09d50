@testable import kvstore
import Testing

/// `serve --listen` and `replicate tcp://…` addresses.
@Suite struct NetworkAddressTests {
    @Test(arguments: [
        ("7070", "127.0.0.1", 7070), (":0", "127.0.0.1", 0), ("0.0.0.0:7070", "0.0.0.0", 7070),
        ("localhost:1", "localhost", 1), ("[::1]:7070", "::1", 7070),
    ])
    func listening(_ text: String, host: String, port: Int) throws {
        let address = try NetworkAddress(listening: text)
        #expect(address == NetworkAddress(host: host, port: port))
    }

    @Test func aURLNamesHostAndPort() throws {
        #expect(try NetworkAddress(url: "tcp://db1:7070") == NetworkAddress(host: "db1", port: 7070))
        #expect(try NetworkAddress(url: "tcp://[::1]:7070").description == "[::1]:7070")
    }

    @Test(arguments: [
        ("tcp://db1", "'db1' is not HOST:PORT (write an IPv6 host in brackets: [::1]:7070)"),
        ("tcp://:7070", "':7070' has no host"),
        ("tcp://db1:x", "'db1:x' has no valid port"),
        ("tcp://db1:-1", "'db1:-1': port -1 is not between 0 and 65535"),
        ("tcp://db1:65536", "'db1:65536': port 65536 is not between 0 and 65535"),
        ("tcp://[::1]", "'[::1]' has no port: write [HOST]:PORT"),
        ("tcp://::1:7070", "'::1:7070' is not HOST:PORT (write an IPv6 host in brackets: [::1]:7070)"),
        ("http://db1:7070", "'http://db1:7070' is not a tcp://HOST:PORT address"),
    ])
    func aBadAddressIsOneClearError(_ text: String, message: String) {
        #expect(throws: CommandError.self) { try NetworkAddress(url: text) }
        do { _ = try NetworkAddress(url: text) } catch { #expect("\(error)" == message) }
    }
}
