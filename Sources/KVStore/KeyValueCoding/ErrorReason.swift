import Foundation

/// The reason an error gives, as people read it.
///
/// On Linux, Foundation's errors (`NSError`, `CocoaError`) describe themselves as a dump —
/// `Error Domain=app Code=3 "(null)"UserInfo={NSLocalizedDescription=name must not be empty}` —
/// so their localized description is used, as is a `LocalizedError`'s `errorDescription`; any
/// other error is described as it describes itself.
package enum ErrorReason {
    /// The reason `error` gives: `name must not be empty`.
    package static func text(of error: any Error) -> String {
        if let localized = error as? any LocalizedError, let description = localized.errorDescription { return description }
        guard type(of: error as Any) is NSError.Type || error is CocoaError else { return String(describing: error) }
        return (error as NSError).localizedDescription
    }
}
