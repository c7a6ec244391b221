// Tracker Radar decoders: a domain file and an entity file, lenient and strict.

import TrackerData

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    _ = try? RadarDomain.decode(bytes: input, path: "domains/US/fuzz.example.json")
    _ = try? RadarDomain.decode(bytes: input, path: "domains/US/fuzz.example.json", strict: true)
    _ = try? RadarEntity.decode(bytes: input, path: "entities/Fuzz.json")
    _ = try? RadarEntity.decode(bytes: input, path: "entities/Fuzz.json", strict: true)
    return 0
}
