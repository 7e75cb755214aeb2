import Foundation

// F32 vector helpers for the parts of the forward pass that are not matrix
// products: norms, RoPE, attention, activations.

@inline(__always)
func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ count: Int) -> Float {
    var sum0 = SIMD8<Float>()
    var sum1 = SIMD8<Float>()
    var i = 0
    let rawA = UnsafeRawPointer(a), rawB = UnsafeRawPointer(b)
    while i + 16 <= count {
        sum0 += rawA.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self)
            * rawB.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self)
        sum1 += rawA.loadUnaligned(fromByteOffset: 4 * i + 32, as: SIMD8<Float>.self)
            * rawB.loadUnaligned(fromByteOffset: 4 * i + 32, as: SIMD8<Float>.self)
        i += 16
    }
    var sum = (sum0 + sum1).sum()
    while i < count {
        sum += a[i] * b[i]
        i += 1
    }
    return sum
}

/// y += alpha * x
@inline(__always)
func axpy(_ alpha: Float, _ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ count: Int) {
    var i = 0
    let rawX = UnsafeRawPointer(x), rawY = UnsafeMutableRawPointer(y)
    let scale = SIMD8<Float>(repeating: alpha)
    while i + 8 <= count {
        let value = rawY.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self)
            + scale * rawX.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self)
        rawY.storeBytes(of: value, toByteOffset: 4 * i, as: SIMD8<Float>.self)
        i += 8
    }
    while i < count {
        y[i] += alpha * x[i]
        i += 1
    }
}

/// output = x / rms(x) * weight  (output may alias x)
@inline(__always)
func rmsNorm(_ x: UnsafePointer<Float>, weight: UnsafePointer<Float>, epsilon: Float, count: Int, output: UnsafeMutablePointer<Float>) {
    let meanSquare = dot(x, x, count) / Float(count)
    let scale = 1 / (meanSquare + epsilon).squareRoot()
    for i in 0..<count { output[i] = x[i] * scale * weight[i] }
}

@inline(__always) func silu(_ x: Float) -> Float { x / (1 + expf(-x)) }

@inline(__always) func geluTanh(_ x: Float) -> Float {
    let sqrtTwoOverPi: Float = 0.797_884_560_802_865_4
    return 0.5 * x * (1 + tanhf(sqrtTwoOverPi * x * (1 + 0.044715 * x * x)))
}

/// In-place softmax over `count` values.
@inline(__always)
func softmax(_ values: UnsafeMutablePointer<Float>, _ count: Int) {
    var maximum = -Float.infinity
    for i in 0..<count where values[i] > maximum { maximum = values[i] }
    var sum: Float = 0
    for i in 0..<count {
        let e = expf(values[i] - maximum)
        values[i] = e
        sum += e
    }
    let inverse = 1 / sum
    for i in 0..<count { values[i] *= inverse }
}
