// Named pipelines, stdin ('-'), -o FILE, and the --emit ladder starting from the stage the
// input is at (here: a loops-level module lowered further to cf and to LLVM).
// RUN: tracejit-opt %s --pipeline tensor-opt --print-ir-after-all 2>&1 | filecheck %s --check-prefix=TENSOR
// RUN: cat %s | tracejit-opt - --pipeline lower -o %t.cf.mlir
// RUN: filecheck %s --check-prefix=LOWER < %t.cf.mlir
// RUN: tracejit-opt %s --emit loops | tracejit-opt - --emit cf --print-ir-after-all 2>&1 | filecheck %s --check-prefix=LADDER
// RUN: tracejit-opt %s --emit cf | tracejit-opt - --emit llvm | filecheck %s --check-prefix=LLVM

builtin.module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %r = tj.sub %x, %x : tensor<4xf32>
    func.return %r : tensor<4xf32>
  }
}

// TENSOR:     // ----- IR after inline -----
// TENSOR:     // ----- IR after canonicalize -----
// TENSOR:     // ----- IR after cse -----
// TENSOR-NOT: // ----- IR after
// TENSOR:     tj.sub

// LOWER:     func.func @f(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) -> i32 {
// LOWER:     arith.subf
// LOWER:     cf.br

// A loops-level input starts the ladder at the passes after lower-to-loops.
// LADDER-NOT: IR after bufferize
// LADDER:     // ----- IR after simplify-loops -----
// LADDER:     // ----- IR after scf-to-cf -----
// LADDER:     // ----- IR after lower-asserts -----
// LADDER:     func.func @f({{.*}}) -> i32 {

// LLVM: define {{.*}}i32 @f(ptr
