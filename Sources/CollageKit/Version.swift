public enum CollageKitVersion { public static let string = "0.1.0" }
