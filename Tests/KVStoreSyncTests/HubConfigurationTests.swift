import Foundation
import KVStoreSync
import Testing
import TestSupport

struct HubConfigurationTests {
    @Test func aURLNamesItsParts() throws {
        let hub = try HubConfiguration(url: "postgresql://sync%40team:p%3Ass@db.example:6432/app%20data?sslmode=verify-full"
                                           + "&schema=team_sync&sslrootcert=/etc/ca.pem&connect_timeout=3&request_timeout=7", environment: [:])
        #expect(hub.user == "sync@team")
        #expect((hub.host, hub.port, hub.database, hub.schema) == ("db.example", 6432, "app data", "team_sync"))
        #expect(hub.tls == .verifyFull && hub.rootCertificateFile == "/etc/ca.pem" && hub.connectTimeout == .seconds(3))
        #expect(hub.requestTimeout == .seconds(7))
        #expect(hub.description == "postgres://sync%40team@db.example:6432/app%20data?sslmode=verify-full&schema=team_sync")
    }

    @Test func defaultsAndIPv6() throws {
        let hub = try HubConfiguration(url: "postgres://sync@[::1]/app", environment: [:])
        #expect((hub.host, hub.port, hub.schema, hub.tls) == ("::1", 5432, "kvstore_sync", .disable))
        #expect(hub.connectTimeout == .seconds(10) && hub.requestTimeout == .seconds(30))
        #expect(hub.description == "postgres://sync@[::1]:5432/app")
    }

    @Test(arguments: [
        ("http://sync@db/app", "the hub URL must start with postgres:// (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE)"),
        ("postgres://db/app", "the hub URL names no user (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE)"),
        ("postgres://sync@db", "the hub URL names no database (postgres://USER@HOST/DATABASE)"),
        ("postgres://sync@:5432/app", "the hub URL names no host (postgres://USER@HOST/DATABASE)"),
        ("postgres://sync@db:99999/app", "the hub URL's port '99999' is not a number from 1 to 65535"),
        ("postgres://sync@db/app?sslmode=on", "unknown sslmode 'on' in the hub URL (one of disable, allow, prefer, require, verify-ca, verify-full)"),
        ("postgres://sync@db/app?sslcert=x", "unknown option 'sslcert' in the hub URL (sslmode, schema, sslrootcert, connect_timeout, request_timeout)"),
        ("postgres://sync@db/app?schema=Sync", "schema 'Sync' in the hub URL must be 1 to 63 lowercase letters, digits and '_', starting with a letter or '_'"),
        ("postgres://sync@db/app?connect_timeout=0", "connect_timeout '0' in the hub URL is not a whole number of seconds above 0"),
        ("postgres://sync@db/app?request_timeout=soon", "request_timeout 'soon' in the hub URL is not a whole number of seconds above 0"),
        ("postgres://sync:se%ZZcret@db/app", "the password in the hub URL has an invalid %-escape"),
    ])
    func aBadURLIsOneClearLine(url: String, message: String) {
        let error = #expect(throws: SyncError.self) { try HubConfiguration(url: url, environment: [:]) }
        #expect(error?.code == .configuration)
        #expect(error?.description == message)
    }

    @Test func thePasswordComesFromTheURLAFileOrTheEnvironment() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("password")
        try "from-file\nignored\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        let environment = ["PGPASSWORD": "from-environment"]
        let fromFile = try HubConfiguration(url: "postgres://sync@db/app", passwordFile: file, environment: environment)
        let fromEnvironment = try HubConfiguration(url: "postgres://sync@db/app", environment: environment)
        let fromURL = try HubConfiguration(url: "postgres://sync:from-url@db/app", environment: environment)
        #expect(fromFile != fromEnvironment && fromEnvironment != fromURL && fromURL != fromFile)
        #expect(fromFile == (try HubConfiguration(url: "postgres://sync:from-file@db/app", environment: [:])))
        #expect(fromEnvironment == (try HubConfiguration(url: "postgres://sync:from-environment@db/app", environment: [:])))

        let twice = #expect(throws: SyncError.self) {
            try HubConfiguration(url: "postgres://sync:from-url@db/app", passwordFile: file, environment: [:])
        }
        #expect(twice?.message == "the password is given twice, in the hub URL and in a password file: give it once")
        chmod(file, 0o644)
        let open = #expect(throws: SyncError.self) { try HubConfiguration(url: "postgres://sync@db/app", passwordFile: file) }
        #expect(open?.message == "password file \(file) is accessible by others (mode 0644): chmod 600 it")
        let missing = #expect(throws: SyncError.self) { try HubConfiguration(url: "postgres://sync@db/app", passwordFile: file + "-none") }
        #expect(missing?.message == "password file \(file)-none cannot be read: No such file or directory")
    }

    /// Nothing made from a configuration shows its password: not its description, not a debug
    /// description, not `dump`, not an error about it.
    @Test func thePasswordIsNeverShown() throws {
        let secret = "s3cret-\(UUID().uuidString)"
        let hub = try HubConfiguration(url: "postgres://sync:\(secret)@db/app?sslmode=require", environment: [:])
        var dumped = ""
        dump(hub, to: &dumped)
        let texts = [hub.description, String(reflecting: hub), "\(hub)", dumped]
        for text in texts { #expect(!text.contains(secret), "\(text)") }
        #expect(dumped.contains("<redacted>"))
        let error = #expect(throws: SyncError.self) {
            try HubConfiguration(url: "postgres://sync:\(secret)@db:0/app", environment: [:])
        }
        #expect(error.map { !String(reflecting: $0).contains(secret) } == true)
    }
}
