import Testing
import TestSupport

/// The suites that run against the shared PostgreSQL cluster (``HubDatabase/sharedCluster``),
/// one test at a time: a download returns only rows of transactions older than every transaction
/// still running in the whole cluster, so another test's open transaction (its `CREATE
/// DATABASE`, an upload) would hold this test's reads back and make their results depend on
/// timing.
@Suite(.tags(.postgresql), .skippedByTag, .serialized) enum HubTests {}
