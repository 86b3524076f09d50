import Foundation
import Testing
import TestSupport

/// `demo` and `--help`.
@Suite(.tags(.subprocess), .skippedByTag) struct DemoAndHelpTests {
    @Test func demoNarratesAndLeavesAStoreToInspect() throws {
        let dir = try TestDirectory()
        let store = dir.path("sample")
        let demo = try dir.succeed("demo", store)
        #expect((40...80).contains(demo.lines.count), "\(demo.lines.count) lines")
        #expect(demo.lines.first == "Creating a store in \(store).")
        #expect(demo.stdout.contains("undefined key 'discount' of closed kind 'invoice'"))
        #expect(demo.stdout.contains("invoice/*     -             kindDeclared"))
        #expect(demo.stdout.contains("@count = 3, @sum.amount = 245, @avg.amount = 81.66666666666667, @max.amount = 120"))
        #expect(demo.stdout.contains("insertion[0]"))
        // Observers report after the step that made the change: through a reference, and per kind.
        let named = try #require(demo.lines.firstIndex { $0.hasPrefix("Set person/ada name to") })
        #expect(demo.lines[named + 1].hasPrefix(#"  ↳ observer of person/ada name: "Ada" → "Ada Lovelace" (commit "#))
        #expect(demo.lines[named + 2] == #"  ↳ observer of invoice/1 customer.name: now "Ada Lovelace""#)
        #expect(demo.lines.contains(#"  ↳ observer of invoice/1 customer.name: initially "Ada""#))
        #expect(demo.lines.filter { $0.hasPrefix("  ↳ ") }.count == 5)
        // The typed layer's update writes only the key that differs; the replica refuses a local write.
        #expect(demo.lines.contains { $0.hasSuffix("update(_:from:keys:) wrote only what differed, in one commit, and returned it: paid false → true.") })
        #expect(demo.lines.contains("  ↳ observer of kind invoice: commit 13 modified 2"))
        let replicated = try #require(demo.lines.firstIndex { $0.hasPrefix("Replicated the store into ") })
        #expect(demo.lines[replicated].contains("18 journal entries applied exactly once") && demo.lines[replicated].hasSuffix("lag 0."))
        #expect(demo.lines[replicated + 2].contains(": local writes are refused (kvstore promote "))
        let suggested = Array(demo.lines.suffix(5))
        #expect(suggested == [
            "  kvstore dump \(store)", "  kvstore journal list \(store)", "  kvstore value \(store) invoice @sum.amount",
            "  kvstore stat \(store)", "  kvstore verify \(store)",
        ])
        for line in suggested {   // each command the demo suggests works on the store it made
            try dir.succeed(line.split(separator: " ").dropFirst().map(String.init))
        }

        let dump = try dir.succeed("dump", store)
        #expect(dump.stdout == """
            {"kind":"invoice","id":"1","values":{"amount":120,"customer":{"$ref":"person/ada"},"paid":true}}
            {"kind":"invoice","id":"2","values":{"amount":85,"customer":{"$ref":"person/grace"},"paid":true}}
            {"kind":"invoice","id":"3","values":{"amount":45,"customer":{"$ref":"person/ada"},"paid":true}}
            {"kind":"person","id":"ada","values":{"address":{"city":"Paris"},"age":0,"name":"Ada Lovelace","tags":["engines","math"]}}
            {"kind":"person","id":"grace","values":{"age":85,"name":"Grace Hopper"}}

            """)
        let table = try dir.succeed("dump", store, "--format", "table").lines
        #expect(demo.lines.contains(table[0]) && table.allSatisfy(demo.lines.contains))
        let journal = try dir.succeed("journal", "list", store).objects()
        let commits = journal.dropLast().suffix(3).map { $0["commit"] }   // the batch, before the typed update
        #expect(Set(commits).count == 1)
        #expect(demo.stdout.contains("share commit \(commits[0]!)"))
        #expect(demo.stdout.contains("  ↳ observer of kind invoice: commit \(commits[0]!) modified 1, 2, 3"))
    }

    @Test func demoWithoutAPathUsesANewTemporaryDirectory() throws {
        let dir = try TestDirectory()
        let demo = try dir.succeed("demo")
        let first = try #require(demo.lines.first)
        let path = String(first.dropFirst("Creating a store in ".count).dropLast())
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(URL(fileURLWithPath: path).lastPathComponent.hasPrefix("kvstore-demo-"))
        #expect(try dir.succeed("dump", path).lines.count == 5)
        let again = try dir.succeed("demo")
        let secondPath = String(try #require(again.lines.first).dropFirst("Creating a store in ".count).dropLast())
        defer { try? FileManager.default.removeItem(atPath: secondPath) }
        #expect(secondPath != path)
    }

    @Test(arguments: [[], ["demo"], ["get"], ["set"], ["rm"], ["dump"], ["journal"], ["journal", "list"]])
    func helpShowsUsageAndExamples(_ command: [String]) throws {
        let dir = try TestDirectory()
        let help = try dir.succeed(command + ["--help"])
        #expect(help.stdout.contains("USAGE: kvstore"))
        #expect(help.stdout.contains("OVERVIEW: "))
        #expect(help.stdout.contains("Examples:"))
    }
}
