// Errors are `file:line:col: error: message`, then the offending op; exit status 1 and no
// Python traceback. Each RUN line breaks the valid module below in one way.
// RUN: sed -e 's/%x, %c/%x, %undefined/' %s | not tracejit-opt - 2>&1 | filecheck %s --check-prefix=PARSE
// RUN: sed -e 's/%r = tj.mul %x, %c : tensor<4xf32>/%r = "tj.mul"(%x, %y) : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>/' %s > %t.mlir
// RUN: not tracejit-opt %t.mlir 2>&1 | filecheck %s --check-prefix=VERIFY -DFILE=%t.mlir
// RUN: not tracejit-opt %s -p "cse{nosuch=1}" 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not tracejit-opt %s -p cse,nosuch 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not tracejit-opt %s --bogus-flag 2>&1 | filecheck %s --check-prefix=FLAG
// RUN: not tracejit-opt %s.missing 2>&1 | filecheck %s --check-prefix=MISSING

builtin.module {
  func.func @f(%x: tensor<4xf32>, %y: tensor<3xf32>) -> tensor<4xf32> {
    %c = tj.constant dense<2.0> : tensor<4xf32>
    %r = tj.mul %x, %c : tensor<4xf32>
    func.return %r : tensor<4xf32>
  }
}

// PARSE:      <stdin>:14:21: error: use of undefined value %undefined
// PARSE-NEXT:     %r = tj.mul %x, %undefined : tensor<4xf32>
// PARSE-NEXT:                     ^^^^^^^^^^
// PARSE-NOT:  Traceback

// VERIFY:      [[FILE]]:14:5: error: 'tj.mul' op operand 'rhs' at position 1 does not verify:
// VERIFY-NEXT: attribute tensor<4xf32> expected from variable 'T', but got tensor<3xf32>
// VERIFY-NEXT:   %r = tj.mul %x, %y : tensor<4xf32>
// VERIFY-NOT:  Traceback

// OPTION: tracejit-opt: error: -p: {{.*}}nosuch
// PASS:   tracejit-opt: error: -p: unknown pass 'nosuch'; known passes: {{.*}}cse
// FLAG:   tracejit-opt: error: unrecognized arguments: --bogus-flag
// MISSING: diagnostics.mlir.missing: error: {{.*}}No such file
