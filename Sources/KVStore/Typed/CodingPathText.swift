/// Coding paths written as key paths: keys joined by `.`, array positions as `[2]`.
enum CodingPathText {
    static func text(_ path: [any CodingKey]) -> String? {
        if path.isEmpty { return nil }
        var text = ""
        for key in path {
            if key is IndexKey, let index = key.intValue {
                text += "[\(index)]"
            } else {
                if !text.isEmpty { text += "." }
                text += key.stringValue
            }
        }
        return text
    }
}

/// The coding key of an array element.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { return nil }
}
