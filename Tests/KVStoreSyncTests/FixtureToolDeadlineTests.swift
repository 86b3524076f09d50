import Testing
@testable import PostgreSQLFixture
import TestSupport

/// The PostgreSQL fixture's commands (`initdb`, `pg_ctl`, `psql`) run with a deadline: one that
/// never finishes fails its test, naming the command, instead of hanging the whole run.
@Suite(.tags(.subprocess), .skippedByTag) struct FixtureToolDeadlineTests {
    @Test func aCommandStillRunningAtItsDeadlineIsKilledAndNamed() throws {
        let start = ContinuousClock.now
        let error = #expect(throws: FixtureError.self) { try runTool("/bin/sleep", ["30"], in: "/", timeout: .seconds(1)) }
        #expect(ContinuousClock.now - start < .seconds(20), "the command ran to its end")
        #expect(error?.description.hasPrefix("/bin/sleep 30 did not finish within 1.0 seconds and was killed") == true,
                "\(String(describing: error))")
    }
}
