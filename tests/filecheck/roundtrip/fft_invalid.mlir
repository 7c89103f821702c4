// tj.fft verifier: each case below is one broken variant of the op.
// RUN: tracejit-opt %s --split-input-file --verify-diagnostics

func.func @unknown_direction(%x: tensor<4xcomplex<f64>>) {
  // expected-error @+1 {{unknown tj.fft direction 'backward'}}
  %r = tj.fft "backward" %x, axis = 0, norm = "backward" : tensor<4xcomplex<f64>> to tensor<4xcomplex<f64>>
  func.return
}

// -----

func.func @unknown_norm(%x: tensor<4xcomplex<f64>>) {
  // expected-error @+1 {{unknown tj.fft norm 'none'}}
  %r = tj.fft "forward" %x, axis = 0, norm = "none" : tensor<4xcomplex<f64>> to tensor<4xcomplex<f64>>
  func.return
}

// -----

func.func @axis_out_of_range(%x: tensor<4xcomplex<f64>>) {
  // expected-error @+1 {{tj.fft axis 1 out of range}}
  %r = tj.fft "forward" %x, axis = 1, norm = "backward" : tensor<4xcomplex<f64>> to tensor<4xcomplex<f64>>
  func.return
}

// -----

func.func @real_elements(%x: tensor<4xf64>) {
  // expected-error @+1 {{tj.fft forward needs complex elements}}
  %r = tj.fft "forward" %x, axis = 0, norm = "backward" : tensor<4xf64> to tensor<4xf64>
  func.return
}

// -----

func.func @dynamic_length(%x: tensor<?xcomplex<f32>>) {
  // expected-error @+1 {{tj.fft needs a static length of at least 1 along its axis}}
  %r = tj.fft "forward" %x, axis = 0, norm = "backward" : tensor<?xcomplex<f32>> to tensor<?xcomplex<f32>>
  func.return
}

// -----

func.func @empty_length(%x: tensor<3x0xcomplex<f32>>) {
  // expected-error @+1 {{tj.fft needs a static length of at least 1 along its axis}}
  %r = tj.fft "inverse" %x, axis = 1, norm = "backward" : tensor<3x0xcomplex<f32>> to tensor<3x0xcomplex<f32>>
  func.return
}

// -----

func.func @complex_into_real_forward(%x: tensor<4xcomplex<f64>>) {
  // expected-error @+1 {{tj.fft real_forward needs real elements}}
  %r = tj.fft "real_forward" %x, axis = 0, norm = "backward" : tensor<4xcomplex<f64>> to tensor<3xcomplex<f64>>
  func.return
}

// -----

func.func @integer_real_forward(%x: tensor<4xi32>) {
  // expected-error @+1 {{tj.fft real_forward needs float32 or float64 elements}}
  %r = tj.fft "real_forward" %x, axis = 0, norm = "backward" : tensor<4xi32> to tensor<3xcomplex<f64>>
  func.return
}

// -----

func.func @half_spectrum_length(%x: tensor<8xf32>) {
  // expected-error @+1 {{tj.fft real_forward of tensor<8xf32> gives tensor<5xcomplex<f32>>}}
  %r = tj.fft "real_forward" %x, axis = 0, norm = "backward" : tensor<8xf32> to tensor<8xcomplex<f32>>
  func.return
}

// -----

func.func @too_few_terms(%x: tensor<4xcomplex<f64>>) {
  // expected-error @+1 {{tj.fft real_inverse of length 8 needs 5 terms}}
  %r = tj.fft "real_inverse" %x, axis = 0, norm = "backward" : tensor<4xcomplex<f64>> to tensor<8xf64>
  func.return
}

// -----

func.func @changed_type(%x: tensor<4xcomplex<f64>>) {
  // expected-error @+1 {{tj.fft inverse of tensor<4xcomplex<f64>> gives tensor<4xcomplex<f64>>}}
  %r = tj.fft "inverse" %x, axis = 0, norm = "backward" : tensor<4xcomplex<f64>> to tensor<4xcomplex<f32>>
  func.return
}
