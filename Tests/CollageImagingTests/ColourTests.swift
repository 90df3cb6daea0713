import CLCMS2
import CollageImaging
import CollageTestSupport
import Foundation
import Testing

// Colours to sRGB (colour.c): photos tagged Display P3 and Adobe RGB, made
// here from an sRGB original (its pixels converted into that space by lcms2,
// the profile embedded), must come back within ΔE2000 2 of the original;
// untagged and sRGB-tagged photos must come out untouched.
//
// Display P3 is the profile arrow.heic carries (read from the file at test
// time); Adobe RGB is Debian's icc-profiles-free `compatibleWithAdobeRGB1998`
// where installed, else built here from its published primaries and gamma.

private let patches: [[UInt8]] = [
    [230, 30, 30], [223, 121, 78], [30, 200, 60], [40, 60, 220], [128, 128, 128], [250, 240, 10],
    [20, 20, 20], [240, 240, 240],
]
private let patchSize = 8

/// The original: one 8x8 patch of each colour in a row.
private func original() -> [UInt8] {
    var pixels = [UInt8]()
    for _ in 0..<patchSize {
        for patch in patches { for _ in 0..<patchSize { pixels += patch } }
    }
    return pixels
}
private let width = patches.count * patchSize, height = patchSize

// MARK: - Profiles

// Not private: TIFFTests embed paleCMYK in a TIFF.
enum Profiles {
    static let displayP3: [UInt8]? = {
        guard let folder = TestData.folder("heif/pillow-heif"),
              let data = try? [UInt8](Data(contentsOf: folder.appendingPathComponent("arrow.heic"))) else { return nil }
        // The colr box: size, "colr", "prof", then the ICC profile.
        let marker: [UInt8] = Array("colrprof".utf8)
        guard let at = (4..<data.count - 8).first(where: { Array(data[$0..<$0 + 8]) == marker }) else { return nil }
        let size = data[at - 4..<at].reduce(0) { $0 << 8 | Int($1) }
        return Array(data[at + 8..<at - 4 + size])
    }()

    static let adobeRGB: [UInt8] = {
        if let data = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc"))) {
            return data
        }
        // Adobe RGB (1998): D65, gamma 563/256, its primaries.
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: 0.64, y: 0.33, Y: 1), Green: cmsCIExyY(x: 0.21, y: 0.71, Y: 1),
                                        Blue: cmsCIExyY(x: 0.15, y: 0.06, Y: 1))
        let curve = cmsBuildGamma(nil, 563.0 / 256.0)
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        let profile = cmsCreateRGBProfile(&white, &primaries, &curves)
        defer { cmsCloseProfile(profile) }
        return save(profile)
    }()

    static let sRGB: [UInt8] = {
        let profile = cmsCreate_sRGBProfile()
        defer { cmsCloseProfile(profile) }
        return save(profile)
    }()

    static func save(_ profile: cmsHPROFILE?) -> [UInt8] {
        var size: cmsUInt32Number = 0
        cmsSaveProfileToMem(profile, nil, &size)
        var bytes = [UInt8](repeating: 0, count: Int(size))
        cmsSaveProfileToMem(profile, &bytes, &size)
        return bytes
    }

    /// A CMYK output profile whose device-to-Lab table prints RGB = 0.2 +
    /// 0.8 x (1 - ink) x (1 - K), in sRGB.
    static func paleCMYK() -> [UInt8] {
        let profile = cmsCreateProfilePlaceholder(nil)
        defer { cmsCloseProfile(profile) }
        cmsSetProfileVersion(profile, 4.3)
        cmsSetDeviceClass(profile, cmsSigOutputClass)
        cmsSetColorSpace(profile, cmsSigCmykData)
        cmsSetPCS(profile, cmsSigLabData)
        let srgb = cmsCreate_sRGBProfile(), lab = cmsCreateLab4Profile(nil)
        defer { cmsCloseProfile(srgb); cmsCloseProfile(lab) }
        let rgbDouble: cmsUInt32Number = (1 << 22) | (4 << 16) | (3 << 3)   // TYPE_RGB_DBL
        let labDouble: cmsUInt32Number = (1 << 22) | (10 << 16) | (3 << 3)  // TYPE_Lab_DBL
        let toLab = cmsCreateTransform(srgb, rgbDouble, lab, labDouble, cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC), 0)
        defer { cmsDeleteTransform(toLab) }
        let pipeline = cmsPipelineAlloc(nil, 4, 3)
        defer { cmsPipelineFree(pipeline) }
        let stage = cmsStageAllocCLut16bit(nil, 9, 4, 3, nil)
        _ = cmsStageSampleCLut16bit(stage, { input, output, cargo in
            guard let input, let output, let cargo else { return 0 }
            let k = Double(input[3]) / 65535
            var rgb = (0..<3).map { 0.2 + 0.8 * (1 - Double(input[$0]) / 65535) * (1 - k) }
            var lab = cmsCIELab()
            cmsDoTransform(cargo, &rgb, &lab, 1)
            var encoded = [cmsUInt16Number](repeating: 0, count: 3)
            cmsFloat2LabEncoded(&encoded, &lab)
            for i in 0..<3 { output[i] = encoded[i] }
            return 1
        }, toLab, 0)
        // lutAtoBType wants curves around the table: identity ones.
        _ = cmsPipelineInsertStage(pipeline, cmsAT_BEGIN, cmsStageAllocToneCurves(nil, 4, nil))
        _ = cmsPipelineInsertStage(pipeline, cmsAT_END, stage)
        _ = cmsPipelineInsertStage(pipeline, cmsAT_END, cmsStageAllocToneCurves(nil, 3, nil))
        _ = cmsWriteTag(profile, cmsSigAToB0Tag, UnsafeRawPointer(pipeline))
        return save(profile)
    }

    /// sRGB pixels converted into `profile`'s space (relative colorimetric).
    static func convert(_ pixels: [UInt8], into profile: [UInt8]) -> [UInt8] {
        let srgb = cmsCreate_sRGBProfile()
        let target = profile.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }
        defer { cmsCloseProfile(srgb); cmsCloseProfile(target) }
        let rgb8: cmsUInt32Number = (4 << 16) | (3 << 3) | 1  // TYPE_RGB_8
        let transform = cmsCreateTransform(srgb, rgb8, target, rgb8, cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC), 0)
        defer { cmsDeleteTransform(transform) }
        var out = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { cmsDoTransform(transform, input.baseAddress, $0.baseAddress, cmsUInt32Number(pixels.count / 3)) }
        }
        return out
    }
}

// MARK: - Tagged files

/// A JPEG (quality 100) of `pixels` with `profile` in an APP2 ICC_PROFILE
/// marker right after SOI, as cameras write it.
private func taggedJPEG(_ pixels: [UInt8], profile: [UInt8]?) throws -> Data {
    var jpeg = [UInt8](try PNGTestSupport.encodeJPEG(pixels, width: width, height: height, quality: 100))
    if let profile {
        let payload = Array("ICC_PROFILE".utf8) + [0, 1, 1] + profile
        let length = payload.count + 2
        jpeg.insert(contentsOf: [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload, at: 2)
    }
    return Data(jpeg)
}

/// A PNG of `pixels` with `profile` in an iCCP chunk before IDAT.
private func taggedPNG(_ pixels: [UInt8], profile: [UInt8]?) throws -> Data {
    var png = [UInt8](try PNGTestSupport.encodePNG(pixels, width: width, height: height, channels: 3))
    if let profile {
        // iCCP: a name, a NUL, compression method 0, the zlib stream.
        let chunk = PNGFile.chunk("iCCP", Array("icc".utf8) + [0, 0] + PNGFile.zlibStored(profile))
        png.insert(contentsOf: chunk, at: 33)  // after the signature (8) and IHDR (25)
    }
    return Data(png)
}

// MARK: - ΔE2000

private func lab(_ rgb: ArraySlice<UInt8>) -> (Double, Double, Double) {
    func linear(_ v: UInt8) -> Double {
        let c = Double(v) / 255
        return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }
    let r = linear(rgb[rgb.startIndex]), g = linear(rgb[rgb.startIndex + 1]), b = linear(rgb[rgb.startIndex + 2])
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
    return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
}

/// CIEDE2000 (Sharma, Wu and Dalal's formulation).
func deltaE2000(_ p: ArraySlice<UInt8>, _ q: ArraySlice<UInt8>) -> Double {
    let (l1, a1, b1) = lab(p), (l2, a2, b2) = lab(q)
    let c1 = hypot(a1, b1), c2 = hypot(a2, b2), cBar = (c1 + c2) / 2
    let g = 0.5 * (1 - sqrt(pow(cBar, 7) / (pow(cBar, 7) + pow(25, 7))))
    let a1p = (1 + g) * a1, a2p = (1 + g) * a2
    let c1p = hypot(a1p, b1), c2p = hypot(a2p, b2)
    func hue(_ b: Double, _ a: Double) -> Double {
        if a == 0 && b == 0 { return 0 }
        let h = atan2(b, a) * 180 / .pi
        return h < 0 ? h + 360 : h
    }
    let h1p = hue(b1, a1p), h2p = hue(b2, a2p)
    let dLp = l2 - l1, dCp = c2p - c1p
    var dhp = 0.0
    if c1p * c2p != 0 {
        dhp = h2p - h1p
        if dhp > 180 { dhp -= 360 } else if dhp < -180 { dhp += 360 }
    }
    let dHp = 2 * sqrt(c1p * c2p) * sin(dhp / 2 * .pi / 180)
    let lBarp = (l1 + l2) / 2, cBarp = (c1p + c2p) / 2
    var hBarp = h1p + h2p
    if c1p * c2p != 0 {
        if abs(h1p - h2p) > 180 { hBarp += hBarp < 360 ? 360 : -360 }
        hBarp /= 2
    }
    let t = 1 - 0.17 * cos((hBarp - 30) * .pi / 180) + 0.24 * cos(2 * hBarp * .pi / 180)
        + 0.32 * cos((3 * hBarp + 6) * .pi / 180) - 0.20 * cos((4 * hBarp - 63) * .pi / 180)
    let dTheta = 30 * exp(-pow((hBarp - 275) / 25, 2))
    let rc = 2 * sqrt(pow(cBarp, 7) / (pow(cBarp, 7) + pow(25, 7)))
    let sl = 1 + 0.015 * pow(lBarp - 50, 2) / sqrt(20 + pow(lBarp - 50, 2))
    let sc = 1 + 0.045 * cBarp, sh = 1 + 0.015 * cBarp * t
    let rt = -sin(2 * dTheta * .pi / 180) * rc
    return sqrt(pow(dLp / sl, 2) + pow(dCp / sc, 2) + pow(dHp / sh, 2) + rt * (dCp / sc) * (dHp / sh))
}

// MARK: - Drawing

/// The file drawn into a cell of its own size (the resampler copies pixels
/// one to one), RGB.
private func drawn(_ file: Data, name: String, width: Int = width, height: Int = height) throws -> [UInt8] {
    let folder = try PNGTestSupport.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent(name).path
    try file.write(to: URL(fileURLWithPath: path))
    return try drawCell(path, width: width, height: height)
}

private func drawFile(_ path: String) throws -> [UInt8] {
    try drawCell(path, width: width, height: height)
}

/// The largest ΔE2000 over the patches' centres.
private func worstDeltaE(_ a: [UInt8], _ b: [UInt8]) -> Double {
    var worst = 0.0
    for k in 0..<patches.count {
        let at = ((patchSize / 2) * width + k * patchSize + patchSize / 2) * 3
        worst = max(worst, deltaE2000(a[at..<at + 3], b[at..<at + 3]))
    }
    return worst
}

@Suite("Colours to sRGB (lcms2)")
struct ColourTests {
    enum Space: String, CaseIterable { case displayP3 = "Display P3", adobeRGB = "Adobe RGB" }
    enum Container: String, CaseIterable { case jpeg, png, webp, jxl }

    /// The pixels, tagged with `profile`, in the container: WebP is made by
    /// Debian's cwebp (lossless) from the tagged PNG, keeping its profile as
    /// an ICCP chunk; JPEG XL by cjxl (lossless), which keeps the profile or
    /// writes the colour space it names (libjxl's own encoding).
    func file(_ container: Container, _ pixels: [UInt8], profile: [UInt8]?) throws -> Data {
        switch container {
        case .jpeg: return try taggedJPEG(pixels, profile: profile)
        case .png: return try taggedPNG(pixels, profile: profile)
        case .jxl:
            let folder = try PNGTestSupport.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let png = folder.appendingPathComponent("in.png"), jxl = folder.appendingPathComponent("out.jxl")
            try taggedPNG(pixels, profile: profile).write(to: png)
            try FormatFixtures.tool("cjxl", [png.path, jxl.path, "-d", "0", "--quiet"])
            return try Data(contentsOf: jxl)
        case .webp:
            let folder = try PNGTestSupport.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let png = folder.appendingPathComponent("in.png"), webp = folder.appendingPathComponent("out.webp")
            try taggedPNG(pixels, profile: profile).write(to: png)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/cwebp")
            process.arguments = ["-quiet", "-lossless", "-metadata", "icc", png.path, "-o", webp.path]
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0, "cwebp (Debian webp) failed or is missing")
            return try Data(contentsOf: webp)
        }
    }

    func profile(_ space: Space) -> [UInt8]? {
        space == .displayP3 ? Profiles.displayP3 : Profiles.adobeRGB
    }

    @Test("A tagged photo lands within ΔE2000 2 of its sRGB original; ignoring the tag does not",
          arguments: Space.allCases, Container.allCases)
    func taggedPhotosComeBackToSRGB(space: Space, container: Container) throws {
        guard let profile = profile(space) else { return TestData.reportAbsent("heif/pillow-heif/arrow.heic") }
        let source = original()
        let converted = Profiles.convert(source, into: profile)
        let result = try drawn(try file(container, converted, profile: profile), name: "tagged.\(container.rawValue)")
        let worst = worstDeltaE(result, source)
        #expect(worst <= 2, "\(space) \(container): ΔE2000 up to \(worst)")
        // The same pixels without the profile are far off: the test sees the tag.
        let untagged = try file(container, converted, profile: nil)
        #expect(worstDeltaE(try drawn(untagged, name: "untagged.\(container.rawValue)"), source) > 3)
    }

    @Test("The issue's Display P3 red: (230,30,30) in sRGB comes out (230,30,30), not (212,55,46)")
    func displayP3Red() throws {
        guard let profile = Profiles.displayP3 else { return TestData.reportAbsent("heif/pillow-heif/arrow.heic") }
        let converted = Profiles.convert(original(), into: profile)
        #expect(abs(Int(converted[0]) - 212) <= 2 && abs(Int(converted[1]) - 55) <= 2)  // what a viewer ignoring it shows
        let result = try drawn(try taggedPNG(converted, profile: profile), name: "red.png")
        #expect(abs(Int(result[0]) - 230) <= 1 && abs(Int(result[1]) - 30) <= 1 && abs(Int(result[2]) - 30) <= 1,
                "\(result[0...2])")
    }

    @Test("Untagged, sRGB-tagged and wrongly tagged photos come out byte for byte alike",
          arguments: Container.allCases)
    func sRGBAndBrokenProfilesChangeNothing(container: Container) throws {
        let source = original()
        func make(_ profile: [UInt8]?) throws -> Data { try file(container, source, profile: profile) }
        let plain = try drawn(try make(nil), name: "plain.\(container.rawValue)")
        #expect(try drawn(try make(Profiles.sRGB), name: "srgb.\(container.rawValue)") == plain)
        // A profile lcms2 cannot read is ignored, as browsers do.
        var broken = Profiles.sRGB
        for i in stride(from: 40, to: broken.count, by: 7) { broken[i] ^= 0x5A }
        #expect(try drawn(try make(broken), name: "broken.\(container.rawValue)") == plain)
    }

    @Test("An AVIF tagged by an ICC profile (Display P3, Adobe RGB) or by nclx code points (Display P3) lands within ΔE2000 2",
          arguments: [(Space.displayP3, "icc"), (Space.adobeRGB, "icc"), (Space.displayP3, "nclx")])
    func taggedAVIF(space: Space, tagging: String) throws {
        guard let profile = profile(space) else { return TestData.reportAbsent("heif/pillow-heif/arrow.heic") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/heif-enc") else {
            Issue.record("heif-enc (Debian libheif-examples) is missing: make test installs it")
            return
        }
        let source = original()
        let converted = Profiles.convert(source, into: profile)
        let folder = try PNGTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("p3.png"), avif = folder.appendingPathComponent("p3.avif")
        try taggedPNG(converted, profile: tagging == "icc" ? profile : nil).write(to: png)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/heif-enc")
        // Lossless keeps the test about colour, not compression.
        process.arguments = ["-A", "-L", "-o", avif.path, png.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        if tagging == "nclx" {
            // heif-enc 1.15 writes an nclx box (unspecified primaries and
            // transfer) and ignores its own --colour_primaries for PNG input:
            // the box is set to Display P3 primaries (12), sRGB transfer (13).
            var bytes = [UInt8](try Data(contentsOf: avif))
            let marker: [UInt8] = Array("colrnclx".utf8)
            let at = try #require((0..<bytes.count - 16).first { Array(bytes[$0..<$0 + 8]) == marker })
            bytes[at + 8] = 0; bytes[at + 9] = 12
            bytes[at + 10] = 0; bytes[at + 11] = 13
            try Data(bytes).write(to: avif)
        }
        let result = try drawFile(avif.path)
        let worst = worstDeltaE(result, source)
        #expect(worst <= 2, "AVIF, \(space) by \(tagging): ΔE2000 up to \(worst)")
        if tagging == "nclx" {
            // HLG (18) with BT.2020 primaries (9): brought to SDR, mid-grey
            // stays a mid grey (not black, not clipped).
            var bytes = [UInt8](try Data(contentsOf: avif))
            let marker: [UInt8] = Array("colrnclx".utf8)
            let at = try #require((0..<bytes.count - 16).first { Array(bytes[$0..<$0 + 8]) == marker })
            bytes[at + 9] = 9
            bytes[at + 11] = 18
            try Data(bytes).write(to: avif)
            let hlg = try drawFile(avif.path)
            let grey = patches.firstIndex(of: [128, 128, 128])!
            let centre = ((patchSize / 2) * width + grey * patchSize + patchSize / 2) * 3
            let shown = hlg[centre..<centre + 3].map(Int.init)
            #expect(shown.allSatisfy { $0 > 60 && $0 < 220 } && shown.max()! - shown.min()! <= 3, "HLG grey: \(shown)")
        }
    }

    @Test("A CMYK JPEG with a profile goes through it (Adobe's inverted samples included); without one, the naive conversion")
    func cmykThroughItsProfile() throws {
        // cmyk-adobe.jpg: quadrants of pure cyan, magenta, yellow inks and 50% K,
        // inverted as Photoshop writes them. The profile built here prints
        // paler than the naive formula: RGB = 0.2 + 0.8 x naive (so cyan is
        // (51,255,255), not (0,255,255)).
        let fixture = TestData.packageRoot.appendingPathComponent("Tests/Fixtures/jpeg/cmyk-adobe.jpg")
        var jpeg = [UInt8](try Data(contentsOf: fixture))
        let plain = try drawn(Data(jpeg), name: "plain.jpg", width: 32, height: 32)
        #expect(Array(plain[(8 * 32 + 8) * 3..<(8 * 32 + 8) * 3 + 3]).map(Int.init) .elementsEqual([0, 255, 255]) { abs($0 - $1) <= 3 })
        let profile = Profiles.paleCMYK()
        let payload = Array("ICC_PROFILE".utf8) + [0, 1, 1] + profile
        jpeg.insert(contentsOf: [0xFF, 0xE2, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload, at: 2)
        let result = try drawn(Data(jpeg), name: "profiled.jpg", width: 32, height: 32)
        func quadrant(_ x: Int, _ y: Int) -> [Int] { Array(result[(y * 32 + x) * 3..<(y * 32 + x) * 3 + 3]).map(Int.init) }
        for (at, expected) in [((8, 8), [51, 255, 255]), ((24, 8), [255, 51, 255]), ((8, 24), [255, 255, 51]),
                               ((24, 24), [153, 153, 153])] {
            let got = quadrant(at.0, at.1)
            #expect(zip(got, expected).allSatisfy { abs($0 - $1) <= 4 }, "\(at): \(got), expected \(expected)")
        }
    }

    @Test("HDR (PQ) is brought to SDR: bright and dark parts, few clipped pixels")
    func pqIsToneMapped() throws {
        guard let folder = TestData.folder("heif/libavif") else { return TestData.reportAbsent("heif/libavif") }
        let path = folder.appendingPathComponent("cosmos1650_yuv444_10bpc_p3pq.avif").path
        func decode(keepColours: Bool) throws -> [UInt8] {
            var options = ci_decode_options()
            options.keep_colours = keepColours ? 1 : 0
            var image = ci_image()
            var error = ci_error()
            try #require(ci_decode_file(path, &options, &image, &error) == CI_OK)
            defer { ci_image_free(&image) }
            return PNGTestSupport.pixels(of: image)
        }
        let coded = try decode(keepColours: true), shown = try decode(keepColours: false)
        #expect(coded != shown, "the PQ photo was not converted")
        let mean = Double(shown.reduce(0) { $0 + Int($1) }) / Double(shown.count)
        let clipped = Double(shown.filter { $0 == 255 }.count) / Double(shown.count)
        // PQ code values shown as they are look dim and flat (a mean near the
        // code values' own); tone-mapped, mid-tones sit near reference white's.
        #expect(mean > 40 && mean < 200, "mean \(mean)")
        #expect(clipped < 0.05, "clipped \(clipped)")
    }
}
