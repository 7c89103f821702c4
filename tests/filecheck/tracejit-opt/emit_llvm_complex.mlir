// A complex element is the LLVM struct {double, double} (NumPy's layout): codegen reads and
// writes it with extractvalue/insertvalue, LLVM splits the struct accesses into float
// accesses and vectorises the loop with interleaved (stride-2) loads and fused multiplies.
// RUN: tracejit-opt %s --emit llvm | filecheck %s
// RUN: tracejit-opt %s --emit loops | filecheck %s --check-prefix=LOOPS

builtin.module {
  func.func @mul(%x: tensor<1024xcomplex<f64>>, %y: tensor<1024xcomplex<f64>>) -> tensor<1024xcomplex<f64>> {
    %r = tj.mul %x, %y : tensor<1024xcomplex<f64>>
    func.return %r : tensor<1024xcomplex<f64>>
  }
}

// CHECK: define {{.*}}i32 @mul(ptr
// CHECK: load <{{(8|16)}} x double>
// CHECK: shufflevector <{{(8|16)}} x double> %{{.*}}, <{{(8|16)}} x double> poison, <{{(4|8)}} x i32> <i32 0, i32 2, i32 4
// CHECK: call <{{(4|8)}} x double> @llvm.fma.v{{(4|8)}}f64

// LOOPS: scf.for
// LOOPS: %[[Z:.*]] = memref.load %{{.*}} : memref<1024xcomplex<f64>>
// LOOPS: complex.re %[[Z]] : complex<f64>
// LOOPS: math.fma
// LOOPS: %[[P:.*]] = complex.create
// LOOPS: memref.store %[[P]], %{{.*}} : memref<1024xcomplex<f64>>
