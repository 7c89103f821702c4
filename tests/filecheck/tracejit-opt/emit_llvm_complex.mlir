// A complex element is the LLVM struct {float, float} (NumPy's layout): codegen reads and
// writes it with extractvalue/insertvalue, LLVM splits the struct accesses into float
// accesses and vectorises the loop with interleaved (stride-2) loads and fused multiplies.
// RUN: tracejit-opt %s --emit llvm | filecheck %s
// RUN: tracejit-opt %s --emit loops | filecheck %s --check-prefix=LOOPS

builtin.module {
  func.func @mul(%x: tensor<1024xcomplex<f32>>, %y: tensor<1024xcomplex<f32>>) -> tensor<1024xcomplex<f32>> {
    %r = tj.mul %x, %y : tensor<1024xcomplex<f32>>
    func.return %r : tensor<1024xcomplex<f32>>
  }
}

// CHECK: define {{.*}}i32 @mul(ptr
// CHECK: load <{{(16|32)}} x float>
// CHECK: shufflevector <{{(16|32)}} x float> %{{.*}}, <{{(16|32)}} x float> poison, <{{(8|16)}} x i32> <i32 0, i32 2, i32 4
// CHECK: call <{{(8|16)}} x float> @llvm.fma.v{{(8|16)}}f32

// LOOPS: scf.for
// LOOPS: %[[Z:.*]] = memref.load %{{.*}} : memref<1024xcomplex<f32>>
// LOOPS: complex.re %[[Z]] : complex<f32>
// LOOPS: math.fma
// LOOPS: %[[P:.*]] = complex.create
// LOOPS: memref.store %[[P]], %{{.*}} : memref<1024xcomplex<f32>>
