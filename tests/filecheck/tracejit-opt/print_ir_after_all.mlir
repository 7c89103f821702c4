// --print-ir-after-all dumps the module after every pass, headed like mlir-opt, to stderr;
// stdout gets the final module alone, as mlir-opt's does.
// RUN: tracejit-opt %s -p canonicalize,bufferize --print-ir-after-all 2>&1 | filecheck %s
// RUN: tracejit-opt %s -p canonicalize,bufferize --print-ir-after-all 2>/dev/null | filecheck %s --check-prefix=STDOUT

builtin.module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %one = tj.constant dense<1.0> : tensor<4xf32>
    %two = tj.add %one, %one : tensor<4xf32>
    %r = tj.mul %x, %two : tensor<4xf32>
    func.return %r : tensor<4xf32>
  }
}

// canonicalize folds 1 + 1 with NumPy:
// CHECK:      // ----- IR after canonicalize -----
// CHECK:        %{{.*}} = tj.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = tj.mul %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK:      // ----- IR after bufferize -----
// CHECK:        func.func @f(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) {
// The final module is printed once more at the end (on stdout):
// CHECK:      func.func @f(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) {

// STDOUT-NOT:  IR after
// STDOUT:      builtin.module {
// STDOUT-NEXT:   func.func @f(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) {
// STDOUT-NOT:  IR after
