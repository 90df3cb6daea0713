import CollageImaging
import CollageTestSupport
import Testing

@Test func refusesBytesThatAreNeitherJPEGNorPNG() {
    var image = ci_image()
    var error = ci_error()
    var options = ci_decode_options()
    let bytes: [UInt8] = Array("hello, not an image".utf8)
    let status = ci_decode_memory(bytes, bytes.count, "hello.txt", &options, &image, &error)
    #expect(status == CI_ERR_NOT_IMAGE)
    let message = withUnsafeBytes(of: error.message) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
    #expect(message == "hello.txt: \(EngineWording.notAnImage)")
}
