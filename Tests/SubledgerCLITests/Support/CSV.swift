/// A strict RFC 4180 reader for checking what the CLI writes: CRLF record ends, quoted fields
/// with doubled quotes. Returns nil for anything RFC 4180 does not allow.
enum CSV {
    static func parse(_ text: String) -> [[String]]? {
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var quoted = false
        var index = text.unicodeScalars.startIndex
        let scalars = text.unicodeScalars
        var atFieldStart = true
        while index < scalars.endIndex {
            let scalar = scalars[index]
            index = scalars.index(after: index)
            if quoted {
                if scalar == "\"" {
                    if index < scalars.endIndex, scalars[index] == "\"" {
                        field.unicodeScalars.append("\"")
                        index = scalars.index(after: index)
                    } else {
                        quoted = false
                    }
                } else {
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"":
                guard atFieldStart else { return nil }
                quoted = true
                atFieldStart = false
            case ",":
                record.append(field)
                field = ""
                atFieldStart = true
            case "\r":
                guard index < scalars.endIndex, scalars[index] == "\n" else { return nil }
                index = scalars.index(after: index)
                record.append(field)
                records.append(record)
                record = []
                field = ""
                atFieldStart = true
            case "\n":
                return nil
            default:
                field.unicodeScalars.append(scalar)
                atFieldStart = false
            }
        }
        guard !quoted, record.isEmpty, field.isEmpty else { return nil }
        return records
    }
}
