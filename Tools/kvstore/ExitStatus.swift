import ArgumentParser

extension ParsableCommand {
    /// ``reportingErrors(_:)`` with another exit status: for commands whose status 1 means
    /// something else (`diff`: the stores differ; `verify`: problems found), so that their errors
    /// exit with 2. `body` must not throw an `ExitCode` itself.
    func reportingErrors(status: Int32, _ body: () throws -> Void) throws {
        do {
            try reportingErrors(body)
        } catch {
            throw ExitCode(status)
        }
    }
}
