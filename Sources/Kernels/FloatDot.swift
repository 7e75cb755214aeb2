/// Dot products of float rows with F32 activations.
enum FloatDot {
    static func f32(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, _ n: Int) -> Float {
        var a0 = SIMD8<Float>(), a1 = SIMD8<Float>()
        let xv = UnsafeRawPointer(x)
        var i = 0
        while i + 16 <= n {
            a0.addProduct(w.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self), xv.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self))
            a1.addProduct(w.loadUnaligned(fromByteOffset: 4 * i + 32, as: SIMD8<Float>.self), xv.loadUnaligned(fromByteOffset: 4 * i + 32, as: SIMD8<Float>.self))
            i += 16
        }
        var tail: Float = 0
        while i < n { tail += w.loadUnaligned(fromByteOffset: 4 * i, as: Float.self) * x[i]; i += 1 }
        return (a0 + a1).sum() + tail
    }

    static func f16(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, _ n: Int) -> Float {
        var a0 = SIMD8<Float>(), a1 = SIMD8<Float>()
        let xv = UnsafeRawPointer(x)
        var i = 0
        while i + 16 <= n {
            a0.addProduct(widenHalves(w.loadUnaligned(fromByteOffset: 2 * i, as: SIMD8<Float16>.self)), xv.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self))
            a1.addProduct(widenHalves(w.loadUnaligned(fromByteOffset: 2 * i + 16, as: SIMD8<Float16>.self)), xv.loadUnaligned(fromByteOffset: 4 * i + 32, as: SIMD8<Float>.self))
            i += 16
        }
        var tail: Float = 0
        while i < n { tail += loadHalf(w, 2 * i) * x[i]; i += 1 }
        return (a0 + a1).sum() + tail
    }

    static func bf16(_ w: UnsafeRawPointer, _ x: UnsafePointer<Float>, _ n: Int) -> Float {
        var a0 = SIMD8<Float>()
        let xv = UnsafeRawPointer(x)
        var i = 0
        while i + 8 <= n {
            let bits = SIMD8<UInt32>(truncatingIfNeeded: w.loadUnaligned(fromByteOffset: 2 * i, as: SIMD8<UInt16>.self)) &<< 16
            a0.addProduct(unsafeBitCast(bits, to: SIMD8<Float>.self), xv.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self))
            i += 8
        }
        var tail: Float = 0
        while i < n { tail += bf16ToFloat(w.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)) * x[i]; i += 1 }
        return a0.sum() + tail
    }
}
