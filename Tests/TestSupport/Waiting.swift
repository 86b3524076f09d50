import Foundation

/// Polls `condition` every few milliseconds until it holds or `timeout` seconds passed, for tests
/// that wait on another thread or process. - Returns: whether it held. (Never a timed assertion:
/// the timeout only keeps a broken test from hanging.)
///
/// ```swift
/// waitUntil { follower.lines.count >= 3 }
/// ```
@discardableResult
public func waitUntil(timeout: TimeInterval = 60, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() >= deadline { return false }
        Thread.sleep(forTimeInterval: 0.002)
    }
    return true
}
