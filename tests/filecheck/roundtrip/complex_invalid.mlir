// Verifiers reject complex tensors where an op is not defined on them.
// RUN: tracejit-opt %s --split-input-file --verify-diagnostics

func.func @real_of_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{tj.real expects a complex tensor, got tensor<4xf32>}}
  %r = tj.real %x : tensor<4xf32> to tensor<4xf32>
  func.return
}

// -----

func.func @imag_type(%z: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{tj.imag result must be tensor<4xf32>, got tensor<4xf64>}}
  %r = tj.imag %z : tensor<4xcomplex<f32>> to tensor<4xf64>
  func.return
}

// -----

func.func @conj_of_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{tj.conj expects a tensor of complex elements, got f32}}
  %r = tj.conj %x : tensor<4xf32>
  func.return
}

// -----

func.func @floor_divide_complex(%z: tensor<4xcomplex<f64>>) {
  // expected-error @+1 {{tj.floor_divide expects a tensor of float or signed or unsigned elements, got complex<f64>}}
  %r = tj.floor_divide %z, %z : tensor<4xcomplex<f64>>
  func.return
}

// -----

func.func @sin_complex(%z: tensor<4xcomplex<f64>>) {
  // expected-error @+1 {{tj.sin expects a float tensor, got complex<f64>}}
  %r = tj.sin %z : tensor<4xcomplex<f64>>
  func.return
}

// -----

func.func @max_complex(%z: tensor<4xcomplex<f64>>) {
  // expected-error @+1 {{tj.reduce max is not defined on complex tensors}}
  %r = tj.reduce "max" %z, axes = [0] : tensor<4xcomplex<f64>> to tensor<complex<f64>>
  func.return
}
