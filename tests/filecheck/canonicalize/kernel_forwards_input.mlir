// canonicalize: a tj.fused result that the body yields as a block argument is the kernel's
// input (here after the chain computing it folded away: a kernel that ran before
// canonicalize, as some pass orders do). A kernel yielding nothing else goes; one that also
// computes a result keeps only that one. bufferize could not store the forwarded results
// (found by the fuzzer: tests/fuzz/regressions/test_fuzz_e1a122de76.py).
// RUN: tracejit-opt %s -p canonicalize | filecheck %s

builtin.module {
  func.func @f(%x: tensor<f16>, %y: tensor<4xf32>) -> (tensor<f16>, tensor<4xf32>, tensor<4xf32>) {
    %r = tj.fused %x : (tensor<f16>) -> tensor<f16> {
    ^bb0(%a: tensor<f16>):
      tj.yield %a : tensor<f16>
    }
    %s, %t = tj.fused %y : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    ^bb0(%b: tensor<4xf32>):
      %e = tj.exp %b : tensor<4xf32>
      tj.yield %b, %e : tensor<4xf32>, tensor<4xf32>
    }
    func.return %r, %s, %t : tensor<f16>, tensor<4xf32>, tensor<4xf32>
  }
}

// CHECK:      func.func @f(%[[X:.*]]: tensor<f16>, %[[Y:.*]]: tensor<4xf32>)
// CHECK-NEXT:   %[[T:.*]] = tj.fused %[[Y]] : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:   ^{{.*}}(%[[B:.*]]: tensor<4xf32>):
// CHECK-NEXT:     %[[E:.*]] = tj.exp %[[B]] : tensor<4xf32>
// CHECK-NEXT:     tj.yield %[[E]] : tensor<4xf32>
// CHECK-NEXT:   }
// CHECK-NEXT:   func.return %[[X]], %[[Y]], %[[T]] : tensor<f16>, tensor<4xf32>, tensor<4xf32>
