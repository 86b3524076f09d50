// The private PostgreSQL clusters and loopback listeners live in their own module, so that the
// benchmark harness (Tools/Benchmarks) starts its clusters with the same code; tests keep
// reaching them through TestSupport.
@_exported import PostgreSQLFixture
