// The project's own sample inputs (data/, written for radarblock): the one place test targets find them.

public enum SampleData {
    public static let directory = SharedFiles.packageRoot + "/data"
    public static let tds = directory + "/tds.json"
    public static let config = directory + "/privacy-config.json"
    public static let surrogates = directory + "/surrogates.txt"
    public static let unprotected = directory + "/unprotected-sites.txt"
}
