extension Value: CustomStringConvertible {
    /// The value as compact typed JSON (see ``TypedJSON``).
    ///
    /// ```swift
    /// let value: Value = ["tags": ["a", "b"], "size": 2.0]
    /// print(value)   // {"size":2.0,"tags":["a","b"]}
    /// ```
    public var description: String {
        TypedJSON.string(from: self)
    }
}
