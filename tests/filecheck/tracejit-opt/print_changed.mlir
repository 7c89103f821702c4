// --print-changed prints only the passes that changed the IR; =diff as a unified diff.
// RUN: tracejit-opt %s -p dce,cse,canonicalize --print-changed 2>&1 | filecheck %s
// RUN: tracejit-opt %s -p dce,cse,canonicalize --print-changed=diff 2>&1 | filecheck %s --check-prefix=DIFF

builtin.module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tj.add %x, %x : tensor<4xf32>
    %b = tj.add %x, %x : tensor<4xf32>
    %r = tj.mul %a, %b : tensor<4xf32>
    func.return %r : tensor<4xf32>
  }
}

// Nothing is dead, so dce changes nothing; cse merges %b into %a; canonicalize has nothing
// left to do.
// CHECK-NOT:  IR after dce
// CHECK:      // ----- IR after cse -----
// CHECK-NEXT: builtin.module {
// CHECK:        %r = tj.mul %a, %a : tensor<4xf32>
// CHECK-NOT:  IR after canonicalize

// DIFF-NOT:  IR after dce
// DIFF:      // ----- IR after cse -----
// DIFF-NEXT: --- before cse
// DIFF-NEXT: +++ after cse
// DIFF-NEXT: @@ {{.*}} @@
// DIFF:      -    %b = tj.add %x, %x : tensor<4xf32>
// DIFF-NEXT: -    %r = tj.mul %a, %b : tensor<4xf32>
// DIFF-NEXT: +    %r = tj.mul %a, %a : tensor<4xf32>
// DIFF-NOT:  IR after canonicalize
