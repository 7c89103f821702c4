// tj.cumulative and tj.sort verifiers: each case below is one broken variant of the ops.
// RUN: tracejit-opt %s --split-input-file --verify-diagnostics

func.func @unknown_scan(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown tj.cumulative kind 'median'}}
  %r = tj.cumulative "median" %x, axis = 0 : tensor<4xf32>
  func.return
}

// -----

func.func @scan_axis(%x: tensor<4xf32>) {
  // expected-error @+1 {{tj.cumulative axis 1 out of range}}
  %r = tj.cumulative "sum" %x, axis = 1 : tensor<4xf32>
  func.return
}

// -----

func.func @scan_of_a_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{tj.cumulative axis 0 out of range}}
  %r = tj.cumulative "sum" %x, axis = 0 : tensor<f32>
  func.return
}

// -----

func.func @hypot_of_integers(%x: tensor<4xi32>) {
  // expected-error @+1 {{tj.cumulative hypot takes floats, not i32}}
  %r = tj.cumulative "hypot" %x, axis = 0 : tensor<4xi32>
  func.return
}

// -----

func.func @xor_of_floats(%x: tensor<4xf32>) {
  // expected-error @+1 {{tj.cumulative xor takes integers, not f32}}
  %r = tj.cumulative "xor" %x, axis = 0 : tensor<4xf32>
  func.return
}

// -----

func.func @scan_of_bools(%b: tensor<4xi1>) {
  // expected-error @+1 {{tj.cumulative sum is not defined on bool tensors}}
  %r = tj.cumulative "sum" %b, axis = 0 : tensor<4xi1>
  func.return
}

// -----

func.func @unknown_sort(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown tj.sort kind 'keys'}}
  %r = tj.sort "keys" %x, axis = 0 : tensor<4xf32> to tensor<4xf32>
  func.return
}

// -----

func.func @sort_axis(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{tj.sort axis 2 out of range}}
  %r = tj.sort "values" %x, axis = 2 : tensor<4x2xf32> to tensor<4x2xf32>
  func.return
}

// -----

func.func @sort_indices_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{tj.sort indices result type must be tensor<4xi64>}}
  %r = tj.sort "indices" %x, axis = 0 : tensor<4xf32> to tensor<4xi32>
  func.return
}

// -----

func.func @sort_values_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{tj.sort values result type must be tensor<4xf32>}}
  %r = tj.sort "values" %x, axis = 0 : tensor<4xf32> to tensor<3xf32>
  func.return
}
