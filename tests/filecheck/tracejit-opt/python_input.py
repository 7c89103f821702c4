# tracejit-opt traces a Python function for a --signature; `-p ''` (no passes) prints its
# traced tj IR, and given no -p, --pipeline or --emit it lowers to cf like `--emit cf`.
# RUN: tracejit-opt %s:affine --signature "f32[2,3], f32[3,4], f32[4]" -p '' | filecheck %s
# RUN: tracejit-opt %s:affine --signature "f64[2,3], f64[3,4], f64[4]" | filecheck %s --check-prefix=CF
# RUN: tracejit-opt %s:affine --signature "f64[2,3], f64[3,4], f64[4]" --emit cf | filecheck %s --check-prefix=CF
# RUN: not tracejit-opt %s:affine --signature "f32[2,3], f32[5,4], f32[4]" 2>&1 | filecheck %s --check-prefix=BAD

# CHECK:      func.func @affine(%{{.*}}: tensor<2x3xf32>, %{{.*}}: tensor<3x4xf32>, %{{.*}}: tensor<4xf32>) -> tensor<2x4xf32> {
# CHECK-NEXT:   tj.matmul %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
# CHECK-NEXT:   tj.broadcast_in_dim %{{.*}}, dims = [1] : tensor<4xf32> to tensor<2x4xf32>
# CHECK-NEXT:   tj.add
# CHECK-NEXT:   func.return
# CF:  func.func @affine(%{{.*}}: memref<2x3xf64>, %{{.*}}: memref<3x4xf64>, %{{.*}}: memref<4xf64>, %{{.*}}: memref<2x4xf64>) -> i32 {
# CF:  cf.cond_br
# CF-NOT: scf.
# BAD: error: {{.*}}matmul: Input operand 1 has a mismatch in its core dimension 0
def affine(x, w, b):
    return x @ w + b
