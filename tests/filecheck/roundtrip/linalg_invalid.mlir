// tj.linalg verifiers: each case below is one broken variant of the op.
// RUN: tracejit-opt %s --split-input-file --verify-diagnostics

func.func @unknown_kind(%a: tensor<3x3xf64>) {
  // expected-error @+1 {{unknown tj.linalg kind 'qr'}}
  %q, %ok = tj.linalg "qr" %a : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<i1>)
  func.return
}

// -----

func.func @not_square(%a: tensor<3x2xf64>) {
  // expected-error @+1 {{tj.linalg expects square matrices, got tensor<3x2xf64>}}
  %x, %ok = tj.linalg "inv" %a : (tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<i1>)
  func.return
}

// -----

func.func @a_vector(%a: tensor<3xf64>) {
  // expected-error @+1 {{tj.linalg expects a stack of square matrices, got tensor<3xf64>}}
  %x, %ok = tj.linalg "inv" %a : (tensor<3xf64>) -> (tensor<3xf64>, tensor<i1>)
  func.return
}

// -----

func.func @no_lapack_type(%a: tensor<2x2xf16>) {
  // expected-error @+1 {{tj.linalg: no LAPACK routine for f16}}
  %x, %ok = tj.linalg "inv" %a : (tensor<2x2xf16>) -> (tensor<2x2xf16>, tensor<i1>)
  func.return
}

// -----

func.func @operand_count(%a: tensor<2x2xf64>) {
  // expected-error @+1 {{tj.linalg solve takes 2 operands}}
  %x, %ok = tj.linalg "solve" %a : (tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<i1>)
  func.return
}

// -----

func.func @batch_mismatch(%a: tensor<2x3x3xf64>, %b: tensor<3x3x1xf64>) {
  // expected-error @+1 {{tj.linalg solve: shapes tensor<2x3x3xf64> and tensor<3x3x1xf64> do not match}}
  %x, %ok = tj.linalg "solve" %a, %b : (tensor<2x3x3xf64>, tensor<3x3x1xf64>) -> (tensor<3x3x1xf64>, tensor<i1>)
  func.return
}

// -----

func.func @wrong_result(%a: tensor<2x2xf64>) {
  // expected-error @+1 {{tj.linalg slogdet results must be (tensor<f64>, tensor<f64>)}}
  %s, %d = tj.linalg "slogdet" %a : (tensor<2x2xf64>) -> (tensor<f64>, tensor<f32>)
  func.return
}
