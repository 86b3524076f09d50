import ArgumentParser

extension ParsableCommand {
    /// Runs `body`, reporting any error it throws as one line `kvstore: <message>` on standard
    /// error and exiting with `status`: for commands whose status 1 means something else
    /// (`diff`: the stores differ; `verify`: problems found), so that errors use 2.
    func reportingErrors(status: Int32, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            StandardError.report(String(describing: error))
            throw ExitCode(status)
        }
    }
}
