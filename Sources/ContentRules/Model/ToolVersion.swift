// The tool's version: part of every identifier, so a new tool version never reuses an old compiled list.

public enum ToolVersion {
    public static let current = "0.1.0"
}
