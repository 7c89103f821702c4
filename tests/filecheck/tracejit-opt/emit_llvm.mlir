// --emit llvm lowers through the default pipeline and prints LLVM's optimised IR;
// the element-wise loop is vectorised for the host CPU.
// RUN: tracejit-opt %s --emit llvm | filecheck %s
// RUN: tracejit-opt %s --emit asm | filecheck %s --check-prefix=ASM
// RUN: tracejit-opt %s --emit loops | filecheck %s --check-prefix=LOOPS

builtin.module {
  func.func @scale(%x: tensor<1024xf32>) -> tensor<1024xf32> {
    %c = tj.constant dense<3.0> : tensor<1024xf32>
    %r = tj.mul %x, %c : tensor<1024xf32>
    func.return %r : tensor<1024xf32>
  }
}

// CHECK: define {{.*}}i32 @scale(ptr
// CHECK: fmul <{{(8|16)}} x float>

// ASM: scale:
// ASM: vmulps {{.*}}%{{[yz]}}mm

// LOOPS: scf.for
// LOOPS: memref.load
// LOOPS: arith.mulf
// LOOPS: memref.store
