// Errors are `file:line:col: error: message`, then the offending op; exit status 1 and no
// Python traceback. With --split-input-file each case below is a module of its own, every
// case's error is reported and the line numbers are the file's; --verify-diagnostics checks
// the same errors against the expected-error comments.
// RUN: not tracejit-opt %s --split-input-file 2>&1 | filecheck %s -DFILE=%s
// RUN: tracejit-opt %s --split-input-file --verify-diagnostics
// RUN: not tracejit-opt %s --split-input-file -p "cse{nosuch=1}" 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not tracejit-opt %s --split-input-file -p cse,nosuch 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not tracejit-opt %s --bogus-flag 2>&1 | filecheck %s --check-prefix=FLAG
// RUN: not tracejit-opt %s.missing 2>&1 | filecheck %s --check-prefix=MISSING

func.func @undefined_value(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{use of undefined value %undefined}}
  %r = tj.mul %x, %undefined : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
// CHECK:      [[FILE]]:[[# @LINE - 3]]:19: error: use of undefined value %undefined
// CHECK-NEXT:   %r = tj.mul %x, %undefined : tensor<4xf32>
// CHECK-NEXT:                   ^^^^^^^^^^
// CHECK-NOT:  Traceback

// -----

func.func @operand_types(%x: tensor<4xf32>, %y: tensor<3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand 'rhs' at position 1 does not verify}}
  %r = "tj.mul"(%x, %y) : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
// CHECK:      [[FILE]]:[[# @LINE - 3]]:3: error: 'tj.mul' op operand 'rhs' at position 1 does not verify:
// CHECK-NEXT: attribute tensor<4xf32> expected from variable 'T', but got tensor<3xf32>
// CHECK-NEXT:   %r = tj.mul %x, %y : tensor<4xf32>
// CHECK-NOT:  Traceback

// OPTION: tracejit-opt: error: -p: {{.*}}nosuch
// PASS:   tracejit-opt: error: -p: unknown pass 'nosuch'; known passes: {{.*}}cse
// FLAG:   tracejit-opt: error: unrecognized arguments: --bogus-flag
// MISSING: diagnostics.mlir.missing: error: {{.*}}No such file
