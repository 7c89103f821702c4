// tj.linalg verifiers: each case below is one broken variant of the op.
// RUN: tracejit-opt %s --split-input-file --verify-diagnostics

func.func @unknown_kind(%a: tensor<3x3xf64>) {
  // expected-error @+1 {{unknown tj.linalg kind 'lu'}}
  %q, %ok = tj.linalg "lu" %a : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<i1>)
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

// -----

func.func @eigh_not_square(%a: tensor<3x2xf64>) {
  // expected-error @+1 {{tj.linalg expects square matrices, got tensor<3x2xf64>}}
  %w, %v, %ok = tj.linalg "eigh" %a : (tensor<3x2xf64>) -> (tensor<3xf64>, tensor<3x2xf64>, tensor<i1>)
  func.return
}

// -----

func.func @eigh_complex_values(%a: tensor<2x2xcomplex<f64>>) {
  // expected-error @+1 {{tj.linalg eigh results must be (tensor<2xf64>, tensor<2x2xcomplex<f64>>, tensor<i1>)}}
  %w, %v, %ok = tj.linalg "eigh" %a : (tensor<2x2xcomplex<f64>>) -> (tensor<2xcomplex<f64>>, tensor<2x2xcomplex<f64>>, tensor<i1>)
  func.return
}

// -----

func.func @svd_shapes(%a: tensor<4x2xf64>) {
  // expected-error @+1 {{tj.linalg svd results must be (tensor<4x2xf64>, tensor<2xf64>, tensor<2x2xf64>, tensor<i1>)}}
  %u, %s, %vh, %ok = tj.linalg "svd" %a : (tensor<4x2xf64>) -> (tensor<4x4xf64>, tensor<2xf64>, tensor<2x2xf64>, tensor<i1>)
  func.return
}

// -----

func.func @lstsq_batched(%a: tensor<2x4x2xf64>, %b: tensor<2x4x1xf64>, %rc: tensor<f64>) {
  // expected-error @+1 {{tj.linalg lstsq: a must be a matrix, got tensor<2x4x2xf64>}}
  %x, %res, %rank, %s, %ok = tj.linalg "lstsq" %a, %b, %rc : (tensor<2x4x2xf64>, tensor<2x4x1xf64>, tensor<f64>) -> (tensor<2x1xf64>, tensor<1xf64>, tensor<i32>, tensor<2xf64>, tensor<i1>)
  func.return
}

// -----

func.func @lstsq_rows(%a: tensor<4x2xf64>, %b: tensor<3x1xf64>, %rc: tensor<f64>) {
  // expected-error @+1 {{tj.linalg lstsq: shapes tensor<4x2xf64> and tensor<3x1xf64> do not match}}
  %x, %res, %rank, %s, %ok = tj.linalg "lstsq" %a, %b, %rc : (tensor<4x2xf64>, tensor<3x1xf64>, tensor<f64>) -> (tensor<2x1xf64>, tensor<1xf64>, tensor<i32>, tensor<2xf64>, tensor<i1>)
  func.return
}

// -----

func.func @lstsq_rcond(%a: tensor<4x2xf32>, %b: tensor<4x1xf32>, %rc: tensor<f64>) {
  // expected-error @+1 {{tj.linalg lstsq: rcond must be a tensor<f32>, got tensor<f64>}}
  %x, %res, %rank, %s, %ok = tj.linalg "lstsq" %a, %b, %rc : (tensor<4x2xf32>, tensor<4x1xf32>, tensor<f64>) -> (tensor<2x1xf32>, tensor<1xf32>, tensor<i32>, tensor<2xf32>, tensor<i1>)
  func.return
}
