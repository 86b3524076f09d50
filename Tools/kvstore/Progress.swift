#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A progress bar on standard error for long operations (`load`, `dump`, `replay`, `verify`):
/// drawn only when standard error is a terminal, silent otherwise, so scripts and pipes see
/// nothing extra.
///
/// It shows the count, the rate and — when the total is known — a bar, the percentage and the
/// time left. It redraws at most ten times a second, so ``advance(by:)`` is cheap to call for
/// every record.
///
/// ```swift
/// let progress = Progress(label: "loading", unit: "records", total: nil)
/// for line in lines { …; progress.advance() }
/// progress.finish()
/// ```
final class Progress {
    /// What is being done ("loading"), shown first.
    let label: String
    /// What is being counted ("records", "entries").
    let unit: String
    /// How many there are, when known.
    let total: Int?
    /// How many are done.
    private(set) var count = 0

    private let isEnabled: Bool
    private let start: Double
    private var lastDraw: Double = 0
    private var drawn = false
    private static let redrawInterval = 0.1
    private static let barWidth = 24

    /// - Parameter enabled: whether to draw; by default, when standard error is a terminal.
    init(label: String, unit: String, total: Int? = nil, enabled: Bool = isatty(2) == 1) {
        self.label = label
        self.unit = unit
        self.total = total
        self.isEnabled = enabled
        self.start = Self.now()
    }

    /// True when standard error is a terminal and standard output is not: the condition for a
    /// command that writes its results to standard output as it goes, so the bar is not drawn
    /// among them.
    static var terminalApartFromOutput: Bool { isatty(2) == 1 && isatty(1) == 0 }

    /// Counts `n` more done, redrawing when a tenth of a second has passed since the last redraw.
    func advance(by n: Int = 1) {
        count += n
        guard isEnabled else { return }
        let now = Self.now()
        if now - lastDraw >= Self.redrawInterval {
            lastDraw = now
            draw(Self.line(label: label, unit: unit, count: count, total: total, elapsed: now - start, width: Self.barWidth))
        }
    }

    /// Sets the count back to `count`, when work counted is done again (a write that starts over).
    func rewind(to count: Int) {
        self.count = count
    }

    /// Draws the final state and ends the line, leaving the summary on the terminal.
    func finish() {
        guard isEnabled else { return }
        draw(Self.line(label: label, unit: unit, count: count, total: total, elapsed: Self.now() - start, width: Self.barWidth))
        FileDescriptorOutput.writeAll(Array("\n".utf8), to: 2)
        drawn = false
    }

    /// Erases the bar without a summary (before an error is reported on its own line).
    func clear() {
        guard isEnabled, drawn else { return }
        FileDescriptorOutput.writeAll(Array("\r\u{1B}[K".utf8), to: 2)
        drawn = false
    }

    private func draw(_ text: String) {
        FileDescriptorOutput.writeAll(Array("\r\u{1B}[K\(text)".utf8), to: 2)
        drawn = true
    }

    /// The text of one redraw, e.g. `loading [=========>      ] 40% 400,000/1,000,000 records 210,512/s 3s left`.
    static func line(label: String, unit: String, count: Int, total: Int?, elapsed: Double, width: Int) -> String {
        let rate = elapsed > 0 ? Double(count) / elapsed : 0
        var parts = [label]
        if let total, total > 0 {
            let fraction = min(1, Double(count) / Double(total))
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "=", count: filled)
                + (filled < width ? ">" + String(repeating: " ", count: width - filled - 1) : "")
            parts.append("[\(bar)] \(Int(fraction * 100))%")
            parts.append("\(grouped(count))/\(grouped(total)) \(unit)")
        } else {
            parts.append("\(grouped(count)) \(unit)")
        }
        parts.append("\(grouped(Int(rate)))/s")
        if let total, rate > 0, count < total {
            parts.append("\(Int((Double(total - count) / rate).rounded(.up)))s left")
        }
        return parts.joined(separator: " ")
    }

    /// `n` with thousands separators: 1234567 → "1,234,567".
    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var result = ""
        for (i, digit) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return n < 0 ? "-" + result : result
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
