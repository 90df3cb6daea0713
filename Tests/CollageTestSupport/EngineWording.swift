import CollageKit

/// The engine's words for a file that is none of its formats
/// (ci_fail_not_image), from its table, so that the tests checking them
/// need no change when a format is added: "not a JPEG, PNG, HEIF or WebP file".
public enum EngineWording {
    public static var notAnImage: String {
        let names = ImageFormat.all.map(\.name)
        guard let last = names.last else { return "not an image file" }
        let listed = names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + last : last
        return "not a \(listed) file"
    }
}
