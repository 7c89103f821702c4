// --print-ir-before-all, --print-ir-before=PASS and --print-ir-after=PASS[,PASS].
// RUN: tracejit-opt %s -p canonicalize,cse --print-ir-before-all 2>&1 | filecheck %s --check-prefix=ALL
// RUN: tracejit-opt %s -p canonicalize,cse --print-ir-before=cse 2>&1 | filecheck %s --check-prefix=ONE
// RUN: tracejit-opt %s -p canonicalize,cse,bufferize --print-ir-after=cse,bufferize 2>&1 | filecheck %s --check-prefix=AFTER
// RUN: not tracejit-opt %s -p cse --print-ir-after=nosuch 2>&1 | filecheck %s --check-prefix=BAD

builtin.module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %one = tj.constant dense<1.0> : tensor<4xf32>
    %a = tj.add %x, %one : tensor<4xf32>
    %b = tj.add %x, %one : tensor<4xf32>
    %r = tj.mul %a, %b : tensor<4xf32>
    func.return %r : tensor<4xf32>
  }
}

// ALL:      // ----- IR before canonicalize -----
// ALL:        %b = tj.add
// ALL:      // ----- IR before cse -----
// ALL:        %b = tj.add
// ALL-NOT:  // ----- IR after
// ALL:      %r = tj.mul %a, %a

// ONE-NOT:  // ----- IR before canonicalize -----
// ONE:      // ----- IR before cse -----
// ONE:        %r = tj.mul %a, %b
// ONE-NOT:  // -----

// AFTER-NOT: // ----- IR after canonicalize -----
// AFTER:     // ----- IR after cse -----
// AFTER:       %r = tj.mul %a, %a : tensor<4xf32>
// AFTER:     // ----- IR after bufferize -----
// AFTER:       linalg.generic

// BAD: tracejit-opt: error: --print-ir-after: unknown pass 'nosuch'
